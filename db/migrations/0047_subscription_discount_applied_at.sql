ALTER TABLE "subscriptions" ADD COLUMN "discount_applied_at" timestamp with time zone;--> statement-breakpoint
-- Durations of the discounts sold so far count from the first charged period: the start, or the
-- end of a trial; one still in its trial first applies at the trial's end.
update subscriptions set discount_applied_at = coalesce(trial_end, started_at, created_at)
where discount_id is not null and status <> 'trialing';
