-- The outbox announces each statement's rows once per organization, as
-- "<organization_id>:<first seq>:<last seq>", instead of once per row (0008): a page of renewals
-- records a thousand events in one statement, and a NOTIFY per row cost PostgreSQL a trigger call
-- and a queue entry each, and every listening instance a message each. The range may hold seqs of
-- other transactions that ran at the same time; listeners read the range and keep what is theirs.
CREATE OR REPLACE FUNCTION till_notify_webhook_events() RETURNS trigger AS $$
BEGIN
  PERFORM pg_notify('till_webhook_events', organization_id::text || ':' || min(seq)::text || ':' || max(seq)::text)
  FROM new_rows GROUP BY organization_id;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
DROP TRIGGER IF EXISTS webhook_events_notify ON webhook_events;
--> statement-breakpoint
DROP FUNCTION IF EXISTS till_notify_webhook_event();
--> statement-breakpoint
CREATE TRIGGER webhook_events_notify AFTER INSERT ON webhook_events
  REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION till_notify_webhook_events();
