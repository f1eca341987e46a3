ALTER TABLE "subscriptions" ADD COLUMN "current_meter_period_start" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "current_meter_period_end" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "meter_interval" text;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "meter_interval_count" integer;