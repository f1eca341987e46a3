// Discounts: a fixed amount or a percentage off, once, forever or for some months, optionally behind
// a code (unique per organization, whatever its case) and restricted to some products.
import { sql } from "drizzle-orm";
import {
  bigint,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { organization } from "./auth.ts";
import { createdAt, id, modifiedAt, tstz } from "./columns.ts";
import type { Metadata } from "./custom-fields.ts";
import { products } from "./products.ts";

export const discounts = pgTable(
  "discounts",
  {
    id: id(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organization.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    type: text("type").notNull(),
    amount: bigint("amount", { mode: "number" }),
    currency: text("currency"),
    amounts: jsonb("amounts").$type<Record<string, number>>(),
    basisPoints: integer("basis_points"),
    duration: text("duration").notNull(),
    durationInMonths: integer("duration_in_months"),
    code: text("code"),
    startsAt: tstz("starts_at"),
    endsAt: tstz("ends_at"),
    maxRedemptions: integer("max_redemptions"),
    maxRedemptionsPerCustomer: integer("max_redemptions_per_customer"),
    redemptionsCount: integer("redemptions_count").notNull().default(0),
    metadata: jsonb("metadata").$type<Metadata>().notNull().default(sql`'{}'::jsonb`),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
    deletedAt: tstz("deleted_at"),
  },
  (t) => [
    // Codes are typed by customers: "SUMMER" and "summer" are the same code.
    uniqueIndex("discounts_org_code_uq")
      .on(t.organizationId, sql`lower(${t.code})`)
      .where(sql`${t.deletedAt} is null and ${t.code} is not null`),
    index("discounts_org_created_idx").on(t.organizationId, t.createdAt),
  ],
);

export const discountProducts = pgTable(
  "discount_products",
  {
    discountId: uuid("discount_id")
      .notNull()
      .references(() => discounts.id, { onDelete: "cascade" }),
    productId: uuid("product_id")
      .notNull()
      .references(() => products.id, { onDelete: "cascade" }),
  },
  (t) => [
    primaryKey({ columns: [t.discountId, t.productId] }),
    index("discount_products_product_idx").on(t.productId),
  ],
);
