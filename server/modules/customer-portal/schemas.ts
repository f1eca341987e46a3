// Wire schemas for the customer portal: Polar's CustomerPortalCustomer(+Update), CustomerSubscription,
// CustomerSubscriptionCancel, CustomerOrder, CustomerBenefitGrant and the CustomerOrganization they embed. The portal shows
// the seller's resources minus what only the seller sees (metadata, custom field data, the customer).
import { z } from "zod";
import { seatCount } from "../products/seat-tiers.ts";
import { queryBoolean, queryList } from "../../lib/query.ts";
import { sortingSchema } from "../../lib/sorting.ts";
import { addressInput, type CustomerOut, customerSchema } from "../customers/schemas.ts";
import {
  type GrantOut,
  grantSchema,
  stateGrantSchema,
  stateMeterSchema,
} from "../grants/schemas.ts";
import { BENEFIT_TYPES } from "../benefits/schemas.ts";
import { orderSchema, type OrderOut } from "../orders/schemas.ts";
import { productCoreSchema, productSchema, type ProductOut } from "../products/schemas.ts";
import {
  CANCELLATION_REASONS,
  stateSubscriptionSchema,
  subscriptionPause,
  subscriptionResume,
  subscriptionSchema,
  subscriptionUpdateClear,
  type SubscriptionOut,
} from "../subscriptions/schemas.ts";
import { metadataOut, nullableTimestamp, timestamp, timestamped } from "../../lib/wire.ts";

// Polar's CustomerState: the customer with what it has now. It is served by /v1/customers/{id}/state
// and carried by customer.state_changed; it lives here, above every module it gathers.
export const customerStateSchema = z
  .object({
    ...customerSchema.shape,
    active_subscriptions: z.array(stateSubscriptionSchema),
    granted_benefits: z.array(stateGrantSchema),
    active_meters: z.array(stateMeterSchema),
  })
  .meta({ id: "CustomerState" });
export type CustomerStateOut = z.output<typeof customerStateSchema>;

export const portalCustomerUpdate = z.object({
  billing_name: z.string().max(256).nullish(),
  billing_address: addressInput.nullish(),
  tax_id: z.string().min(1).max(64).nullish(),
  default_payment_method_id: z.uuid().nullish(),
});
export type PortalCustomerUpdate = z.output<typeof portalCustomerUpdate>;

/**
 * Polar's CustomerSubscriptionUpdate: Cancel, UpdateProduct, UpdateSeats, Pause, Resume or
 * UpdateClear. Each variant is strict, so a body mixing two (or with unknown keys) is a 422.
 */
export const portalSubscriptionUpdate = z.union([
  z
    .object({
      cancel_at_period_end: z.boolean().nullish(),
      cancellation_reason: z.enum(CANCELLATION_REASONS).nullish(),
      cancellation_comment: z.string().max(2000).nullish(),
    })
    .strict(),
  z.object({ product_id: z.uuid() }).strict(),
  z.object({ seats: seatCount }).strict(),
  subscriptionPause,
  subscriptionResume,
  subscriptionUpdateClear,
]);
export type PortalSubscriptionUpdate = z.output<typeof portalSubscriptionUpdate>;

export const portalSubscriptionListQuery = z.object({
  product_id: queryList(z.uuid()).optional(),
  active: queryBoolean.optional(),
  query: z.string().optional(),
  sorting: sortingSchema(["started_at", "amount", "status", "organization", "product"] as const, [
    "-started_at",
  ]),
});
export type PortalSubscriptionListQuery = z.output<typeof portalSubscriptionListQuery>;

export const portalOrderListQuery = z.object({
  product_id: queryList(z.uuid()).optional(),
  product_billing_type: queryList(z.enum(["one_time", "recurring"])).optional(),
  subscription_id: queryList(z.uuid()).optional(),
  query: z.string().optional(),
  sorting: sortingSchema(
    ["created_at", "amount", "net_amount", "product", "subscription"] as const,
    ["-created_at"],
  ),
});
export type PortalOrderListQuery = z.output<typeof portalOrderListQuery>;

/** ?benefit_id= on the license key and downloadable lists. */
export const benefitIdQuery = z.object({ benefit_id: queryList(z.uuid()).optional() });
export type BenefitIdQuery = z.output<typeof benefitIdQuery>;

export interface OrganizationSummary {
  id: string;
  name: string;
  slug: string;
  avatarUrl: string | null;
  createdAt: Date;
  /** What the organization lets its customers do in the portal (its settings, defaults filled). */
  portal: {
    prorationBehavior: "invoice" | "prorate" | "next_period" | "reset";
    allowCustomerUpdates: boolean;
    showUsage: boolean;
    updateSeats: boolean;
    updatePlan: boolean;
    /** customer_portal_settings.subscription.pause: pausing and resuming (off by default). */
    pause: boolean;
  };
}

