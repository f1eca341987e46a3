// Wire schemas for Polar's Discount: fixed (amount, currency) or percentage (basis points), once,
// forever or repeating for some months, with an optional code, a redemption window and limit, and
// a restriction to some products.
import { z } from "zod";
import { metadataInput } from "../../lib/metadata.ts";
import { queryList } from "../../lib/query.ts";
import { sortingSchema } from "../../lib/sorting.ts";
import { metadataOut, nullableTimestamp, timestamped, timestampInput } from "../../lib/wire.ts";
import type { ProductRow } from "../products/repository.ts";
import { productCoreSchema, type ProductCoreOut } from "../products/schemas.ts";
import { CURRENCIES } from "../products/currencies.ts";
import type { discounts } from "../../../db/schema/index.ts";

/** A discount row as stored. */
export type DiscountRow = typeof discounts.$inferSelect;

const DURATION = z.enum(["once", "forever", "repeating"]);
const datetime = timestampInput.transform((v) => new Date(v));
const amount = z.number().int().min(0).max(999_999_999_999);
const redemptions = z.number().int().min(1).max(2147483647);
export const code = z
  .string()
  .min(3)
  .max(256)
  .regex(/^[A-Za-z0-9]+$/, "must contain only letters and digits");

const base = {
  name: z.string().min(1).max(255),
  code: code.nullish(),
  starts_at: datetime.nullish(),
  ends_at: datetime.nullish(),
  max_redemptions: redemptions.nullish(),
  max_redemptions_per_customer: redemptions.nullish(),
  products: z.array(z.uuid()).max(100).nullish(),
  organization_id: z.uuid().nullish(),
  metadata: metadataInput.optional(),
  duration: DURATION,
  duration_in_months: z.number().int().min(1).max(999).nullish(),
};

// `type` defaults by shape, as Polar's two create models each default their own literal.
export const discountCreate = z.preprocess(
  (v) =>
    v && typeof v === "object" && !("type" in v)
      ? { ...v, type: "basis_points" in v ? "percentage" : "fixed" }
      : v,
  z.discriminatedUnion("type", [
    z.object({
      type: z.literal("fixed"),
      ...base,
      amount: amount.nullish(),
      currency: z.enum(CURRENCIES).nullish(),
      amounts: z.partialRecord(z.enum(CURRENCIES), amount).nullish(),
    }),
    z.object({
      type: z.literal("percentage"),
      ...base,
      basis_points: z.number().int().min(1).max(10000),
    }),
  ]),
);
export type DiscountCreate = z.output<typeof discountCreate>;

export const discountUpdate = z.object({
  name: base.name.nullish(),
  code: code.nullish(),
  starts_at: datetime.nullish(),
  ends_at: datetime.nullish(),
  max_redemptions: redemptions.nullish(),
  max_redemptions_per_customer: redemptions.nullish(),
  duration: DURATION.nullish(),
  duration_in_months: base.duration_in_months,
  type: z.enum(["fixed", "percentage"]).nullish(),
  amount: amount.nullish(),
  currency: z.enum(CURRENCIES).nullish(),
  amounts: z.partialRecord(z.enum(CURRENCIES), amount).nullish(),
  basis_points: z.number().int().min(1).max(10000).nullish(),
  products: z.array(z.uuid()).max(100).nullish(),
  metadata: metadataInput.optional(),
});
export type DiscountUpdate = z.output<typeof discountUpdate>;

export const DISCOUNT_SORTS = [
  "created_at",
  "name",
  "code",
  "redemptions_count",
  "ends_at",
] as const;
export const discountListQuery = z.object({
  organization_id: queryList(z.uuid()).optional(),
  query: z.string().optional(),
  sorting: sortingSchema(DISCOUNT_SORTS, ["-created_at"]),
});
export type DiscountListQuery = z.output<typeof discountListQuery>;

