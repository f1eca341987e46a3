// Customers of a seller. Soft-deleted (deleted_at) so orders, subscriptions and events keep pointing
// at a row; email and external_id are unique per organization among the customers not deleted, so a
// deleted customer's address or id can be used again.
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  index,
  jsonb,
  pgSequence,
  pgTable,
  text,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
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

/** Feeds customers.short_id. */
export const customerShortIdSeq = pgSequence("customer_short_id_seq");

/**
 * 26^8: a short id is shown as eight letters (base 26, A-padded), as Polar shows it. The
 * sequence's value is multiplied by a number prime to 26^8 modulo 26^8, a bijection, so ids stay
 * unique while consecutive customers do not get consecutive-looking ids.
 */
const SHORT_ID_SPACE = 208_827_064_576;

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
    /** Names the customer in its invoice and receipt numbers (per-customer numbering). */
    shortId: bigint("short_id", { mode: "number" })
      .notNull()
      .default(
        sql.raw(
          `(nextval('customer_short_id_seq') % ${SHORT_ID_SPACE}) * 40000003 % ${SHORT_ID_SPACE}`,
        ),
      ),
  },
  (t) => [
    uniqueIndex("customers_short_id_uq").on(t.shortId),
    uniqueIndex("customers_org_email_uq")
      .on(t.organizationId, sql`lower(${t.email})`)
      .where(sql`${t.deletedAt} is null`),
    uniqueIndex("customers_org_external_id_uq")
      .on(t.organizationId, t.externalId)
      .where(sql`${t.deletedAt} is null and ${t.externalId} is not null`),
    index("customers_org_created_idx").on(t.organizationId, t.createdAt, t.id),
  ],
);
