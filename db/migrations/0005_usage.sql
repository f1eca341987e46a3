CREATE TABLE "customers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"external_id" text,
	"email" text NOT NULL,
	"email_verified" boolean DEFAULT false NOT NULL,
	"name" text,
	"billing_name" text,
	"billing_address" jsonb,
	"tax_id" jsonb,
	"locale" text,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"modified_at" timestamp with time zone,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "events" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"name" text NOT NULL,
	"source" text DEFAULT 'user' NOT NULL,
	"timestamp" timestamp with time zone NOT NULL,
	"ingested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"customer_id" uuid,
	"external_customer_id" text,
	"member_id" uuid,
	"external_member_id" text,
	"external_id" text,
	"parent_id" uuid,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL
);
--> statement-breakpoint
ALTER TABLE "customers" ADD CONSTRAINT "customers_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "customers_org_email_uq" ON "customers" USING btree ("organization_id",lower("email")) WHERE "customers"."deleted_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "customers_org_external_id_uq" ON "customers" USING btree ("organization_id","external_id") WHERE "customers"."deleted_at" is null and "customers"."external_id" is not null;--> statement-breakpoint
CREATE INDEX "customers_org_created_idx" ON "customers" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "events_org_external_id_uq" ON "events" USING btree ("organization_id","external_id") WHERE "events"."external_id" is not null;--> statement-breakpoint
CREATE INDEX "events_org_customer_ts_idx" ON "events" USING btree ("organization_id","customer_id","timestamp");--> statement-breakpoint
CREATE INDEX "events_org_external_customer_ts_idx" ON "events" USING btree ("organization_id","external_customer_id","timestamp");--> statement-breakpoint
CREATE INDEX "events_org_name_ts_idx" ON "events" USING btree ("organization_id","name","timestamp");--> statement-breakpoint
CREATE INDEX "events_org_ts_idx" ON "events" USING btree ("organization_id","timestamp");--> statement-breakpoint
CREATE INDEX "events_parent_idx" ON "events" USING btree ("parent_id") WHERE "events"."parent_id" is not null;