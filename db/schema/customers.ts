// Customers of a seller. Soft-deleted (deleted_at) so orders, subscriptions and events keep pointing
// at a row; email and external_id are unique per organization among the customers not deleted, so a
// deleted customer's address or id can be used again.
import { sql } from "drizzle-orm";
import { boolean, index, jsonb, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { organization } from "./auth.ts";
import { createdAt, id, modifiedAt, tstz } from "./columns.ts";

export interface CustomerAddress {
  line1: string | null;
  line2: string | null;
  postal_code: string | null;
  city: string | null;
  state: string | null;
  country: string;
}

export const customers = pgTable(
  "customers",
  {
    id: id(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organization.id, { onDelete: "cascade" }),
    externalId: text("external_id"),
    email: text("email").notNull(),
    emailVerified: boolean("email_verified").notNull().default(false),
    name: text("name"),
    billingName: text("billing_name"),
    billingAddress: jsonb("billing_address").$type<CustomerAddress>(),
    /** [value, format], as Polar serializes it. */
    taxId: jsonb("tax_id").$type<[string, string]>(),
    locale: text("locale"),
    metadata: jsonb("metadata")
      .$type<Record<string, string | number | boolean>>()
      .notNull()
      .default({}),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
    deletedAt: tstz("deleted_at"),
  },
  (t) => [
    uniqueIndex("customers_org_email_uq")
      .on(t.organizationId, sql`lower(${t.email})`)
      .where(sql`${t.deletedAt} is null`),
    uniqueIndex("customers_org_external_id_uq")
      .on(t.organizationId, t.externalId)
      .where(sql`${t.deletedAt} is null and ${t.externalId} is not null`),
    index("customers_org_created_idx").on(t.organizationId, t.createdAt, t.id),
  ],
);
