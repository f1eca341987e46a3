// Changing a subscription's product, per proration_behavior (the organization's setting when none
// is given). The prorated difference is computed to the second as Polar does: factor = time left in
// the period ÷ period length; the old fixed prices' net is credited and the new one's debited,
// each rounded half to even. `invoice` settles the difference now in a `subscription_update` order:
// an upgrade is charged, a downgrade's order totals the (negative) credit, which goes to the
// customer's balance and pays the next orders, as Polar does; `prorate` carries the
// difference to the next cycle order; `next_period` records a pending update applied at renewal;
// `reset` switches now and starts a new period at once, charged in full.
import { randomUUID } from "node:crypto";
import { inTransaction, type Db } from "../../../db/client.ts";
import { ApiError, RequestValidationError } from "../../lib/errors.ts";
import { meterCycleOf, nextMeterBoundary } from "../../lib/periods.ts";
import { fixedClock } from "../sandbox-clock/queries.ts";
import { insertOrderOnce, renderOrders } from "../orders/service.ts";
import { productsForDisplay } from "../products/service.ts";
import { prorationBehaviorOf } from "../organizations/queries.ts";
import { recordEvent } from "../webhooks/outbox.ts";
import { settleOrderBalance } from "../wallets/service.ts";
import { queueReceiptMail } from "../invoices/receipt-queue.ts";
import { cycleAmounts, type CyclePrice } from "./amounts.ts";
import { chargeSubscription, recordAttempt } from "./charge.ts";
import type { BillingDeps } from "./deps.ts";
import { recordCustomerState, recordSubscriptionEvents } from "./events.ts";
import { periodDiscount, renewSubscription } from "./renewal.ts";
import * as repo from "./repository.ts";
import { scheduleNext } from "./schedule.ts";

type Behavior = "invoice" | "prorate" | "next_period" | "reset";

/** Half to even, as Python's round on a Decimal (Polar's proration rounding). */
export function roundHalfEven(x: number): number {
  const floor = Math.floor(x);
  const diff = x - floor;
  if (Math.abs(diff - 0.5) < 1e-9) return floor % 2 === 0 ? floor : floor + 1;
  return Math.round(x);
}

export function prorationFactor(start: Date, end: Date, at: Date): number {
  const total = (end.getTime() - start.getTime()) / 1000;
  if (total <= 0) return 0;
  return Math.min(1, Math.max(0, (end.getTime() - at.getTime()) / 1000 / total));
}

async function fixedNet(
  deps: BillingDeps,
  s: repo.SubscriptionRow,
  productId: string,
  all: boolean,
) {
  const [product] = await productsForDisplay(deps.db, deps.baseUrl, [productId]);
  if (!product) return null;
  const prices = (product.prices as CyclePrice[]).filter(
    (p) =>
      (all ? !(p as { is_archived?: boolean }).is_archived : s.priceIds.includes(p.id)) &&
      (p.amount_type === "fixed" || p.amount_type === "custom"),
  );
  const amounts = cycleAmounts({
    productName: product.name,
    prices,
    usage: new Map(),
    customAmount: s.amount,
    discount: await periodDiscount(deps, s, productId),
    startedAt: s.startedAt ?? s.createdAt,
    periodStart: s.currentPeriodStart,
    currency: s.currency,
    country: null,
    tax: { quote: () => ({ taxAmount: 0, basisPoints: 0 }) },
  });
  return { product, amounts, priceIds: (product.prices as CyclePrice[]).map((p) => p.id) };
}

