ALTER TABLE "meter_rollup_state" ADD COLUMN "rebuild_horizon" bigint;--> statement-breakpoint
ALTER TABLE "meter_rollup_state" ADD COLUMN "rebuilt_through" uuid;