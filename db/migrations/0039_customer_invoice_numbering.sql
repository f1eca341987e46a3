-- Invoice and receipt numbers per customer (PREFIX-SHORTID-0001), Polar's default numbering: a
-- customer's short id names it in its numbers, and its own counters number its documents, so orders
-- of different customers no longer queue on one organization-wide counter row. An organization that
-- has already issued numbers keeps numbering organization-wide (order_settings.invoice_numbering =
-- "organization"), so its series does not change shape midway.
CREATE SEQUENCE "public"."customer_short_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;--> statement-breakpoint
CREATE TABLE "customer_document_counters" (
	"customer_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"last" integer NOT NULL,
	CONSTRAINT "customer_document_counters_customer_id_kind_pk" PRIMARY KEY("customer_id","kind")
);
--> statement-breakpoint
ALTER TABLE "customers" ADD COLUMN "short_id" bigint DEFAULT (nextval('customer_short_id_seq') % 208827064576) * 40000003 % 208827064576 NOT NULL;--> statement-breakpoint
ALTER TABLE "customer_document_counters" ADD CONSTRAINT "customer_document_counters_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "customers_short_id_uq" ON "customers" USING btree ("short_id");--> statement-breakpoint
UPDATE "organization_profiles" SET "settings" = "settings" || '{"order_settings":{"invoice_numbering":"organization"}}'::jsonb
  WHERE "organization_id" IN (SELECT "organization_id" FROM "document_counters");
