ALTER TABLE "email_outbox" ADD COLUMN "dedup_key" text;--> statement-breakpoint
CREATE UNIQUE INDEX "email_outbox_dedup_key_idx" ON "email_outbox" USING btree ("dedup_key");