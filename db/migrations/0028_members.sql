CREATE TABLE "members" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"customer_id" uuid NOT NULL,
	"email" text NOT NULL,
	"name" text,
	"external_id" text,
	"role" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"modified_at" timestamp with time zone,
	CONSTRAINT "members_role_check" CHECK ("members"."role" in ('owner', 'billing_manager', 'member'))
);
--> statement-breakpoint
ALTER TABLE "members" ADD CONSTRAINT "members_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "members" ADD CONSTRAINT "members_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "members_customer_email_uq" ON "members" USING btree ("customer_id",lower("email"));--> statement-breakpoint
CREATE UNIQUE INDEX "members_customer_external_id_uq" ON "members" USING btree ("customer_id","external_id") WHERE "members"."external_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "members_customer_owner_uq" ON "members" USING btree ("customer_id") WHERE "members"."role" = 'owner';--> statement-breakpoint
CREATE INDEX "members_org_created_idx" ON "members" USING btree ("organization_id","created_at");