// Wire schemas for Polar's Organization, OrganizationCreate and OrganizationUpdate.
import { z } from "zod";
import { sortingSchema } from "../../lib/sorting.ts";
import { nullableTimestamp, timestamp } from "../../lib/wire.ts";
import type { OrganizationRecord } from "./repository.ts";

const PLATFORMS = [
  "x",
  "github",
  "facebook",
  "instagram",
  "youtube",
  "tiktok",
  "linkedin",
  "threads",
  "discord",
  "other",
] as const;
const social = z.object({ platform: z.enum(PLATFORMS), url: z.url() });
const slug = z
  .string()
  .min(3)
  .max(64)
  .regex(/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/, "must be lowercase letters, digits and dashes");

const subscriptionSettings = z.object({
  allow_multiple_subscriptions: z.boolean(),
  proration_behavior: z.enum(["invoice", "prorate", "next_period", "reset"]),
  benefit_revocation_grace_period: z.number().int().min(0),
  prevent_trial_abuse: z.boolean(),
  allow_customer_updates: z.boolean(),
  /** till's addition: what a subscription becomes when its last payment retry fails. */
  dunning_final_status: z.enum(["canceled", "unpaid"]).optional(),
});
const boolMap = <K extends string>(keys: readonly K[]) =>
  z.object(Object.fromEntries(keys.map((k) => [k, z.boolean()])) as Record<K, z.ZodBoolean>);
const EMAIL_SETTINGS = [
  "order_confirmation",
  "payment_method_expiration_reminder",
  "subscription_cancellation",
  "subscription_confirmation",
  "subscription_cycled",
  "subscription_cycled_after_trial",
  "subscription_past_due",
  "subscription_paused",
  "subscription_resumed",
  "subscription_renewal_reminder",
  "subscription_revoked",
  "subscription_trial_conversion_reminder",
  "subscription_uncanceled",
  "subscription_updated",
] as const;
/** A customer email an organization can switch off (customer_email_settings). */
export type CustomerEmail = (typeof EMAIL_SETTINGS)[number];
const customerEmailSettings = boolMap(EMAIL_SETTINGS);
const customerPortalSettings = z.object({
  usage: z.object({ show: z.boolean() }),
  subscription: z.object({
    update_seats: z.boolean(),
    update_plan: z.boolean(),
    pause: z.boolean().optional(),
  }),
  customer: z.record(z.string(), z.unknown()).optional(),
});
const featureSettings = z.object({
  seat_based_pricing_enabled: z.boolean().optional(),
  member_model_enabled: z.boolean().optional(),
  checkout_localization_enabled: z.boolean().optional(),
  overview_metrics: z.array(z.string()).nullish(),
  // Staff-managed at Polar; a self-hosted organization turns draft orders on itself.
  off_session_charges_enabled: z.boolean().optional(),
  // Staff-managed at Polar too; here the seller allows the `reset` proration behavior itself.
  reset_proration_behavior_enabled: z.boolean().optional(),
});
const details = z.object({
  about: z.string().max(5000).nullish(),
  product_description: z.string().max(5000).nullish(),
  selling_categories: z.array(z.string()).optional(),
  pricing_models: z.array(z.string()).optional(),
  intended_use: z.string().max(5000).nullish(),
  customer_acquisition: z.array(z.string()).optional(),
  future_annual_revenue: z.number().int().min(0).nullish(),
  switching: z.boolean().optional(),
  switching_from: z.string().nullish(),
  previous_annual_revenue: z.number().int().min(0).nullish(),
});
const currency = z.string().regex(/^[a-z]{3}$/, "must be a lowercase ISO 4217 code");
const taxBehavior = z.enum(["location", "inclusive", "exclusive"]);

/**
 * How invoices and receipts are numbered: per customer (PREFIX-SHORTID-0001, Polar's default) or
 * in one series for the organization (PREFIX-0001). Not in the 2026-10 contract; Polar keeps it in
 * Organization.order_settings.
 */
const orderSettings = z.object({ invoice_numbering: z.enum(["customer", "organization"]) });

