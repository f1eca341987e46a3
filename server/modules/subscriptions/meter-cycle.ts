// A meter cycle inside a billing period (a product's meter_interval, e.g. yearly billing with
// monthly usage): at its end the usage of the cycle beyond the credits is settled by a
// `subscription_meter_cycle` order charged off-session, and the meter_credit grants are renewed,
// as Polar's cycle_meters does. Like a renewal: the charge happens outside any transaction under a
// key per (subscription, cycle, attempt), then one transaction inserts the order under its unique
// billing key and moves the meter cycle, so a re-run after a crash or by another worker changes
// nothing. A cycle with nothing to bill makes no order. Only an active subscription settles
// cycles (a trial's usage is billed with its first renewal). A failed charge leaves the order
// pending and the subscription as it is (meter-dunning.ts retries the order, as Polar does).
import { inTransaction } from "../../../db/client.ts";
import { meterCycleOf, nextMeterBoundary } from "../../lib/periods.ts";
import { customersByIds } from "../customers/queries.ts";
import { discountOf } from "../discounts/service.ts";
import { cycleGrantsOfSubscription } from "../grants/cycle.ts";
import { queueReceiptMail } from "../invoices/receipt-queue.ts";
import { insertOrderOnce, serializeOrders } from "../orders/service.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import { serializeProductsByIds } from "../products/service.ts";
import { fixedClock } from "../sandbox-clock/queries.ts";
import { recordEvent } from "../webhooks/outbox.ts";
import { holdBalance, releaseHold, settleOrderBalance } from "../wallets/service.ts";
import { cycleAmounts, type CyclePrice } from "./amounts.ts";
import { chargeKey, chargeSubscription, recordAttempt } from "./charge.ts";
import type { BillingDeps } from "./deps.ts";
import { recordPaymentFailedMail } from "./payment-failed-mail.ts";
import { recordCustomerState, recordSubscriptionEvents } from "./events.ts";
import { balanceOwnerOf, retryMs, usageStartOf } from "./renewal.ts";
import * as repo from "./repository.ts";
import { scheduleNext } from "./schedule.ts";
import { billableUsage } from "./usage.ts";

export function meterBillingKey(subscriptionId: string, cycleStart: Date): string {
  return `meter:${subscriptionId}:${cycleStart.toISOString()}`;
}

/** Whether `s` has a meter cycle ending inside its period at or before `at`. */
export function meterCycleDue(s: repo.SubscriptionRow, at: Date): boolean {
  const end = s.currentMeterPeriodEnd;
  return s.status === "active" && end !== null && end < s.currentPeriodEnd && end <= at;
}

/** Settles the meter cycle of `s` that has ended. Returns whether this run settled it. */
export async function settleMeterCycle(
  deps: BillingDeps,
  s: repo.SubscriptionRow,
  at: Date,
): Promise<boolean> {
  const end = s.currentMeterPeriodEnd;
  if (!end) return false;
  return settleUsage(deps, s, at, {
    start: s.currentMeterPeriodStart ?? s.currentPeriodStart,
    end,
    nextEnd: (cycle) =>
      cycle
        ? nextMeterBoundary(s.currentPeriodStart, s.currentPeriodEnd, cycle, end)
        : s.currentPeriodEnd,
    stillDue: (locked) =>
      meterCycleDue(locked, at) && locked.currentMeterPeriodEnd?.getTime() === end.getTime(),
    renewsCredits: true,
  });
}

/**
 * Before an immediate plan change: the usage of the plan's metered prices from where it is unbilled
 * up to `at`, settled at those prices in a `subscription_meter_cycle` order, as Polar settles the
 * old product's overage before a switch. Usage from `at` on is the new plan's.
 */
export async function settleUsageBeforeChange(
  deps: BillingDeps,
  s: repo.SubscriptionRow,
  at: Date,
): Promise<boolean> {
  const start = usageStartOf(s);
  if (start >= at) return false;
  const meterStart = s.currentMeterPeriodStart?.getTime() ?? null;
  return settleUsage(deps, s, at, {
    start,
    end: at,
    nextEnd: () => s.currentMeterPeriodEnd ?? s.currentPeriodEnd,
    stillDue: (locked) =>
      locked.productId === s.productId &&
      (locked.currentMeterPeriodStart?.getTime() ?? null) === meterStart,
    renewsCredits: false,
  });
}

interface UsageWindow {
  start: Date;
  end: Date;
  /** Where the meter cycle after this one ends, given the product's meter cycle. */
  nextEnd: (cycle: ReturnType<typeof meterCycleOf>) => Date;
  /** Whether the subscription, locked, is still as this settlement found it. */
  stillDue: (locked: repo.SubscriptionRow) => boolean;
  /** A meter cycle's end renews the meter credits; a settlement before a plan change does not. */
  renewsCredits: boolean;
}

