// What a subscription canceled at its period end still owes when it ends, as Polar's
// `subscription_cancel` order (public billing reason `subscription_cycle`): the usage of its last
// period beyond the credits, and the prorations of `prorate` plan changes that were waiting for the
// next cycle. No fixed price: no new period is sold. The charge is made before the end is written,
// under its own key, so a re-run asks the processor the same question; the order is inserted under
// its unique billing key in the end's transaction. A decline leaves the order pending, payable from
// the portal; the subscription has ended, so there is no dunning.
import type { Tx } from "../../../db/client.ts";
import { customersByIds } from "../customers/queries.ts";
import { discountOf } from "../discounts/service.ts";
import { queueReceiptMail } from "../invoices/receipt-queue.ts";
import { insertOrderOnce, serializeOrders, type OrderRow } from "../orders/service.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import { serializeProductsByIds } from "../products/service.ts";
import { fixedClock } from "../sandbox-clock/queries.ts";
import { recordEvent } from "../webhooks/outbox.ts";
import { holdBalance, releaseHold, settleOrderBalance } from "../wallets/service.ts";
import { cycleAmounts, type CyclePrice } from "./amounts.ts";
import { chargeSubscription, type OffSessionOutcome, recordAttempt } from "./charge.ts";
import type { BillingDeps } from "./deps.ts";
import { balanceOwnerOf, pendingProrations, usageStartOf } from "./renewal.ts";
import type { SubscriptionRow } from "./repository.ts";
import { billableUsage } from "./usage.ts";

export interface FinalCharge {
  key: string;
  amounts: ReturnType<typeof cycleAmounts>;
  applied: number;
  outcome: OffSessionOutcome | null;
  customer: { billing_name: string | null; billing_address: unknown } | undefined;
}

/** Prices what `s` owes at its end and charges it; null when nothing is owed. */
export async function chargeFinal(
  deps: BillingDeps,
  s: SubscriptionRow,
  at: Date,
): Promise<FinalCharge | null> {
  const scope = scopeOfResource(s);
  const [[product], [customer], discount] = await Promise.all([
    serializeProductsByIds(deps.db, deps.baseUrl, scope, [s.productId]),
    customersByIds(deps.db, scope, [s.customerId]),
    s.discountId ? discountOf(deps.db, scope, s.discountId) : null,
  ]);
  const prices = ((product?.prices ?? []) as CyclePrice[]).filter(
    (p) => s.priceIds.includes(p.id) && p.amount_type === "metered_unit",
  );
  if (prices.length === 0 && !s.prorationAmount) return null;
  const address = customer?.billing_address as { country?: string } | null | undefined;
  const productName = product?.name ?? "Subscription";
  const amounts = cycleAmounts({
    productName,
    prices,
    usage: await billableUsage(deps.db, s, prices, usageStartOf(s), s.currentPeriodEnd),
    customAmount: 0,
    // As for a meter cycle: a percentage discount applies as it would to the renewal; a fixed one
    // was given on the period's own order.
    discount: discount?.type === "percentage" ? discount : null,
    // One set since the last renewal applies as it would have to the renewal.
    discountAppliedAt: s.discountAppliedAt ?? s.currentPeriodStart,
    periodStart: s.currentPeriodStart,
    currency: s.currency,
    country: address?.country ?? null,
    tax: deps.tax,
    extraLines: pendingProrations(s),
  });
  if (amounts.lines.every((l) => l.amount === 0)) return null;
  const key = `final:${s.id}:${s.currentPeriodEnd.toISOString()}`;
  const applied = await holdBalance(deps.db, balanceOwnerOf(s), {
    total: amounts.totalAmount,
    reference: key,
    subscriptionId: s.id,
    now: at,
  });
  const due = amounts.totalAmount - applied;
  const outcome =
    due > 0
      ? await chargeSubscription(deps, s, due, `${key}:0`, `${productName} final invoice`)
      : null;
  return { key, amounts, applied, outcome, customer };
}

/** The final order, in the end's transaction; the hold is given back when the end did not happen. */
export async function writeFinal(
  tx: Tx,
  deps: BillingDeps,
  s: SubscriptionRow,
  f: FinalCharge,
  at: Date,
  ended: boolean,
): Promise<OrderRow | null> {
  if (!ended) {
    await releaseHold(tx, balanceOwnerOf(s), f.key, at);
    return null;
  }
  const paid = !f.outcome || f.outcome.status === "succeeded";
  const a = f.amounts;
  const inserted = await insertOrderOnce(
    tx,
    {
      organizationId: s.organizationId,
      customerId: s.customerId,
      productId: s.productId,
      subscriptionId: s.id,
      discountId: a.discounted ? s.discountId : null,
      status: paid ? "paid" : "pending",
      billingReason: "subscription_cycle",
      billingKey: f.key,
      subtotalAmount: a.subtotalAmount,
      discountAmount: a.discountAmount,
      netAmount: a.netAmount,
      taxAmount: a.taxAmount,
      totalAmount: a.totalAmount,
      appliedBalanceAmount: -f.applied,
      currency: s.currency,
      billingName: f.customer?.billing_name ?? null,
      billingAddress: (f.customer?.billing_address ?? null) as never,
      processorPaymentId: f.outcome?.status === "succeeded" ? f.outcome.processorPaymentId : null,
      paymentAttempts: f.outcome ? 1 : 0,
      metadata: s.metadata,
      customFieldData: s.customFieldData,
      createdAt: at,
    },
    a.lines.map((l) => ({
      label: l.label,
      amount: l.amount,
      taxAmount: 0,
      proration: l.proration,
      productPriceId: l.productPriceId,
      createdAt: at,
    })),
  );
  if (!inserted) return null;
  const order = inserted.order;
  await settleOrderBalance(tx, order, at);
  const clock = fixedClock(at);
  if (f.outcome) await recordAttempt(tx, clock, deps, s, order.id, f.outcome, "subscription_cycle");
  const [data] = await serializeOrders(tx, deps.baseUrl, [order]);
  const emit = (type: string) =>
    recordEvent(tx, clock, { organizationId: s.organizationId, type, data });
  await emit("order.created");
  if (paid) {
    await emit("order.paid");
    if (order.totalAmount > 0)
      await queueReceiptMail(tx, deps.queue, { orderId: order.id, kind: "paid" });
  }
  return order;
}