export const customerOrganizationSchema = z
  .object({
    created_at: timestamp,
    modified_at: nullableTimestamp,
    id: z.uuid(),
    name: z.string(),
    slug: z.string(),
    avatar_url: z.string().nullable(),
    proration_behavior: z.enum(["invoice", "prorate", "next_period", "reset"]),
    allow_customer_updates: z.boolean(),
    customer_portal_settings: z.object({
      usage: z.object({ show: z.boolean() }),
      subscription: z.object({
        update_seats: z.boolean(),
        update_plan: z.boolean(),
        pause: z.boolean(),
      }),
      customer: z.object({ allow_email_change: z.boolean() }),
    }),
    organization_features: z.object({
      member_model_enabled: z.boolean(),
      checkout_localization_enabled: z.boolean(),
    }),
  })
  .meta({ id: "CustomerOrganization" });
export type CustomerOrganizationOut = z.output<typeof customerOrganizationSchema>;

export const portalCustomerSchema = z
  .object({
    ...customerSchema.pick({
      created_at: true,
      modified_at: true,
      id: true,
      email: true,
      email_verified: true,
      name: true,
      billing_name: true,
      billing_address: true,
      tax_id: true,
      type: true,
      locale: true,
    }).shape,
    oauth_accounts: z.record(
      z.string(),
      z
        .object({ account_id: z.string(), account_username: z.string().nullable() })
        .meta({ id: "CustomerPortalOAuthAccount" }),
    ),
    default_payment_method_id: z.uuid().nullable(),
  })
  .meta({ id: "CustomerPortalCustomer" });
export type PortalCustomerOut = z.output<typeof portalCustomerSchema>;

const benefitPublicSchema = z
  .object({
    ...timestamped,
    type: z.enum(BENEFIT_TYPES),
    description: z.string(),
    selectable: z.boolean(),
    deletable: z.boolean(),
    is_deleted: z.boolean(),
    organization_id: z.uuid(),
  })
  .meta({ id: "BenefitPublic" });

/**
 * Polar's Benefit*Subscriber: the benefit with the seller embedded. The 2026-10 contract leaves
 * `metadata` out, but Polar's SDK still requires it, so it stays.
 */
const subscriberBenefitSchema = benefitPublicSchema
  .extend({
    metadata: metadataOut,
    organization: customerOrganizationSchema,
    properties: z.record(z.string(), z.unknown()),
  })
  .meta({ id: "BenefitSubscriber" });

/** Polar's CustomerBenefitGrant: the grant with the customer and the benefit as the portal shows them. */
export const customerGrantSchema = grantSchema
  .omit({ member: true })
  .extend({ customer: portalCustomerSchema, benefit: subscriberBenefitSchema })
  .meta({ id: "CustomerBenefitGrant" });
export type CustomerGrantOut = z.output<typeof customerGrantSchema>;

/** CustomerSubscriptionProduct / CustomerOrderProduct: public benefits, the seller's organization. */
export const portalProductSchema = productCoreSchema
  .omit({ metadata: true })
  .extend({
    prices: productSchema.shape.prices,
    benefits: z.array(benefitPublicSchema),
    medias: productSchema.shape.medias,
    organization: customerOrganizationSchema,
  })
  .meta({ id: "CustomerSubscriptionProduct" });
export type PortalProductOut = z.output<typeof portalProductSchema>;

/**
 * till's addition to CustomerSubscription: what it costs as the portal says it. `amount` is what a
 * period bills now, the discount taken off; here are the prices a period before any discount, the
 * discount (what a customer may see of it) and what the next renewal bills, usage and tax left
 * out: null when no renewal follows or a plan change makes it (the new plan's prices say it).
 */
export const portalPricingSchema = z
  .object({
    amount_before_discount: z.number().int(),
    discount: z
      .object({
        id: z.uuid(),
        name: z.string(),
        type: z.enum(["fixed", "percentage"]),
        amount: z.number().int().nullable(),
        basis_points: z.number().int().nullable(),
        duration: z.enum(["once", "forever", "repeating"]),
        duration_in_months: z.number().int().nullable(),
      })
      .nullable(),
    next_amount: z.number().int().nullable(),
  })
  .meta({ id: "CustomerSubscriptionPricing" });
export type PortalPricingOut = z.output<typeof portalPricingSchema>;

export const portalSubscriptionSchema = subscriptionSchema
  .omit({ customer: true, custom_field_data: true, discount: true, metadata: true })
  .extend({ product: portalProductSchema, pricing: portalPricingSchema.nullable() })
  .meta({ id: "CustomerSubscription" });
export type PortalSubscriptionOut = z.output<typeof portalSubscriptionSchema>;

export const portalOrderSchema = orderSchema
  .omit({
    customer: true,
    discount: true,
    metadata: true,
    custom_field_data: true,
    platform_fee_amount: true,
    platform_fee_currency: true,
  })
  .extend({ product: portalProductSchema.nullable() })
  .meta({ id: "CustomerOrder" });
