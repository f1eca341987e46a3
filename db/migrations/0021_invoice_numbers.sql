CREATE TABLE "document_counters" (
	"organization_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"last" integer NOT NULL,
	CONSTRAINT "document_counters_organization_id_kind_pk" PRIMARY KEY("organization_id","kind")
);
--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "invoice_number" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "invoice_file_key" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "receipt_number" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "receipt_file_key" text;--> statement-breakpoint
ALTER TABLE "document_counters" ADD CONSTRAINT "document_counters_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Orders made before numbering keep the number the API already showed for them; new orders are
-- numbered per organization from 1.
UPDATE "orders" SET "invoice_number" = 'TILL-' || upper(left("id"::text, 8)) WHERE "invoice_number" IS NULL;