const editable = {
  avatar_url: z.url().nullish(),
  email: z.email().nullish(),
  website: z.url().nullish(),
  socials: z.array(social).max(10).nullish(),
  details: details.nullish(),
  country: z
    .string()
    .regex(/^[A-Z]{2}$/, "must be an ISO 3166-1 alpha-2 code")
    .nullish(),
  feature_settings: featureSettings.nullish(),
  subscription_settings: subscriptionSettings.nullish(),
  customer_email_settings: customerEmailSettings.nullish(),
  customer_portal_settings: customerPortalSettings.nullish(),
  order_settings: orderSettings.partial().nullish(),
  default_tax_behavior: taxBehavior.nullish(),
};

export const organizationCreate = z.object({
  name: z.string().min(1).max(200),
  slug,
  ...editable,
  default_presentment_currency: currency.default("usd"),
});

export const organizationUpdate = z.object({
  name: z.string().min(1).max(200).nullish(),
  ...editable,
  dispute_settings: z
    .object({ auto_accept_below_amount: z.number().int().min(1).max(10000).nullish() })
    .nullish(),
  notification_settings: boolMap([
    "new_order",
    "new_subscription",
    "chargeback_prevention",
    "subscription_renewal",
  ] as const)
    .partial()
    .nullish(),
  embed_hosts: z.array(z.string().min(1).max(253)).max(50).nullish(),
  default_presentment_currency: currency.nullish(),
  sso_enforced: z.boolean().nullish(),
});

export type OrganizationEditable = Partial<z.output<typeof organizationUpdate>>;

export const organizationListQuery = z.object({
  slug: z.string().optional(),
  sorting: sortingSchema(["created_at", "slug", "name"] as const, ["created_at"]),
});

const DEFAULT_SETTINGS = {
  subscription_settings: {
    allow_multiple_subscriptions: false,
    proration_behavior: "prorate",
    benefit_revocation_grace_period: 0,
    prevent_trial_abuse: false,
    allow_customer_updates: true,
    dunning_final_status: "canceled" as "canceled" | "unpaid",
  },
  customer_email_settings: Object.fromEntries(EMAIL_SETTINGS.map((k) => [k, true])) as Record<
    (typeof EMAIL_SETTINGS)[number],
    boolean
  >,
  customer_portal_settings: {
    usage: { show: true },
    subscription: { update_seats: true, update_plan: true, pause: false },
  },
  feature_settings: {
    issue_funding_enabled: false,
    seat_based_pricing_enabled: false,
    wallets_enabled: false,
    member_model_enabled: false,
    checkout_localization_enabled: false,
    overview_metrics: null,
    reset_proration_behavior_enabled: false,
    off_session_charges_enabled: false,
    meter_cycling_enabled: false,
    slack_benefit_enabled: false,
    preview_access_enabled: false,
    disputes_enabled: false,
    sso_enabled: false,
    dispute_auto_accept_enabled: false,
    compass_enabled: false,
    merchant_migration_enabled: false,
  },
  dispute_settings: { auto_accept_below_amount: null },
  order_settings: { invoice_numbering: "customer" as "customer" | "organization" },
  // Not in the 2026-10 contract, but Polar's 0.4x client requires it on every Organization.
  notification_settings: {
    new_order: true,
    new_subscription: true,
    chargeback_prevention: true,
    subscription_renewal: true,
  },
  sso_enforced: false,
} as const;

type Settings = typeof DEFAULT_SETTINGS;

export function settingsOf(stored: Record<string, unknown>): Settings {
  const merged: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(DEFAULT_SETTINGS)) {
    const s = stored[key];
    merged[key] =
      value && typeof value === "object" && s && typeof s === "object"
        ? { ...value, ...s }
        : (s ?? value);
  }
  return merged as Settings;
}

const ORGANIZATION_STATUSES = [
  "created",
  "review",
  "snoozed",
  "denied",
  "active",
  "blocked",
  "offboarding",
  "offboarded",
] as const;
const FEATURE_FLAGS = Object.keys(DEFAULT_SETTINGS.feature_settings).filter(
  (k) => k !== "overview_metrics",
) as Exclude<keyof Settings["feature_settings"], "overview_metrics">[];
const prorationBehavior = z
  .enum(["invoice", "prorate", "next_period", "reset"])
  .meta({ id: "SubscriptionProrationBehavior" });