export type PortalOrderOut = z.output<typeof portalOrderSchema>;

export const portalAuthenticatedUserSchema = z
  .object({
    type: z.enum(["customer", "member"]),
    name: z.string().nullable(),
    email: z.string(),
    customer_id: z.uuid(),
    member_id: z.uuid().nullable(),
    role: z.enum(["owner", "billing_manager", "member"]).nullable(),
  })
  .meta({ id: "PortalAuthenticatedUser" });
export type PortalAuthenticatedUserOut = z.output<typeof portalAuthenticatedUserSchema>;

/** Polar's CustomerOrganization: what a customer sees of the seller, with the portal's settings. */
export function customerOrganizationOut(o: OrganizationSummary): CustomerOrganizationOut {
  return {
    created_at: o.createdAt.toISOString(),
    modified_at: null,
    id: o.id,
    name: o.name,
    slug: o.slug,
    avatar_url: o.avatarUrl,
    proration_behavior: o.portal.prorationBehavior,
    allow_customer_updates: o.portal.allowCustomerUpdates,
    customer_portal_settings: {
      usage: { show: o.portal.showUsage },
      subscription: {
        update_seats: o.portal.updateSeats,
        update_plan: o.portal.updatePlan,
        pause: o.portal.pause,
      },
      // The portal's email change (customers/me/email-update) is always offered.
      customer: { allow_email_change: true },
    },
    organization_features: { member_model_enabled: false, checkout_localization_enabled: false },
  };
}

export function portalCustomerOut(
  c: CustomerOut,
  defaultPaymentMethodId: string | null = null,
): PortalCustomerOut {
  return {
    created_at: c.created_at,
    modified_at: c.modified_at,
    id: c.id,
    email: c.email,
    email_verified: c.email_verified,
    name: c.name,
    billing_name: c.billing_name,
    billing_address: c.billing_address,
    tax_id: c.tax_id,
    oauth_accounts: {},
    default_payment_method_id: defaultPaymentMethodId,
    type: c.type,
    locale: c.locale,
  };
}

/** A subscriber sees a downloadables benefit's files still offered, not the seller's archive. */
function subscriberProperties(benefit: GrantOut["benefit"]) {
  if (benefit.type !== "downloadables") return benefit.properties;
  const p = benefit.properties as { files?: string[]; archived?: Record<string, boolean> };
  return { active_files: (p.files ?? []).filter((id) => !p.archived?.[id]) };
}

export function customerGrantOut(
  g: GrantOut,
  organization: CustomerOrganizationOut,
): CustomerGrantOut {
  const { visibility: _v, visibility_configurable: _c, ...benefit } = g.benefit;
  const { member: _member, ...grant } = g;
  return {
    ...grant,
    customer: portalCustomerOut(g.customer),
    benefit: { ...benefit, organization, properties: subscriberProperties(g.benefit) },
  };
}

/** CustomerSubscriptionProduct / CustomerOrderProduct: public benefits, the seller's organization. */
export function portalProductOut(
  p: ProductOut,
  organization: CustomerOrganizationOut,
): PortalProductOut {
  return {
    id: p.id,
    created_at: p.created_at,
    modified_at: p.modified_at,
    trial_interval: p.trial_interval,
    trial_interval_count: p.trial_interval_count,
    name: p.name,
    description: p.description,
    visibility: p.visibility,
    recurring_interval: p.recurring_interval,
    recurring_interval_count: p.recurring_interval_count,
    meter_interval: p.meter_interval,
    meter_interval_count: p.meter_interval_count,
    is_recurring: p.is_recurring,
    is_archived: p.is_archived,
    organization_id: p.organization_id,
    prices: p.prices,
    benefits: p.benefits.map((b) => ({
      id: b.id,
      created_at: b.created_at,
      modified_at: b.modified_at,
      type: b.type,
      description: b.description,
      selectable: b.selectable,
      deletable: b.deletable,
      is_deleted: b.is_deleted,
      organization_id: b.organization_id,
    })),
    medias: p.medias,
    organization,
  };
}

/** `pricing` null: a seat holder's view, who does not pay for it. */
export function portalSubscriptionOut(
  s: SubscriptionOut,
  organization: CustomerOrganizationOut,
  pricing: PortalPricingOut | null,
): PortalSubscriptionOut {
  const { customer: _c, custom_field_data: _f, discount: _d, metadata: _m, product, ...rest } = s;
  return { ...rest, product: portalProductOut(product, organization), pricing };
}

export function portalOrderOut(
  o: OrderOut,
  product: ProductOut | null,
  organization: CustomerOrganizationOut,
): PortalOrderOut {
  const {
    customer: _c,
    discount: _d,
    metadata: _m,
    custom_field_data: _f,
    platform_fee_amount: _pa,
    platform_fee_currency: _pc,
    product: _p,
    ...rest
  } = o;
  return { ...rest, product: product ? portalProductOut(product, organization) : null };
}