async function settleUsage(
  deps: BillingDeps,
  s: repo.SubscriptionRow,
  at: Date,
  { start, end, nextEnd: nextEndOf, stillDue, renewsCredits }: UsageWindow,
): Promise<boolean> {
  const [[product], [customer], discount] = await Promise.all([
    serializeProductsByIds(deps.db, deps.baseUrl, scopeOfResource(s), [s.productId]),
    customersByIds(deps.db, scopeOfResource(s), [s.customerId]),
    s.discountId ? discountOf(deps.db, scopeOfResource(s), s.discountId) : null,
  ]);
  const cycle = product ? meterCycleOf(product) : null;
  const prices = ((product?.prices ?? []) as CyclePrice[]).filter(
    (p) => s.priceIds.includes(p.id) && p.amount_type === "metered_unit",
  );
  const address = customer?.billing_address as { country?: string } | null | undefined;
  const productName = product?.name ?? "Subscription";
  const percentage = discount?.type === "percentage" ? discount : null;
  // A discount set since the last renewal first applies here, as Polar counts it: from this cycle.
  const discountAppliedAt = percentage ? (s.discountAppliedAt ?? start) : s.discountAppliedAt;
  const amounts = cycleAmounts({
    productName,
    prices,
    usage: await billableUsage(deps.db, s, prices, start, end),
    customAmount: 0,
    // As Polar: a percentage discount applies to each settlement as it would to the period's
    // renewal; a fixed amount would be given again at every meter cycle, so none is.
    discount: percentage,
    discountAppliedAt,
    // Durations are checked at the cycle's own start, as Polar does, so they end on time.
    periodStart: start,
    currency: s.currency,
    country: address?.country ?? null,
    tax: deps.tax,
  });
  const billed = amounts.totalAmount > 0;
  const key = meterBillingKey(s.id, start);
  const owner = balanceOwnerOf(s);
  // The balance pays usage first, as it does a renewal.
  const applied = await holdBalance(deps.db, owner, {
    total: amounts.totalAmount,
    reference: key,
    subscriptionId: s.id,
    now: at,
  });
  const outcome = billed
    ? await chargeSubscription(
        deps,
        s,
        amounts.totalAmount - applied,
        chargeKey(s.id, start, 0, "meter"),
        `${productName} usage`,
      )
    : null;
  const nextEnd = nextEndOf(cycle);
  const clock = fixedClock(at);
  const made = await inTransaction(deps.db, async (tx) => {
    const locked = await repo.lockSubscription(tx, scopeOfResource(s), s.id);
    if (!locked || !stillDue(locked)) {
      await releaseHold(tx, owner, key, at);
      return false;
    }
    const paid = !outcome || outcome.status === "succeeded";
    const inserted = outcome
      ? await insertOrderOnce(
          tx,
          {
            organizationId: s.organizationId,
            customerId: s.customerId,
            productId: s.productId,
            subscriptionId: s.id,
            discountId: amounts.discounted ? s.discountId : null,
            status: paid ? "paid" : "pending",
            billingReason: "subscription_meter_cycle",
            billingKey: key,
            subtotalAmount: amounts.subtotalAmount,
            discountAmount: amounts.discountAmount,
            netAmount: amounts.netAmount,
            taxAmount: amounts.taxAmount,
            totalAmount: amounts.totalAmount,
            appliedBalanceAmount: -applied,
            currency: s.currency,
            billingName: customer?.billing_name ?? null,
            billingAddress: (customer?.billing_address ?? null) as never,
            processorPaymentId: outcome.status === "succeeded" ? outcome.processorPaymentId : null,
            paymentAttempts: 1,
            nextPaymentAttemptAt: paid ? null : new Date(at.getTime() + retryMs(deps, 0)),
            metadata: s.metadata,
            customFieldData: s.customFieldData,
            createdAt: at,
          },
          amounts.lines.map((l) => ({
            label: l.label,
            amount: l.amount,
            taxAmount: 0,
            proration: false,
            productPriceId: l.productPriceId,
            createdAt: at,
          })),
        )
      : null;
    if (outcome && !inserted) return false;
    const order = inserted?.order ?? null;
    if (order) await settleOrderBalance(tx, order, at);
    if (outcome && order)
      await recordAttempt(tx, clock, deps, s, order.id, outcome, "subscription_cycle");
    // A declined settlement leaves the subscription as it is (its order is retried on its own).
    let updated = await repo.updateSubscription(tx, s.id, {
      currentMeterPeriodStart: end,
      currentMeterPeriodEnd: nextEnd,
      ...(amounts.discounted ? { discountAppliedAt } : {}),
      modifiedAt: at,
    });
    updated = await scheduleNext(tx, deps.queue, updated);
    const emit = (type: string, data: unknown) =>
      recordEvent(tx, clock, { organizationId: s.organizationId, type, data });
    if (order) {
      const [orderData] = await serializeOrders(tx, deps.baseUrl, [order]);
      await emit("order.created", orderData);
      if (paid) {
        await emit("order.paid", orderData);
        await queueReceiptMail(tx, deps.queue, { orderId: order.id, kind: "paid" });
      }
    }
    await recordSubscriptionEvents(tx, { clock, baseUrl: deps.baseUrl }, updated, [
      "subscription.updated",
    ]);
    // Credits renew with every cycle, paid or not, as Polar's cycle_meters renews them.
    if (renewsCredits) await cycleGrantsOfSubscription(tx, clock, s, "meter_credit");
    await recordCustomerState(tx, clock, s);
    if (order && !paid)
      await recordPaymentFailedMail(tx, deps, {
        email: customer?.email ?? null,
        productName,
        order,
        final: false,
      });
    return true;
  });
  return made;
}
