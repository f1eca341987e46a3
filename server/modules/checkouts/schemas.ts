// Wire schemas for checkout creation and updates (Polar's CheckoutProductsCreate and its legacy
// single-product forms, CheckoutUpdate, CheckoutUpdatePublic and CheckoutConfirmStripe), and the
// Checkout the seller's API answers with.
import { isIP } from "node:net";
import { z } from "zod";
import { metadataInput } from "../../lib/metadata.ts";
import { queryList } from "../../lib/query.ts";
import { sortingSchema } from "../../lib/sorting.ts";
import {
  address,
  metadataOut,
  nullableTimestamp,
  recurringInterval,
  timestamp,
  timestamped,
} from "../../lib/wire.ts";
import { addressInput } from "../customers/schemas.ts";
import { priceSchema } from "../products/prices.ts";
import { productSchema } from "../products/schemas.ts";
import { seatCount } from "../products/seat-tiers.ts";

const customFieldData = z.record(
  z.string().min(1).max(100),
  z.union([z.string().max(5000), z.number(), z.boolean(), z.null()]),
);
const httpUrl = z.url({ protocol: /^https?$/ });
// Seats apply to seat-based prices only (elsewhere they are kept null). A session's trial overrides
// its product's.
const seats = seatCount.nullish();
const trial = {
  trial_interval: z.enum(["day", "week", "month", "year"]).nullish(),
  trial_interval_count: z.number().int().min(1).max(1000).nullish(),
};

/** Polar's IPvAnyAddress: an IPv4 or IPv6 address, nothing else. */
const ipAddress = z
  .string()
  .max(64)
  .refine((v) => isIP(v) !== 0, { message: "value is not a valid IPv4 or IPv6 address" });
const common = {
  metadata: metadataInput.optional(),
  custom_field_data: customFieldData.optional(),
  discount_id: z.uuid().nullish(),
  allow_discount_codes: z.boolean().default(true),
  require_billing_address: z.boolean().default(false),
  amount: z.number().int().min(0).max(99_999_999).nullish(),
  allow_trial: z.boolean().optional(),
  customer_id: z.uuid().nullish(),
  // Unset: a business purchase when the customer last bought as one (service.ts).
  is_business_customer: z.boolean().optional(),
  external_customer_id: z.string().min(1).max(256).nullish(),
  customer_name: z.string().max(256).nullish(),
  customer_email: z.email().max(320).nullish(),
  customer_ip_address: ipAddress.nullish(),
  customer_billing_name: z.string().max(256).nullish(),
  customer_billing_address: addressInput.nullish(),
  customer_tax_id: z.string().max(64).nullish(),
  customer_metadata: metadataInput.optional(),
  success_url: httpUrl.max(2048).nullish(),
  return_url: httpUrl.max(2048).nullish(),
  embed_origin: httpUrl.max(2048).nullish(),
  locale: z.string().max(35).nullish(),
  organization_id: z.uuid().nullish(),
  seats,
  min_seats: seats,
  max_seats: seats,
  ...trial,
};

export const checkoutCreate = z
  .object({
    ...common,
    products: z.array(z.uuid()).min(1).max(20).optional(),
    product_id: z.uuid().optional(),
    product_price_id: z.uuid().optional(),
    // A free subscription this checkout upgrades on success, instead of starting another.
    subscription_id: z.uuid().nullish(),
  })
  .superRefine((v, ctx) => {
    const forms = [v.products, v.product_id, v.product_price_id].filter(
      (x) => x !== undefined,
    ).length;
    if (forms !== 1)
      ctx.addIssue({
        code: "custom",
        path: ["products"],
        message: "Give exactly one of products, product_id or product_price_id.",
      });
  });
export type CheckoutCreate = z.output<typeof checkoutCreate>;

/** What the customer may change from the checkout page. */
export const checkoutUpdatePublic = z.object({
  custom_field_data: customFieldData.optional(),
  product_id: z.uuid().nullish(),
  product_price_id: z.uuid().nullish(),
  amount: z.number().int().min(0).max(99_999_999).nullish(),
  is_business_customer: z.boolean().nullish(),
  customer_name: z.string().max(256).nullish(),
  customer_email: z.email().max(320).nullish(),
  customer_billing_name: z.string().max(256).nullish(),
  customer_billing_address: addressInput.nullish(),
  customer_tax_id: z.string().max(64).nullish(),
  locale: z.string().max(35).nullish(),
  discount_code: z.string().max(256).nullish(),
  seats,
});
export type CheckoutUpdatePublic = z.output<typeof checkoutUpdatePublic>;

/** What the seller may change with a token. */
export const checkoutUpdate = checkoutUpdatePublic.omit({ discount_code: true }).extend({
  metadata: metadataInput.optional(),
  customer_metadata: metadataInput.nullish(),
  discount_id: z.uuid().nullish(),
  allow_discount_codes: z.boolean().nullish(),
  require_billing_address: z.boolean().nullish(),
  customer_ip_address: ipAddress.nullish(),
  success_url: httpUrl.max(2048).nullish(),
  return_url: httpUrl.max(2048).nullish(),
  embed_origin: httpUrl.max(2048).nullish(),
  ...trial,
});
export type CheckoutUpdate = z.output<typeof checkoutUpdate>;

export const checkoutConfirm = checkoutUpdatePublic.extend({
  confirmation_token_id: z.string().min(1).max(200).nullish(),
  payment_method_type: z.string().max(50).nullish(),
  allow_trial: z.boolean().nullish(),
});
export type CheckoutConfirm = z.output<typeof checkoutConfirm>;

