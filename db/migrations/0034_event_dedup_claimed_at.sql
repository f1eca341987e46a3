-- When each external id was claimed, for EVENT_DEDUP_RETENTION_DAYS. Rows already there get the
-- migration's time (a constant default: no rewrite of the table).
ALTER TABLE "event_dedup" ADD COLUMN "claimed_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
CREATE INDEX "event_dedup_claimed_at_brin" ON "event_dedup" USING brin ("claimed_at");