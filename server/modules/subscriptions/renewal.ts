// Renewal at current_period_end. The cycle order's amounts are worked out first; the charge goes to
// the processor outside any transaction under a key per (subscription, period, attempt); then one
// transaction inserts the order under its unique billing key (a second run, by a retried job or
// another worker, inserts nothing and stops), moves the period and records the events. A crash
// between charge and commit re-runs with the same key and the processor answers with the same
// payment, so nothing is charged twice and no period is skipped.
import { inTransaction } from "../../../db/client.ts";
import { addInterval, firstMeterPeriod, meterCycleOf, type Interval } from "../../lib/periods.ts";
import { fixedClock } from "../sandbox-clock/queries.ts";
import { customersByIds } from "../customers/queries.ts";
import { discountOf, restrictedProductIds } from "../discounts/service.ts";
import { cycleGrantsOfSubscription } from "../grants/cycle.ts";
import { switchBenefits } from "./plan-benefits.ts";
import { insertOrderOnce, serializeOrders } from "../orders/service.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import { serializeProductsByIds } from "../products/service.ts";
import { recordEvent } from "../webhooks/outbox.ts";
import {
  type BalanceOwner,
  holdBalance,
  releaseHold,
  settleOrderBalance,
} from "../wallets/service.ts";
import { queueReceiptMail } from "../invoices/receipt-queue.ts";
import {
  cycleAmounts,
  discountApplies,
  recurringAmountOf,
  type CycleAmounts,
  type CycleDiscount,
  type CycleLine,
  type CyclePrice,
} from "./amounts.ts";
import { chargeKey, chargeSubscription, type OffSessionOutcome, recordAttempt } from "./charge.ts";
import type { BillingDeps } from "./deps.ts";
import { dunningDeadline, recordPaymentFailedMail } from "./payment-failed-mail.ts";
import { recordCustomerState, recordSubscriptionEvents } from "./events.ts";
import { revokeAfterGrace } from "./grace.ts";
import * as repo from "./repository.ts";
import { scheduleNext } from "./schedule.ts";
import { billableUsage } from "./usage.ts";

export function cycleBillingKey(subscriptionId: string, periodStart: Date): string {
  return `cycle:${subscriptionId}:${periodStart.toISOString()}`;
}

export interface CyclePlan {
  productId: string;
  seats: number | null;
  productName: string;
  priceIds: string[];
  amounts: CycleAmounts;
  /** The subscription's `amount` from the new period on. */
  amount: number;
  periodStart: Date;
  periodEnd: Date;
  /**
   * The discount from the new period on: as Polar, one whose duration has run out by it is taken
   * off the subscription; one set by a PATCH counts its duration from this period.
   */
  discountId: string | null;
  discountAppliedAt: Date | null;
  /** The billing interval from the new period on: the product's, after a scheduled plan change. */
  recurringInterval: string;
  recurringIntervalCount: number;
  meterPeriod: ReturnType<typeof firstMeterPeriod>;
  country: string | null;
  billingName: string | null;
  billingAddress: unknown;
  customerEmail: string | null;
}

export type DisplayProduct = Awaited<ReturnType<typeof serializeProductsByIds>>[number];
type DisplayCustomer = Awaited<ReturnType<typeof customersByIds>>[number];
type DiscountRecord = Awaited<ReturnType<typeof discountOf>>;

/** What a cycle order is made from besides the subscription row (read once per batch). */
export interface CycleInputs {
  product: DisplayProduct | undefined;
  customer: DisplayCustomer | undefined;
  discount: DiscountRecord | null;
}

/** The product a renewal of `s` bills: after a scheduled plan change, the new one. */
export function cycleProductId(s: repo.SubscriptionRow): string {
  return s.pendingUpdate?.productId ?? s.productId;
}

/** The order a renewal of `s` makes: the new period, its prices, usage of the period just ended. */
export async function planCycle(
  deps: BillingDeps,
  s: repo.SubscriptionRow,
  extraLines: CycleLine[] = [],
): Promise<CyclePlan> {
  const [[product], [customer], discount] = await Promise.all([
    serializeProductsByIds(deps.db, deps.baseUrl, scopeOfResource(s), [cycleProductId(s)]),
    customersByIds(deps.db, scopeOfResource(s), [s.customerId]),
    s.discountId ? discountOf(deps.db, scopeOfResource(s), s.discountId) : Promise.resolve(null),
  ]);
  return planCycleFrom(deps, s, { product, customer, discount: discount ?? null }, extraLines);
}

