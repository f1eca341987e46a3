// Wire schemas for Polar's CheckoutLink, its create/update bodies and the /buy prefill parameters.
import { z } from "zod";
import { metadataInput } from "../../lib/metadata.ts";
import { queryInt, queryList } from "../../lib/query.ts";
import { sortingSchema } from "../../lib/sorting.ts";
import { metadataOut, recurringInterval, timestamped } from "../../lib/wire.ts";
import type { DiscountRow } from "../discounts/repository.ts";
import { discountBaseOut, discountBaseSchema } from "../discounts/schemas.ts";
import { type ProductOut, productSchema } from "../products/schemas.ts";
import type { CheckoutLinkRow } from "./repository.ts";

const httpUrl = z.url({ protocol: /^https?$/ }).max(2048);

export const linkCreate = z
  .object({
    payment_processor: z.enum(["stripe", "sandbox"]).default("stripe"),
    products: z.array(z.uuid()).min(1).max(20).optional(),
    product_id: z.uuid().optional(),
    product_price_id: z.uuid().optional(),
    label: z.string().max(200).nullish(),
    allow_discount_codes: z.boolean().default(true),
    require_billing_address: z.boolean().default(false),
    discount_id: z.uuid().nullish(),
    success_url: httpUrl.nullish(),
    return_url: httpUrl.nullish(),
    metadata: metadataInput.optional(),
    organization_id: z.uuid().nullish(),
  })
  .transform((v, ctx) => {
    const products = v.products ?? (v.product_id ? [v.product_id] : undefined);
    if (!products) {
      ctx.addIssue({
        code: "custom",
        path: ["products"],
        message: "Give products (or product_id).",
      });
      return z.NEVER;
    }
    return { ...v, products };
  });

export const linkUpdate = z.object({
  products: z.array(z.uuid()).min(1).max(20).nullish(),
  label: z.string().max(200).nullish(),
  allow_discount_codes: z.boolean().nullish(),
  require_billing_address: z.boolean().nullish(),
  discount_id: z.uuid().nullish(),
  success_url: httpUrl.nullish(),
  return_url: httpUrl.nullish(),
  metadata: metadataInput.optional(),
});

export const CHECKOUT_LINK_SORTS = [
  "created_at",
  "label",
  "success_url",
  "allow_discount_codes",
] as const;

// Polar's default is the oldest first.
export const linkListQuery = z.object({
  organization_id: queryList(z.uuid()).optional(),
  product_id: queryList(z.uuid()).optional(),
  sorting: sortingSchema(CHECKOUT_LINK_SORTS, ["created_at"]),
});
export type LinkListQuery = z.output<typeof linkListQuery>;

/** What a visitor's /buy URL may prefill (the rest of the query string is passed on to the page). */
export const buyQuery = z.object({
  customer_email: z.email().optional(),
  customer_name: z.string().max(256).optional(),
  amount: queryInt({ min: 0, max: 99_999_999 }).optional(),
  embed_origin: httpUrl.optional(),
  reference_id: z.string().max(500).optional(),
});

export const checkoutLinkSchema = z
  .object({
    ...timestamped,
    trial_interval: recurringInterval.nullable(),
    trial_interval_count: z.number().int().nullable(),
    metadata: metadataOut,
    payment_processor: z.literal("stripe"),
    client_secret: z.string(),
    success_url: z.string().nullable(),
    return_url: z.string().nullable(),
    label: z.string().nullable(),
    allow_discount_codes: z.boolean(),
    require_billing_address: z.boolean(),
    discount_id: z.uuid().nullable(),
    seats: z.number().int().nullable(),
    organization_id: z.uuid(),
    products: z.array(
      productSchema.omit({ attached_custom_fields: true }).meta({ id: "CheckoutLinkProduct" }),
    ),
    discount: discountBaseSchema.nullable(),
    url: z.string(),
  })
  .meta({ id: "CheckoutLink" });
export type CheckoutLinkOut = z.output<typeof checkoutLinkSchema>;

export function checkoutLinkOut(
  row: CheckoutLinkRow,
  parts: { url: string; secret: string; products: ProductOut[]; discount: DiscountRow | null },
): CheckoutLinkOut {
  return {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    modified_at: row.modifiedAt?.toISOString() ?? null,
    trial_interval: null,
    trial_interval_count: null,
    metadata: row.metadata,
    payment_processor: "stripe",
    client_secret: parts.secret,
    success_url: row.successUrl,
    return_url: row.returnUrl,
    label: row.label,
    allow_discount_codes: row.allowDiscountCodes,
    require_billing_address: row.requireBillingAddress,
    discount_id: row.discountId,
    seats: null,
    organization_id: row.organizationId,
    products: parts.products.map(({ attached_custom_fields: _a, ...p }) => p),
    discount: parts.discount ? discountBaseOut(parts.discount) : null,
    url: parts.url,
  };
}
