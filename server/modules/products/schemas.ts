// Wire schemas for Polar's Product: create (one-time or recurring), update, benefits update, list
// query, and the serializer that embeds prices, benefits, medias and attached custom fields.
import { z } from "zod";
import { metadataInput } from "../../lib/metadata.ts";
import { queryBoolean, queryList } from "../../lib/query.ts";
import { sortingSchema } from "../../lib/sorting.ts";
import { metadataOut, recurringInterval, timestamped } from "../../lib/wire.ts";
import { benefitSchema } from "../benefits/schemas.ts";
import { customFieldSchema } from "../custom-fields/schemas.ts";
import { productMediaSchema } from "../files/schemas.ts";
import { priceCreate, priceSchema } from "./prices.ts";
import type { products } from "../../../db/schema/index.ts";

/** A product row as stored. */
export type ProductRow = typeof products.$inferSelect;

const INTERVAL = z.enum(["day", "week", "month", "year"]);
const VISIBILITY = z.enum(["draft", "private", "public"]);
const attachedCustomField = z.object({ custom_field_id: z.uuid(), required: z.boolean() });

const editable = {
  name: z.string().min(3).max(64),
  description: z.string().max(5000).nullish(),
  medias: z.array(z.uuid()).max(50).nullish(),
  attached_custom_fields: z.array(attachedCustomField).max(50).nullish(),
  metadata: metadataInput.optional(),
  trial_interval: INTERVAL.nullish(),
  trial_interval_count: z.number().int().min(1).max(1000).nullish(),
};

// One schema for Polar's ProductCreateOneTime | ProductCreateRecurring: recurring_interval decides,
// and the service refuses recurring-only fields on one-time products.
export const productCreate = z.object({
  ...editable,
  visibility: VISIBILITY.default("public"),
  organization_id: z.uuid().nullish(),
  recurring_interval: INTERVAL.nullish(),
  recurring_interval_count: z.number().int().min(1).max(999).nullish(),
  meter_interval: INTERVAL.nullish(),
  meter_interval_count: z.number().int().min(1).max(999).nullish(),
  prices: z.array(priceCreate).min(1).max(50),
});
export type ProductCreate = z.output<typeof productCreate>;

export const productUpdate = z.object({
  ...editable,
  name: editable.name.nullish(),
  visibility: VISIBILITY.nullish(),
  is_archived: z.boolean().nullish(),
  recurring_interval: INTERVAL.nullish(),
  recurring_interval_count: z.number().int().min(1).max(999).nullish(),
  // Items are ExistingProductPrice or a new price; prices.ts reads each with the right schema.
  prices: z.array(z.unknown()).max(50).nullish(),
});
export type ProductUpdate = z.output<typeof productUpdate>;

export const productBenefitsUpdate = z.object({ benefits: z.array(z.uuid()).max(100) });

export const PRODUCT_SORTS = ["created_at", "name", "price_amount_type", "price_amount"] as const;
export const productListQuery = z.object({
  id: queryList(z.uuid()).optional(),
  organization_id: queryList(z.uuid()).optional(),
  query: z.string().optional(),
  is_archived: queryBoolean.optional(),
  is_recurring: queryBoolean.optional(),
  benefit_id: queryList(z.uuid()).optional(),
  visibility: queryList(VISIBILITY).optional(),
  sorting: sortingSchema(PRODUCT_SORTS, ["-created_at"]),
});
export type ProductListQuery = z.output<typeof productListQuery>;

/** The product without its parts: Polar's OrderProduct, DiscountProduct and others embed it. */
export const productCoreSchema = z.object({
  ...timestamped,
  trial_interval: recurringInterval.nullable(),
  trial_interval_count: z.number().int().nullable(),
  name: z.string(),
  description: z.string().nullable(),
  visibility: VISIBILITY,
  recurring_interval: recurringInterval.nullable(),
  recurring_interval_count: z.number().int().nullable(),
  meter_interval: recurringInterval.nullable(),
  meter_interval_count: z.number().int().nullable(),
  is_recurring: z.boolean(),
  is_archived: z.boolean(),
  organization_id: z.uuid(),
  metadata: metadataOut,
});
export type ProductCoreOut = z.output<typeof productCoreSchema>;

const productParts = {
  prices: z.array(priceSchema),
  benefits: z.array(benefitSchema),
  medias: z.array(productMediaSchema),
  attached_custom_fields: z.array(
    z
      .object({
        custom_field_id: z.uuid(),
        custom_field: customFieldSchema,
        order: z.number().int(),
        required: z.boolean(),
      })
      .meta({ id: "AttachedCustomField" }),
  ),
};
export const productSchema = z
  .object({ ...productCoreSchema.shape, ...productParts })
  .meta({ id: "Product" });
export type ProductOut = z.output<typeof productSchema>;
export type ProductParts = Pick<ProductOut, keyof typeof productParts>;

type Interval = z.output<typeof recurringInterval>;

export function productOut(row: ProductRow, parts: ProductParts): ProductOut {
  return {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    modified_at: row.modifiedAt?.toISOString() ?? null,
    trial_interval: row.trialInterval as Interval | null,
    trial_interval_count: row.trialIntervalCount,
    name: row.name,
    description: row.description,
    visibility: row.visibility as ProductOut["visibility"],
    recurring_interval: row.recurringInterval as Interval | null,
    recurring_interval_count: row.recurringIntervalCount,
    meter_interval: row.meterInterval as Interval | null,
    meter_interval_count: row.meterIntervalCount,
    is_recurring: row.recurringInterval !== null,
    is_archived: row.isArchived,
    organization_id: row.organizationId,
    metadata: row.metadata,
    ...parts,
  };
}