export async function changePlan(
  deps: BillingDeps,
  s: repo.SubscriptionRow,
  productId: string,
  requested: Behavior | null | undefined,
  now: Date,
): Promise<void> {
  const behavior = requested ?? (await prorationBehaviorOf(deps.db, s.organizationId));
  const [oldNet, newNet] = await Promise.all([
    fixedNet(deps, s, s.productId, false),
    fixedNet(deps, s, productId, true),
  ]);
  if (!newNet || newNet.product.organization_id !== s.organizationId)
    throw RequestValidationError.field(["body", "product_id"], "Product not found.", "value_error");
  if (!newNet.product.is_recurring || newNet.product.is_archived)
    throw RequestValidationError.field(
      ["body", "product_id"],
      "The new product must be an active recurring product.",
      "value_error",
    );
  const clock = fixedClock(now);
  const activePrices = (newNet.product.prices as (CyclePrice & { is_archived: boolean })[])
    .filter((p) => !p.is_archived)
    .map((p) => p.id);

  if (behavior === "next_period") {
    await inTransaction(deps.db, (tx) =>
      schedulePendingUpdate(tx, deps, s, now, {
        productId,
        // A seat change scheduled earlier still applies with the new product.
        ...(s.pendingUpdate?.seats != null ? { seats: s.pendingUpdate.seats } : {}),
      }),
    );
    return;
  }
  if (behavior === "reset") {
    // The new product from now, for a whole new period: renewed at once as a cycle.
    const row = await inTransaction(deps.db, (tx) =>
      repo.updateSubscription(tx, s.id, {
        productId,
        priceIds: activePrices,
        pendingUpdate: null,
        currentPeriodStart: now,
        currentPeriodEnd: now,
        modifiedAt: now,
      }),
    );
    await renewSubscription(deps, row, now);
    return;
  }

  const factor = prorationFactor(s.currentPeriodStart, s.currentPeriodEnd, now);
  const credit = roundHalfEven((oldNet?.amounts.netAmount ?? 0) * factor);
  const debit = roundHalfEven(newNet.amounts.netAmount * factor);
  const difference = debit - credit;
  const label = newNet.product.name;

  if (behavior === "invoice" && difference !== 0) {
    const tax =
      difference > 0
        ? deps.tax.quote({ netAmount: difference, currency: s.currency, country: null })
        : { taxAmount: 0 };
    const total = difference + (tax.taxAmount ?? 0);
    const key = `update:${s.id}:${productId}:${now.toISOString()}`;
    const outcome = await chargeSubscription(deps, s, total, `${key}:0`, `${label} (plan change)`);
    if (outcome.status === "failed") {
      // As Polar: a failed payment leaves the subscription as it was; the decline is a payment.
      await inTransaction(deps.db, (tx) =>
        recordAttempt(tx, clock, deps, s, null, outcome, "subscription_cycle"),
      );
      throw new ApiError(402, "PaymentFailed", outcome.message);
    }
    await inTransaction(deps.db, async (tx) => {
      const inserted = await insertOrderOnce(
        tx,
        {
          organizationId: s.organizationId,
          customerId: s.customerId,
          productId,
          subscriptionId: s.id,
          status: "paid",
          billingReason: "subscription_update",
          billingKey: key,
          subtotalAmount: difference,
          discountAmount: 0,
          netAmount: difference,
          taxAmount: tax.taxAmount ?? 0,
          totalAmount: total,
          currency: s.currency,
          processorPaymentId: outcome.processorPaymentId,
          paymentAttempts: 1,
          metadata: s.metadata,
          customFieldData: s.customFieldData,
          createdAt: now,
        },
        [
          {
            label: `Unused time on ${oldNet?.product.name ?? "the previous plan"}`,
            amount: -credit,
            taxAmount: 0,
            proration: true,
            productPriceId: null,
            createdAt: now,
          },
          {
            label: `Remaining time on ${label}`,
            amount: debit,
            taxAmount: 0,
            proration: true,
            productPriceId: null,
            createdAt: now,
          },
        ],
      );
      await switchProduct(tx, deps, s, newNet.product, activePrices, 0, now);
      if (inserted) {
        await settleOrderBalance(tx, inserted.order, now);
        await recordAttempt(tx, clock, deps, s, inserted.order.id, outcome, "subscription_cycle");
        const [data] = await renderOrders(tx, deps.baseUrl, [inserted.order]);
        await recordEvent(tx, clock, {
          organizationId: s.organizationId,
          type: "order.created",
          data,
        });
        await recordEvent(tx, clock, {
          organizationId: s.organizationId,
          type: "order.paid",
          data,
        });
        if (total > 0)
          await queueReceiptMail(tx, deps.queue, { orderId: inserted.order.id, kind: "paid" });
      }
    });
    return;
  }
  // prorate: carried to the next cycle order as a line.
  await inTransaction(deps.db, (tx) =>
    switchProduct(tx, deps, s, newNet.product, activePrices, difference, now),
  );
}

async function switchProduct(
  tx: Parameters<Parameters<typeof inTransaction>[1]>[0],
  deps: BillingDeps,
  s: repo.SubscriptionRow,
  product: { id: string; meter_interval: string | null; meter_interval_count: number | null },
  priceIds: string[],
  carried: number,
  now: Date,
): Promise<void> {
  const clock = fixedClock(now);
  const locked = (await repo.lockSubscription(tx, s.id))!;
  const productId = product.id;
  // Unsettled usage keeps its start; the new product's meter cycle (or the period) says its end.
  const cycle = meterCycleOf(product);
  const meterStart = locked.currentMeterPeriodStart;
  const meterPeriod =
    cycle || meterStart
      ? {
          currentMeterPeriodStart: meterStart ?? locked.currentPeriodStart,
          currentMeterPeriodEnd: cycle
            ? nextMeterBoundary(locked.currentPeriodStart, locked.currentPeriodEnd, cycle, now)
            : locked.currentPeriodEnd,
        }
      : {};
  const row = await scheduleNext(
    tx,
    deps.queue,
    await repo.updateSubscription(tx, s.id, {
      productId,
      priceIds,
      pendingUpdate: null,
      prorationAmount: locked.prorationAmount + carried,
      ...meterPeriod,
      modifiedAt: now,
    }),
  );
  await recordSubscriptionEvents(tx, { clock, baseUrl: deps.baseUrl }, row, [
    "subscription.updated",
  ]);
  await recordCustomerState(tx, clock, s.organizationId, s.customerId);
}

/** A change applied at the period's end (`next_period`): recorded on the row, announced now. */
export async function schedulePendingUpdate(
  tx: Db,
  deps: Pick<BillingDeps, "clock" | "baseUrl">,
  s: repo.SubscriptionRow,
  now: Date,
  change: { productId: string | null; seats?: number },
): Promise<void> {
  const row = await repo.updateSubscription(tx, s.id, {
    pendingUpdate: {
      id: randomUUID(),
      ...change,
      appliesAt: s.currentPeriodEnd.toISOString(),
      createdAt: now.toISOString(),
    },
    modifiedAt: now,
  });
  await recordSubscriptionEvents(tx, { clock: deps.clock, baseUrl: deps.baseUrl }, row, [
    "subscription.updated",
  ]);
}
