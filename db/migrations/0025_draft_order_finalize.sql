ALTER TABLE "orders" ADD COLUMN "finalizing_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "finalize_payment_method_id" uuid;--> statement-breakpoint
CREATE INDEX "orders_finalizing_idx" ON "orders" USING btree ("finalizing_at");