export const checkoutListQuery = z.object({
  organization_id: queryList(z.uuid()).optional(),
  product_id: queryList(z.uuid()).optional(),
  customer_id: queryList(z.uuid()).optional(),
  external_customer_id: queryList(z.string()).optional(),
  status: queryList(z.enum(["open", "expired", "confirmed", "succeeded", "failed"])).optional(),
  query: z.string().max(200).optional(),
  sorting: sortingSchema(["created_at", "expires_at", "status"] as const, ["-created_at"]),
});
export type CheckoutListQuery = z.output<typeof checkoutListQuery>;

const fieldMode = z.enum(["required", "optional", "disabled"]);
const checkoutProductSchema = productSchema
  .omit({ attached_custom_fields: true, metadata: true })
  .meta({ id: "CheckoutProduct" });
const checkoutDiscountBase = {
  id: z.uuid(),
  name: z.string(),
  code: z.string().nullable(),
  duration: z.enum(["once", "forever", "repeating"]),
  duration_in_months: z.number().int().optional(),
};
const checkoutDiscountSchema = z
  .discriminatedUnion("type", [
    z.object({
      ...checkoutDiscountBase,
      type: z.literal("fixed"),
      amount: z.number().int(),
      currency: z.string(),
      amounts: z.record(z.string(), z.number().int()),
    }),
    z.object({
      ...checkoutDiscountBase,
      type: z.literal("percentage"),
      basis_points: z.number().int(),
    }),
  ])
  .meta({ id: "CheckoutDiscount" });

export const checkoutSchema = z
  .object({
    ...timestamped,
    custom_field_data: z.record(z.string(), z.unknown()),
    payment_processor: z.literal("stripe"),
    status: z.enum(["open", "expired", "confirmed", "succeeded", "failed"]),
    client_secret: z.string(),
    url: z.string(),
    expires_at: timestamp,
    success_url: z.string(),
    return_url: z.string().nullable(),
    embed_origin: z.string().nullable(),
    amount: z.number().int(),
    seats: z.number().int().nullable(),
    min_seats: z.number().int().nullable(),
    max_seats: z.number().int().nullable(),
    discount_amount: z.number().int(),
    net_amount: z.number().int(),
    tax_amount: z.number().int().nullable(),
    tax_behavior: z.enum(["inclusive", "exclusive"]).nullable(),
    total_amount: z.number().int(),
    currency: z.string(),
    allow_trial: z.boolean().nullable(),
    active_trial_interval: recurringInterval.nullable(),
    active_trial_interval_count: z.number().int().nullable(),
    trial_end: nullableTimestamp,
    organization_id: z.uuid(),
    product_id: z.uuid().nullable(),
    product_price_id: z.uuid().nullable(),
    discount_id: z.uuid().nullable(),
    allow_discount_codes: z.boolean(),
    require_billing_address: z.boolean(),
    is_discount_applicable: z.boolean(),
    is_free_product_price: z.boolean(),
    is_payment_required: z.boolean(),
    is_payment_setup_required: z.boolean(),
    is_payment_form_required: z.boolean(),
    customer_id: z.uuid().nullable(),
    is_business_customer: z.boolean(),
    customer_name: z.string().nullable(),
    customer_email: z.string().nullable(),
    customer_ip_address: z.string().nullable(),
    customer_billing_name: z.string().nullable(),
    customer_billing_address: address.nullable(),
    customer_tax_id: z.string().nullable(),
    locale: z.string().nullable(),
    payment_method_type: z.string().nullable(),
    payment_processor_metadata: z.record(z.string(), z.string()),
    billing_address_fields: z
      .object({
        country: fieldMode,
        state: fieldMode,
        city: fieldMode,
        postal_code: fieldMode,
        line1: fieldMode,
        line2: fieldMode,
      })
      .meta({ id: "CheckoutBillingAddressFields" }),
    trial_interval: recurringInterval.nullable(),
    trial_interval_count: z.number().int().nullable(),
    metadata: metadataOut,
    external_customer_id: z.string().nullable(),
    customer_metadata: z.record(z.string(), z.unknown()),
    products: z.array(checkoutProductSchema),
    product: checkoutProductSchema.nullable(),
    product_price: priceSchema.nullable(),
    prices: z.record(z.string(), z.array(priceSchema)),
    discount: checkoutDiscountSchema.nullable(),
    subscription_id: z.uuid().nullable(),
    attached_custom_fields: productSchema.shape.attached_custom_fields,
  })
  .meta({ id: "Checkout" });
export type CheckoutOut = z.output<typeof checkoutSchema>;

export const checkoutOrganizationSchema = z
  .object({
    ...timestamped,
    name: z.string(),
    slug: z.string(),
    avatar_url: z.string().nullable(),
    proration_behavior: z.enum(["invoice", "prorate", "next_period", "reset"]),
    allow_customer_updates: z.boolean(),
  })
  .meta({ id: "CheckoutOrganization" });

// The page's view: the seller's metadata and the subscription stay out of it.
const publicShape = checkoutSchema
  .omit({
    metadata: true,
    customer_metadata: true,
    external_customer_id: true,
    subscription_id: true,
  })
  .extend({
    organization: checkoutOrganizationSchema,
    customer_session_token: z.string().nullable(),
  });
export const checkoutPublicSchema = publicShape.meta({ id: "CheckoutPublic" });
export type CheckoutPublicOut = z.output<typeof checkoutPublicSchema>;

export const checkoutPublicConfirmedSchema = publicShape
  .extend({ status: z.literal("confirmed") })
  .meta({ id: "CheckoutPublicConfirmed" });
export type CheckoutPublicConfirmedOut = z.output<typeof checkoutPublicConfirmedSchema>;
