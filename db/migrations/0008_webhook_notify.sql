-- Every committed outbox row is announced on the till_webhook_events channel as
-- "<organization_id>:<seq>", so the delivery dispatcher wakes at once and `till listen` streams reach
-- listeners on every server instance. NOTIFY is transactional: nothing is announced for a rollback.
CREATE OR REPLACE FUNCTION till_notify_webhook_event() RETURNS trigger AS $$
BEGIN
  PERFORM pg_notify('till_webhook_events', NEW.organization_id::text || ':' || NEW.seq::text);
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER webhook_events_notify AFTER INSERT ON webhook_events
  FOR EACH ROW EXECUTE FUNCTION till_notify_webhook_event();
