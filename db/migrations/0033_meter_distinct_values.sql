-- Distinct values per hour for unique meters; null once an hour has more than the rollups keep.
ALTER TABLE "meter_customer_hourly" ADD COLUMN "distinct_values" text[];--> statement-breakpoint
ALTER TABLE "meter_hourly" ADD COLUMN "distinct_values" text[];