// Wire schemas for Polar's Subscription, SubscriptionUpdate (cancel / uncancel / revoke / pause /
// resume / clear / plan / seats) and the subscription parts of Order and CustomerState.
import { z } from "zod";
import { metadataInput } from "../../lib/metadata.ts";
import { queryBoolean, queryDatetime, queryList } from "../../lib/query.ts";
import { sortingSchema } from "../../lib/sorting.ts";
import {
  metadataOut,
  nullableTimestamp,
  recurringInterval,
  timestamp,
  timestamped,
  timestampInput,
} from "../../lib/wire.ts";
import { customerSchema, type CustomerOut } from "../customers/schemas.ts";
import { discountSchema, type DiscountOut } from "../discounts/schemas.ts";
import { priceSchema } from "../products/prices.ts";
import { meterSchema } from "../meters/schemas.ts";
import { productSchema, type ProductOut } from "../products/schemas.ts";
import { seatCount } from "../products/seat-tiers.ts";
import type { SubscriptionRow } from "./repository.ts";

export const CANCELLATION_REASONS = [
  "customer_service",
  "low_quality",
  "missing_features",
  "switched_service",
  "too_complex",
  "too_expensive",
  "unused",
  "other",
] as const;

const reason = {
  customer_cancellation_reason: z.enum(CANCELLATION_REASONS).nullish(),
  customer_cancellation_comment: z.string().max(2000).nullish(),
};

export const PRORATION_BEHAVIORS = ["invoice", "prorate", "next_period", "reset"] as const;

// Pause, resume and clearing a pending update read the same for the seller and in the customer
// portal (Polar's SubscriptionPause / CustomerSubscriptionPause and so on), so both use these.
export const subscriptionPause = z
  .object({
    pause_at_period_end: z.boolean(),
    resumes_at: timestampInput.nullish(),
  })
  .strict();
export const subscriptionResume = z.object({ resume: z.literal(true) }).strict();
export const subscriptionUpdateClear = z.object({ pending_update: z.null() }).strict();

export const subscriptionUpdate = z.union([
  z.object({ ...reason, cancel_at_period_end: z.boolean() }).strict(),
  z.object({ ...reason, revoke: z.literal(true) }).strict(),
  subscriptionPause,
  subscriptionResume,
  subscriptionUpdateClear,
  z.object({ current_billing_period_end: timestampInput }).strict(),
  z
    .object({ seats: seatCount, proration_behavior: z.enum(PRORATION_BEHAVIORS).nullish() })
    .strict(),
  z
    .object({
      metadata: metadataInput.nullish(),
      product_id: z.uuid().nullish(),
      proration_behavior: z.enum(PRORATION_BEHAVIORS).nullish(),
      discount_id: z.uuid().nullish(),
      trial_end: z.union([timestampInput, z.literal("now")]).nullish(),
    })
    .strict(),
]);
export type SubscriptionUpdate = z.output<typeof subscriptionUpdate>;

export const SUBSCRIPTION_STATUSES = [
  "incomplete",
  "incomplete_expired",
  "trialing",
  "active",
  "past_due",
  "canceled",
  "unpaid",
  "paused",
] as const;

/** Whether a subscription with this status has ended for good (nothing renews or changes it). */
export function hasEnded(status: string): boolean {
  return status === "canceled" || status === "unpaid" || status === "incomplete_expired";
}

/**
 * The seller's status and amount sort as Polar's SubscriptionRepository: the status by its place in
 * a subscription's life, the amount per month; the portal's sort the plain columns, as Polar's.
 */
const SELLER_SORTS: Partial<Record<string, "status_rank" | "monthly_amount">> = {
  status: "status_rank",
  amount: "monthly_amount",
};