const discountProductSchema = productCoreSchema.meta({ id: "DiscountProduct" });

const discountCommon = {
  ...timestamped,
  metadata: metadataOut,
  name: z.string(),
  code: z.string().nullable(),
  starts_at: nullableTimestamp,
  ends_at: nullableTimestamp,
  max_redemptions: z.number().int().nullable(),
  max_redemptions_per_customer: z.number().int().nullable(),
  redemptions_count: z.number().int(),
  organization_id: z.uuid(),
  products: z.array(discountProductSchema),
  duration: DURATION,
  // Present only when duration is "repeating".
  duration_in_months: z.number().int().optional(),
};
const fixedFields = {
  type: z.literal("fixed"),
  amount: z.number().int(),
  currency: z.string(),
  amounts: z.record(z.string(), z.number().int()),
};
const percentageFields = { type: z.literal("percentage"), basis_points: z.number().int() };
const { products: _products, ...baseCommon } = discountCommon;

/** The discount without its products, as checkout links embed it. */
export const discountBaseSchema = z
  .discriminatedUnion("type", [
    z.object({ ...baseCommon, ...fixedFields }),
    z.object({ ...baseCommon, ...percentageFields }),
  ])
  .meta({ id: "DiscountBase" });
export type DiscountBaseOut = z.output<typeof discountBaseSchema>;

export const discountSchema = z
  .discriminatedUnion("type", [
    z.object({ ...discountCommon, ...fixedFields }),
    z.object({ ...discountCommon, ...percentageFields }),
  ])
  .meta({ id: "Discount" });
export type DiscountOut = z.output<typeof discountSchema>;

type Interval = ProductCoreOut["recurring_interval"];

export function discountProductOut(p: ProductRow): ProductCoreOut {
  return {
    metadata: p.metadata,
    id: p.id,
    created_at: p.createdAt.toISOString(),
    modified_at: p.modifiedAt?.toISOString() ?? null,
    trial_interval: p.trialInterval as Interval,
    trial_interval_count: p.trialIntervalCount,
    name: p.name,
    description: p.description,
    visibility: p.visibility as ProductCoreOut["visibility"],
    recurring_interval: p.recurringInterval as Interval,
    recurring_interval_count: p.recurringIntervalCount,
    meter_interval: null,
    meter_interval_count: null,
    is_recurring: p.recurringInterval !== null,
    is_archived: p.isArchived,
    organization_id: p.organizationId,
  };
}

export function discountOut(row: DiscountRow, products: ProductRow[]): DiscountOut {
  const common = {
    created_at: row.createdAt.toISOString(),
    modified_at: row.modifiedAt?.toISOString() ?? null,
    id: row.id,
    metadata: row.metadata,
    name: row.name,
    code: row.code,
    starts_at: row.startsAt?.toISOString() ?? null,
    ends_at: row.endsAt?.toISOString() ?? null,
    max_redemptions: row.maxRedemptions,
    max_redemptions_per_customer: row.maxRedemptionsPerCustomer,
    redemptions_count: row.redemptionsCount,
    organization_id: row.organizationId,
    products: products.map(discountProductOut),
  };
  const duration =
    row.duration === "repeating"
      ? { duration: "repeating" as const, duration_in_months: row.durationInMonths ?? 1 }
      : { duration: row.duration as "once" | "forever" };
  if (row.type === "percentage")
    return {
      ...duration,
      type: "percentage" as const,
      basis_points: row.basisPoints ?? 0,
      ...common,
    };
  const currency = row.currency ?? "usd";
  return {
    ...duration,
    type: "fixed" as const,
    amount: row.amount ?? 0,
    currency,
    amounts: { ...(row.amounts ?? {}), [currency]: row.amount ?? 0 },
    ...common,
  };
}

export function discountBaseOut(row: DiscountRow): DiscountBaseOut {
  const { products: _p, ...base } = discountOut(row, []);
  return base;
}
