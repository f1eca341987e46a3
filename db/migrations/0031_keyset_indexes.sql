DROP INDEX "customers_org_created_idx";--> statement-breakpoint
DROP INDEX "orders_org_created_idx";--> statement-breakpoint
DROP INDEX "subscriptions_org_created_idx";--> statement-breakpoint
CREATE INDEX "customers_org_created_idx" ON "customers" USING btree ("organization_id","created_at","id");--> statement-breakpoint
CREATE INDEX "orders_org_created_idx" ON "orders" USING btree ("organization_id","created_at","id");--> statement-breakpoint
CREATE INDEX "subscriptions_org_created_idx" ON "subscriptions" USING btree ("organization_id","created_at","id");