export const subscriptionListQuery = z.object({
  organization_id: queryList(z.uuid()).optional(),
  product_id: queryList(z.uuid()).optional(),
  customer_id: queryList(z.uuid()).optional(),
  status: queryList(z.enum(SUBSCRIPTION_STATUSES)).optional(),
  active: queryBoolean.optional(),
  cancel_at_period_end: queryBoolean.optional(),
  external_customer_id: queryList(z.string()).optional(),
  discount_id: queryList(z.uuid()).optional(),
  customer_cancellation_reason: queryList(z.enum(CANCELLATION_REASONS)).optional(),
  canceled_at_after: queryDatetime.optional(),
  canceled_at_before: queryDatetime.optional(),
  started_after: queryDatetime.optional(),
  started_before: queryDatetime.optional(),
  sorting: sortingSchema(
    [
      "created_at",
      "customer",
      "status",
      "started_at",
      "current_period_end",
      "ended_at",
      "ends_at",
      "amount",
      "product",
      "discount",
    ] as const,
    ["-started_at"],
  ).transform((list) => list.map((s) => ({ ...s, key: SELLER_SORTS[s.key] ?? s.key }))),
});
export type SubscriptionListQuery = z.output<typeof subscriptionListQuery>;

export const subscriptionCoreSchema = z
  .object({
    metadata: metadataOut,
    ...timestamped,
    amount: z.number().int(),
    currency: z.string(),
    recurring_interval: recurringInterval,
    recurring_interval_count: z.number().int(),
    status: z.enum(SUBSCRIPTION_STATUSES),
    current_period_start: timestamp,
    current_period_end: timestamp,
    current_meter_period_start: nullableTimestamp,
    current_meter_period_end: nullableTimestamp,
    trial_start: nullableTimestamp,
    trial_end: nullableTimestamp,
    cancel_at_period_end: z.boolean(),
    canceled_at: nullableTimestamp,
    started_at: nullableTimestamp,
    ends_at: nullableTimestamp,
    ended_at: nullableTimestamp,
    pause_at_period_end: z.boolean(),
    paused_at: nullableTimestamp,
    resumes_at: nullableTimestamp,
    customer_id: z.uuid(),
    product_id: z.uuid(),
    discount_id: z.uuid().nullable(),
    checkout_id: z.uuid().nullable(),
    customer_cancellation_reason: z.enum(CANCELLATION_REASONS).nullable(),
    customer_cancellation_comment: z.string().nullable(),
  })
  .meta({ id: "OrderSubscription" });
export type SubscriptionCoreOut = z.output<typeof subscriptionCoreSchema>;

export const subscriptionMeterSchema = z
  .object({
    ...timestamped,
    consumed_units: z.number(),
    credited_units: z.number().int(),
    amount: z.number().int(),
    meter_id: z.uuid(),
    meter: meterSchema,
  })
  .meta({ id: "SubscriptionMeter" });
export type SubscriptionMeterOut = z.output<typeof subscriptionMeterSchema>;

export const subscriptionSchema = z
  .object({
    ...subscriptionCoreSchema.shape,
    past_due_at: nullableTimestamp,
    seats: z.number().int().nullable(),
    custom_field_data: z.record(z.string(), z.unknown()),
    customer: customerSchema,
    product: productSchema,
    discount: discountSchema.nullable(),
    prices: z.array(priceSchema),
    meters: z.array(subscriptionMeterSchema),
    pending_update: z
      .object({
        ...timestamped,
        applies_at: timestamp,
        product_id: z.uuid().nullable(),
        seats: z.number().int().nullable(),
      })
      .meta({ id: "PendingSubscriptionUpdate" })
      .nullable(),
  })
  .meta({ id: "Subscription" });
