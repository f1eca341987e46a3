ALTER TABLE "subscriptions" ADD COLUMN "anchor_day" smallint;--> statement-breakpoint
-- The day periods were first set to end on: a trial's end, else the start.
UPDATE "subscriptions" SET "anchor_day" = extract(day from (coalesce("trial_end", "started_at", "created_at") at time zone 'UTC'))::smallint;
