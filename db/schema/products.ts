// Products and their prices. A price row is never edited: changing a product's prices archives the
// old rows and inserts new ones, so orders and subscriptions keep pointing at what was sold.
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  uuid,
} from "drizzle-orm/pg-core";
import { organization } from "./auth.ts";
import { benefits } from "./benefits.ts";
import { createdAt, id, modifiedAt } from "./columns.ts";
import { customFields, type Metadata } from "./custom-fields.ts";
import { files } from "./files.ts";
import { meters } from "./meters.ts";

export interface SeatTier {
  min_seats: number;
  max_seats: number | null;
  price_per_seat: number;
}
export interface SeatTiers {
  seat_tier_type: "volume" | "graduated";
  tiers: SeatTier[];
}

export const products = pgTable(
  "products",
  {
    id: id(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organization.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description"),
    visibility: text("visibility").notNull().default("public"),
    recurringInterval: text("recurring_interval"),
    recurringIntervalCount: integer("recurring_interval_count"),
    trialInterval: text("trial_interval"),
    trialIntervalCount: integer("trial_interval_count"),
    /** A meter cycle shorter than the billing interval (usage settled, credits renewed on it). */
    meterInterval: text("meter_interval"),
    meterIntervalCount: integer("meter_interval_count"),
    isArchived: boolean("is_archived").notNull().default(false),
    metadata: jsonb("metadata").$type<Metadata>().notNull().default(sql`'{}'::jsonb`),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
  },
  (t) => [index("products_org_created_idx").on(t.organizationId, t.createdAt)],
);

export const productPrices = pgTable(
  "product_prices",
  {
    id: id(),
    productId: uuid("product_id")
      .notNull()
      .references(() => products.id, { onDelete: "cascade" }),
    amountType: text("amount_type").notNull(),
    source: text("source").notNull().default("catalog"),
    priceCurrency: text("price_currency").notNull().default("usd"),
    taxBehavior: text("tax_behavior"),
    priceAmount: bigint("price_amount", { mode: "number" }),
    minimumAmount: bigint("minimum_amount", { mode: "number" }),
    maximumAmount: bigint("maximum_amount", { mode: "number" }),
    presetAmount: bigint("preset_amount", { mode: "number" }),
    /** Minor units per meter unit, up to 12 decimal places (kept exact as numeric). */
    unitAmount: numeric("unit_amount", { precision: 17, scale: 12 }),
    capAmount: bigint("cap_amount", { mode: "number" }),
    meterId: uuid("meter_id").references(() => meters.id),
    /** Seat-based prices: the tiers by seat count, each with its price per seat in minor units. */
    seatTiers: jsonb("seat_tiers").$type<SeatTiers>(),
    /** Where the price was listed in the request that created it; keeps the seller's order. */
    position: integer("position").notNull().default(0),
    isArchived: boolean("is_archived").notNull().default(false),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
  },
  (t) => [index("product_prices_product_idx").on(t.productId, t.isArchived)],
);

export const productBenefits = pgTable(
  "product_benefits",
  {
    productId: uuid("product_id")
      .notNull()
      .references(() => products.id, { onDelete: "cascade" }),
    benefitId: uuid("benefit_id")
      .notNull()
      .references(() => benefits.id, { onDelete: "cascade" }),
    order: integer("order").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.productId, t.benefitId] }),
    index("product_benefits_benefit_idx").on(t.benefitId),
  ],
);

export const productMedias = pgTable(
  "product_medias",
  {
    productId: uuid("product_id")
      .notNull()
      .references(() => products.id, { onDelete: "cascade" }),
    fileId: uuid("file_id")
      .notNull()
      .references(() => files.id, { onDelete: "cascade" }),
    order: integer("order").notNull(),
  },
  (t) => [primaryKey({ columns: [t.productId, t.fileId] })],
);

export const productCustomFields = pgTable(
  "product_custom_fields",
  {
    productId: uuid("product_id")
      .notNull()
      .references(() => products.id, { onDelete: "cascade" }),
    customFieldId: uuid("custom_field_id")
      .notNull()
      .references(() => customFields.id, { onDelete: "cascade" }),
    order: integer("order").notNull(),
    required: boolean("required").notNull(),
  },
  (t) => [primaryKey({ columns: [t.productId, t.customFieldId] })],
);
