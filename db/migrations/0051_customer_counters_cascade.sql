ALTER TABLE "customer_document_counters" DROP CONSTRAINT "customer_document_counters_customer_id_customers_id_fk";
--> statement-breakpoint
ALTER TABLE "customer_document_counters" ADD CONSTRAINT "customer_document_counters_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;