export type SubscriptionOut = z.output<typeof subscriptionSchema>;

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** The subscription's own fields (Polar's OrderSubscription). */
export function subscriptionCore(s: SubscriptionRow): SubscriptionCoreOut {
  return {
    metadata: s.metadata,
    created_at: s.createdAt.toISOString(),
    modified_at: iso(s.modifiedAt),
    id: s.id,
    amount: s.amount,
    currency: s.currency,
    recurring_interval: s.recurringInterval as SubscriptionCoreOut["recurring_interval"],
    recurring_interval_count: s.recurringIntervalCount,
    status: s.status as SubscriptionCoreOut["status"],
    current_period_start: s.currentPeriodStart.toISOString(),
    current_period_end: s.currentPeriodEnd.toISOString(),
    current_meter_period_start: iso(s.currentMeterPeriodStart),
    current_meter_period_end: iso(s.currentMeterPeriodEnd),
    trial_start: iso(s.trialStart),
    trial_end: iso(s.trialEnd),
    cancel_at_period_end: s.cancelAtPeriodEnd,
    canceled_at: iso(s.canceledAt),
    started_at: iso(s.startedAt),
    ends_at: iso(s.endsAt),
    ended_at: iso(s.endedAt),
    pause_at_period_end: s.pauseAtPeriodEnd,
    paused_at: iso(s.pausedAt),
    resumes_at: iso(s.resumesAt),
    customer_id: s.customerId,
    product_id: s.productId,
    discount_id: s.discountId,
    checkout_id: s.checkoutId,
    customer_cancellation_reason:
      s.customerCancellationReason as SubscriptionCoreOut["customer_cancellation_reason"],
    customer_cancellation_comment: s.customerCancellationComment,
  };
}

export function subscriptionOut(
  s: SubscriptionRow,
  parts: {
    customer: CustomerOut;
    product: ProductOut;
    discount: DiscountOut | null;
    meters?: SubscriptionOut["meters"];
  },
): SubscriptionOut {
  return {
    ...subscriptionCore(s),
    past_due_at: iso(s.pastDueAt),
    seats: s.seats,
    custom_field_data: s.customFieldData,
    customer: parts.customer,
    product: parts.product,
    discount: parts.discount ?? null,
    prices: parts.product.prices.filter((p) => s.priceIds.includes(p.id)),
    meters: parts.meters ?? [],
    pending_update: s.pendingUpdate
      ? {
          created_at: s.pendingUpdate.createdAt,
          modified_at: null,
          id: s.pendingUpdate.id,
          applies_at: s.pendingUpdate.appliesAt,
          product_id: s.pendingUpdate.productId,
          seats: s.pendingUpdate.seats ?? null,
        }
      : null,
  };
}

export const stateSubscriptionSchema = z
  .object({
    ...timestamped,
    metadata: metadataOut,
    // past_due too: a subscription being retried still grants its benefits.
    status: z.enum(["active", "trialing", "past_due"]),
    amount: z.number().int(),
    currency: z.string(),
    recurring_interval: recurringInterval,
    current_period_start: timestamp,
    current_period_end: timestamp,
    trial_start: nullableTimestamp,
    trial_end: nullableTimestamp,
    cancel_at_period_end: z.boolean(),
    canceled_at: nullableTimestamp,
    started_at: nullableTimestamp,
    ends_at: nullableTimestamp,
    product_id: z.uuid(),
    discount_id: z.uuid().nullable(),
    meters: z.array(z.record(z.string(), z.unknown())),
  })
  .meta({ id: "CustomerStateSubscription" });
export type StateSubscriptionOut = z.output<typeof stateSubscriptionSchema>;

/** One entry of CustomerState.active_subscriptions (the customer's active, trialing or past due). */
export function stateSubscriptionOut(s: SubscriptionRow): StateSubscriptionOut {
  const c = subscriptionCore(s);
  return {
    id: c.id,
    created_at: c.created_at,
    modified_at: c.modified_at,
    metadata: c.metadata,
    status: c.status as StateSubscriptionOut["status"],
    amount: c.amount,
    currency: c.currency,
    recurring_interval: c.recurring_interval,
    current_period_start: c.current_period_start,
    current_period_end: c.current_period_end,
    trial_start: c.trial_start,
    trial_end: c.trial_end,
    cancel_at_period_end: c.cancel_at_period_end,
    canceled_at: c.canceled_at,
    started_at: c.started_at,
    ends_at: c.ends_at,
    product_id: c.product_id,
    discount_id: c.discount_id,
    meters: [],
  };
}