export async function planCycleFrom(
  deps: Pick<BillingDeps, "db" | "tax">,
  s: repo.SubscriptionRow,
  { product, customer, discount }: CycleInputs,
  extraLines: CycleLine[] = [],
): Promise<CyclePlan> {
  const productId = cycleProductId(s);
  const all = (product?.prices ?? []) as CyclePrice[];
  // The prices sold, or after a scheduled plan change the new product's active ones.
  const prices = s.pendingUpdate?.productId
    ? all.filter(
        (p) =>
          !(p as { is_archived?: boolean }).is_archived &&
          (p as { price_currency?: string }).price_currency === s.currency,
      )
    : all.filter((p) => s.priceIds.includes(p.id));
  // With a separate meter cycle, earlier cycles of the period were settled by their own orders.
  const usage = prices.some((p) => p.amount_type === "metered_unit")
    ? await billableUsage(deps.db, s, prices, usageStartOf(s), s.currentPeriodEnd)
    : new Map<string, number>();
  const periodStart = s.currentPeriodEnd;
  const interval = (product?.recurring_interval ?? s.recurringInterval) as Interval;
  const count = product?.recurring_interval_count ?? s.recurringIntervalCount;
  const periodEnd = addInterval(periodStart, interval, count, s.anchorDay);
  const address = customer?.billing_address as { country?: string } | null | undefined;
  const seats = s.pendingUpdate?.seats ?? s.seats;
  const priced = {
    productName: product?.name ?? "Subscription",
    prices,
    customAmount: s.customAmount ?? s.amount,
    seats,
    discount: discount
      ? {
          type: discount.type,
          amount: discount.amount,
          basisPoints: discount.basisPoints,
          duration: discount.duration,
          durationInMonths: discount.durationInMonths,
        }
      : null,
    // A discount set since the last renewal first applies to this period.
    discountAppliedAt: s.discountId ? (s.discountAppliedAt ?? periodStart) : null,
    periodStart,
    currency: s.currency,
  };
  const ended =
    priced.discount !== null &&
    !discountApplies(priced.discount, priced.discountAppliedAt, periodStart);
  return {
    productId,
    seats,
    productName: product?.name ?? "Subscription",
    priceIds: prices.map((p) => p.id),
    periodStart,
    periodEnd,
    recurringInterval: interval,
    recurringIntervalCount: count,
    meterPeriod: firstMeterPeriod(product ? meterCycleOf(product) : null, periodStart, periodEnd),
    country: address?.country ?? null,
    billingName: customer?.billing_name ?? null,
    customerEmail: customer?.email ?? null,
    billingAddress: customer?.billing_address ?? null,
    amounts: cycleAmounts({
      ...priced,
      usage,
      country: address?.country ?? null,
      tax: deps.tax,
      extraLines,
    }),
    // A scheduled change bills other prices (or seats) from this period on, and a discount may
    // start (set by a PATCH) or end (once, repeating) with it: the amount is what it costs.
    amount: s.pendingUpdate || discount ? recurringAmountOf(priced) : s.amount,
    ...(ended
      ? { discountId: null, discountAppliedAt: null }
      : { discountId: s.discountId, discountAppliedAt: priced.discountAppliedAt }),
  };
}

