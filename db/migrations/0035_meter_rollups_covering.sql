-- The customer indexes of meter_customer_hourly carry the partial aggregates, so a customer's
-- period is read by an index-only scan instead of one heap page per hour.
DROP INDEX "meter_customer_hourly_customer_idx";--> statement-breakpoint
DROP INDEX "meter_customer_hourly_external_idx";--> statement-breakpoint
CREATE INDEX "meter_customer_hourly_customer_idx" ON "meter_customer_hourly" USING btree ("meter_id","customer_id","hour","event_count","value_count","sum","min","max");--> statement-breakpoint
CREATE INDEX "meter_customer_hourly_external_idx" ON "meter_customer_hourly" USING btree ("meter_id","external_customer_id","hour","event_count","value_count","sum","min","max");