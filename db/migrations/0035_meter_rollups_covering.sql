-- The customer indexes of meter_customer_hourly carry the partial aggregates, so a customer's
-- period is read by an index-only scan instead of one heap page per hour.
DROP INDEX "meter_customer_hourly_customer_idx";--> statement-breakpoint
DROP INDEX "meter_customer_hourly_external_idx";--> statement-breakpoint
CREATE INDEX "meter_customer_hourly_customer_idx" ON "meter_customer_hourly" USING btree ("meter_id","customer_id","hour","event_count","value_count","sum","min","max");--> statement-breakpoint
CREATE INDEX "meter_customer_hourly_external_idx" ON "meter_customer_hourly" USING btree ("meter_id","external_customer_id","hour","event_count","value_count","sum","min","max");--> statement-breakpoint
-- An index-only scan skips the heap only on pages the visibility map marks all-visible, which a
-- vacuum does. At the default 20 % of new or changed rows a large table's recent hours, which reads
-- of the current period hit most, would wait long for one; at 2 % they wait little (vacuum skips
-- pages already all-visible, so a frequent one is cheap).
ALTER TABLE "meter_customer_hourly" SET (autovacuum_vacuum_insert_scale_factor = 0.02, autovacuum_vacuum_scale_factor = 0.02);--> statement-breakpoint
ALTER TABLE "meter_hourly" SET (autovacuum_vacuum_insert_scale_factor = 0.02, autovacuum_vacuum_scale_factor = 0.02);