/** Renews `s` as of `at` (≥ its period end). Returns whether this run made the cycle order. */
export async function renewSubscription(
  deps: BillingDeps,
  s: repo.SubscriptionRow,
  at: Date,
): Promise<boolean> {
  const plan = await planCycle(deps, s, pendingProrations(s));
  const key = cycleBillingKey(s.id, plan.periodStart);
  const owner = balanceOwnerOf(s);
  const applied = await holdBalance(deps.db, owner, {
    total: plan.amounts.totalAmount,
    reference: key,
    subscriptionId: s.id,
    now: at,
  });
  const outcome = await chargeSubscription(
    deps,
    s,
    plan.amounts.totalAmount - applied,
    chargeKey(s.id, plan.periodStart, 0),
    `${plan.productName} renewal`,
  );
  const clock = fixedClock(at);
  const made = await inTransaction(deps.db, async (tx) => {
    const locked = await repo.lockSubscription(tx, scopeOfResource(s), s.id);
    if (!locked || locked.currentPeriodEnd.getTime() !== plan.periodStart.getTime()) {
      await releaseHold(tx, owner, key, at);
      return false;
    }
    const paid = outcome.status === "succeeded";
    const order = cycleOrderOf(deps, s, plan, outcome, at, applied);
    const inserted = await insertOrderOnce(tx, order.values, order.items);
    if (!inserted) return false;
    await settleOrderBalance(tx, inserted.order, at);
    await recordAttempt(tx, clock, deps, s, inserted.order.id, outcome, "subscription_cycle");
    const wasTrialing = locked.status === "trialing";
    let updated = await repo.updateSubscription(tx, s.id, {
      ...cycledFields(plan, paid, at),
      pendingUpdate: null,
      prorationAmount: 0,
    });
    // A next_period plan change applies now: its benefits switch before the grants are cycled.
    if (updated.productId !== locked.productId)
      await switchBenefits(tx, { clock, queue: deps.queue }, updated);
    const [orderData] = await serializeOrders(tx, deps.baseUrl, [inserted.order]);
    const emit = (type: string, data: unknown) =>
      recordEvent(tx, clock, { organizationId: s.organizationId, type, data });
    await emit("order.created", orderData);
    if (paid) {
      updated = await scheduleNext(tx, deps.queue, updated);
      await emit("order.paid", orderData);
      if (inserted.order.totalAmount > 0)
        await queueReceiptMail(tx, deps.queue, { orderId: inserted.order.id, kind: "paid" });
      await recordSubscriptionEvents(tx, { clock, baseUrl: deps.baseUrl }, updated, [
        "subscription.updated",
        ...(wasTrialing ? ["subscription.active"] : []),
        "subscription.cycled",
      ]);
      await cycleGrantsOfSubscription(tx, clock, s);
    } else {
      updated = await scheduleNext(tx, deps.queue, updated, inserted.order.nextPaymentAttemptAt);
      await revokeAfterGrace(tx, { clock, queue: deps.queue }, [updated], at);
      await recordSubscriptionEvents(tx, { clock, baseUrl: deps.baseUrl }, updated, [
        "subscription.updated",
        "subscription.past_due",
        "subscription.cycled",
      ]);
    }
    await recordCustomerState(tx, clock, s);
    if (inserted.order.status === "pending")
      await recordPaymentFailedMail(tx, deps, {
        email: plan.customerEmail,
        productName: plan.productName,
        order: inserted.order,
        final: false,
        pastDueAt: at,
      });
    return true;
  });
  return made;
}

/** The cycle order of `plan` with the charge's outcome, under its (subscription, period) key. */
export function cycleOrderOf(
  deps: Pick<BillingDeps, "retryDays">,
  s: repo.SubscriptionRow,
  plan: CyclePlan,
  outcome: OffSessionOutcome,
  at: Date,
  /** What the customer's balance paid of the total (holdBalance), charged nothing for. */
  applied = 0,
) {
  const paid = outcome.status === "succeeded";
  return {
    values: {
      organizationId: s.organizationId,
      customerId: s.customerId,
      productId: plan.productId,
      subscriptionId: s.id,
      discountId: plan.amounts.discounted ? s.discountId : null,
      status: paid ? "paid" : "pending",
      billingReason: "subscription_cycle",
      billingKey: cycleBillingKey(s.id, plan.periodStart),
      seats: plan.seats,
      subtotalAmount: plan.amounts.subtotalAmount,
      discountAmount: plan.amounts.discountAmount,
      netAmount: plan.amounts.netAmount,
      taxAmount: plan.amounts.taxAmount,
      totalAmount: plan.amounts.totalAmount,
      appliedBalanceAmount: -applied,
      currency: s.currency,
      billingName: plan.billingName,
      billingAddress: plan.billingAddress as never,
      processorPaymentId: paid ? outcome.processorPaymentId : null,
      paymentAttempts: 1,
      nextPaymentAttemptAt: paid ? null : firstRetryAt(deps, outcome, at),
      metadata: s.metadata,
      customFieldData: s.customFieldData,
      createdAt: at,
    },
    items: plan.amounts.lines.map((l) => ({
      label: l.label,
      amount: l.amount,
      taxAmount: 0,
      proration: l.proration,
      productPriceId: l.productPriceId,
      createdAt: at,
    })),
  };
}

