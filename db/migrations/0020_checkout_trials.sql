ALTER TABLE "checkouts" ADD COLUMN "trial_interval" text;--> statement-breakpoint
ALTER TABLE "checkouts" ADD COLUMN "trial_interval_count" integer;--> statement-breakpoint
ALTER TABLE "checkouts" ADD COLUMN "allow_trial" boolean;