ALTER TABLE "subscriptions" ADD COLUMN "discount_applied_at" timestamp with time zone;--> statement-breakpoint
-- Durations of the discounts sold so far counted from the subscription's start.
update subscriptions set discount_applied_at = coalesce(started_at, created_at) where discount_id is not null;
