ALTER TABLE "change_charges" ADD COLUMN "payment_replay" jsonb;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "finalize_payment_replay" jsonb;