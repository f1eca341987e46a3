CREATE TABLE "customer_seats" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"billing_customer_id" uuid NOT NULL,
	"subscription_id" uuid,
	"order_id" uuid,
	"status" text NOT NULL,
	"email" text NOT NULL,
	"customer_id" uuid,
	"member_id" uuid,
	"invitation_token_hash" text,
	"invitation_token_expires_at" timestamp with time zone,
	"claimed_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"seat_metadata" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"modified_at" timestamp with time zone,
	CONSTRAINT "customer_seats_owner_check" CHECK (("customer_seats"."subscription_id" is null) <> ("customer_seats"."order_id" is null))
);
--> statement-breakpoint
ALTER TABLE "checkouts" ADD COLUMN "seats" integer;--> statement-breakpoint
ALTER TABLE "checkouts" ADD COLUMN "min_seats" integer;--> statement-breakpoint
ALTER TABLE "checkouts" ADD COLUMN "max_seats" integer;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "seats" integer;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "seats" integer;--> statement-breakpoint
ALTER TABLE "product_prices" ADD COLUMN "seat_tiers" jsonb;--> statement-breakpoint
ALTER TABLE "customer_seats" ADD CONSTRAINT "customer_seats_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "customer_seats" ADD CONSTRAINT "customer_seats_billing_customer_id_customers_id_fk" FOREIGN KEY ("billing_customer_id") REFERENCES "public"."customers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "customer_seats" ADD CONSTRAINT "customer_seats_subscription_id_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."subscriptions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "customer_seats" ADD CONSTRAINT "customer_seats_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "customer_seats" ADD CONSTRAINT "customer_seats_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "customer_seats" ADD CONSTRAINT "customer_seats_member_id_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."members"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "customer_seats_token_uq" ON "customer_seats" USING btree ("invitation_token_hash") WHERE "customer_seats"."invitation_token_hash" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "customer_seats_live_email_uq" ON "customer_seats" USING btree (coalesce("subscription_id", "order_id"),lower("email")) WHERE "customer_seats"."status" <> 'revoked';--> statement-breakpoint
CREATE INDEX "customer_seats_subscription_idx" ON "customer_seats" USING btree ("subscription_id");--> statement-breakpoint
CREATE INDEX "customer_seats_order_idx" ON "customer_seats" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "customer_seats_org_created_idx" ON "customer_seats" USING btree ("organization_id","created_at");