export const organizationSchema = z
  .object({
    created_at: timestamp,
    modified_at: nullableTimestamp,
    id: z.uuid(),
    name: z.string(),
    slug: z.string(),
    avatar_url: z.string().nullable(),
    proration_behavior: prorationBehavior,
    allow_customer_updates: z.boolean(),
    email: z.string().nullable(),
    website: z.string().nullable(),
    socials: z.array(
      z
        .object({
          platform: z.enum(PLATFORMS).meta({ id: "OrganizationSocialPlatforms" }),
          url: z.string(),
        })
        .meta({ id: "OrganizationSocialLink" }),
    ),
    status: z.enum(ORGANIZATION_STATUSES).meta({ id: "OrganizationStatus" }),
    details_submitted_at: nullableTimestamp,
    onboarding_resubmission_requested_at: nullableTimestamp,
    sso_enforced: z.boolean(),
    default_presentment_currency: z.string(),
    default_tax_behavior: taxBehavior.meta({ id: "TaxBehaviorOption" }),
    feature_settings: z
      .object({
        ...boolMap(FEATURE_FLAGS).shape,
        overview_metrics: z.array(z.string()).nullable(),
      })
      .meta({ id: "OrganizationFeatureSettings" }),
    subscription_settings: subscriptionSettings
      .extend({
        proration_behavior: prorationBehavior,
        dunning_final_status: z.enum(["canceled", "unpaid"]),
      })
      .meta({ id: "OrganizationSubscriptionSettings" }),
    customer_email_settings: customerEmailSettings.meta({
      id: "OrganizationCustomerEmailSettings",
    }),
    customer_portal_settings: customerPortalSettings.meta({
      id: "OrganizationCustomerPortalSettings",
    }),
    dispute_settings: z
      .object({ auto_accept_below_amount: z.number().int().nullable() })
      .meta({ id: "OrganizationDisputeSettings" }),
    order_settings: orderSettings.meta({ id: "OrganizationOrderSettings" }),
    notification_settings: boolMap([
      "new_order",
      "new_subscription",
      "chargeback_prevention",
      "subscription_renewal",
    ] as const),
    embed_hosts: z.array(z.string()),
    embed_hosts_enforced: z.boolean(),
    country: z.string().nullable(),
    account_id: z.uuid().nullable(),
    payout_account_id: z.uuid().nullable(),
    capabilities: boolMap([
      "checkout_payments",
      "subscription_renewals",
      "payouts",
      "refunds",
      "api_access",
      "dashboard_access",
    ] as const).meta({ id: "OrganizationCapabilities" }),
  })
  .meta({ id: "Organization" });
export type OrganizationOut = z.output<typeof organizationSchema>;

export function organizationOut({ org, profile }: OrganizationRecord): OrganizationOut {
  const settings = settingsOf(profile.settings);
  return {
    created_at: org.createdAt.toISOString(),
    modified_at: profile.modifiedAt?.toISOString() ?? null,
    id: org.id,
    name: org.name,
    slug: org.slug,
    avatar_url: org.logo ?? null,
    proration_behavior: settings.subscription_settings.proration_behavior,
    allow_customer_updates: settings.subscription_settings.allow_customer_updates,
    email: profile.email,
    website: profile.website,
    socials: profile.socials as OrganizationOut["socials"],
    status: profile.status as OrganizationOut["status"],
    details_submitted_at: profile.detailsSubmittedAt?.toISOString() ?? null,
    onboarding_resubmission_requested_at: null,
    sso_enforced: settings.sso_enforced,
    default_presentment_currency: profile.defaultPresentmentCurrency,
    default_tax_behavior: profile.defaultTaxBehavior as OrganizationOut["default_tax_behavior"],
    feature_settings: settings.feature_settings,
    subscription_settings: settings.subscription_settings,
    customer_email_settings: settings.customer_email_settings,
    customer_portal_settings: settings.customer_portal_settings,
    dispute_settings: settings.dispute_settings,
    order_settings: settings.order_settings,
    notification_settings: settings.notification_settings,
    embed_hosts: profile.embedHosts,
    embed_hosts_enforced: profile.embedHosts.length > 0,
    country: profile.country,
    account_id: null,
    payout_account_id: null,
    capabilities: {
      checkout_payments: true,
      subscription_renewals: true,
      payouts: false,
      refunds: true,
      api_access: true,
      dashboard_access: true,
    },
  };
}