/** The billing wallet a subscription's orders spend and credit. */
export function balanceOwnerOf(s: repo.SubscriptionRow): BalanceOwner {
  return { organizationId: s.organizationId, customerId: s.customerId, currency: s.currency };
}

/** Where unbilled usage begins: the current meter cycle, never before the period. */
export function usageStartOf(s: repo.SubscriptionRow): Date {
  const meterStart = s.currentMeterPeriodStart;
  return meterStart && meterStart > s.currentPeriodStart ? meterStart : s.currentPeriodStart;
}

/** Prorations of plan changes made with `prorate`, carried to this cycle order. */
export function pendingProrations(s: repo.SubscriptionRow): CycleLine[] {
  if (!s.prorationAmount) return [];
  return [
    {
      label: s.prorationAmount > 0 ? "Plan change (prorated)" : "Unused time (prorated credit)",
      amount: s.prorationAmount,
      productPriceId: null,
      proration: true,
    },
  ];
}

/**
 * A failed renewal's next attempt: the schedule's first retry, or, when the issuer said not to
 * retry, the one last attempt at the deadline (as Polar), in case the customer has changed the
 * card by then.
 */
export function firstRetryAt(
  deps: Pick<BillingDeps, "retryDays">,
  outcome: OffSessionOutcome,
  at: Date,
): Date {
  if (outcome.status === "failed" && outcome.doNotRetry) return dunningDeadline(deps, at);
  return new Date(at.getTime() + retryMs(deps, 0));
}

export function retryMs(deps: Pick<BillingDeps, "retryDays">, attemptIndex: number): number {
  return (deps.retryDays[attemptIndex] ?? 0) * 86_400_000;
}

/**
 * The subscription's discount as it bears on the current period of `productId` (Polar prorates
 * base − discount): none when it no longer applies or is restricted to other products; a `once`
 * discount counts only in the first period, which it paid for.
 */
export async function periodDiscount(
  deps: BillingDeps,
  s: repo.SubscriptionRow,
  productId: string,
): Promise<CycleDiscount | null> {
  if (!s.discountId) return null;
  const [d, restricted] = await Promise.all([
    discountOf(deps.db, scopeOfResource(s), s.discountId),
    restrictedProductIds(deps.db, scopeOfResource(s), s.discountId),
  ]);
  if (!d) return null;
  if (restricted.length > 0 && !restricted.includes(productId)) return null;
  // A once discount is the current period's while it is its first (or not yet applied at all).
  const applied = s.discountAppliedAt;
  if (d.duration === "once" && applied && s.currentPeriodStart.getTime() > applied.getTime())
    return null;
  return {
    type: d.type,
    amount: d.amount,
    basisPoints: d.basisPoints,
    duration: d.duration === "once" ? "forever" : d.duration,
    durationInMonths: d.durationInMonths,
  };
}

/** The row's fields after its cycle order: the plan's period, product and prices, and its state. */
export function cycledFields(plan: CyclePlan, paid: boolean, at: Date) {
  return {
    productId: plan.productId,
    seats: plan.seats,
    priceIds: plan.priceIds,
    amount: plan.amount,
    currentPeriodStart: plan.periodStart,
    currentPeriodEnd: plan.periodEnd,
    recurringInterval: plan.recurringInterval,
    recurringIntervalCount: plan.recurringIntervalCount,
    discountId: plan.discountId,
    discountAppliedAt: plan.discountAppliedAt,
    ...plan.meterPeriod,
    status: paid ? ("active" as const) : ("past_due" as const),
    pastDueAt: paid ? null : at,
    modifiedAt: at,
  };
}
