// Changing the seats of a seat-based subscription (PATCH seats), per proration_behavior as a plan
// change: the seats' price for the rest of the period is prorated to the second; `invoice` settles
// the difference now in a `subscription_update` order (a decrease's credit goes to the balance),
// `prorate` carries the difference to the next cycle, `next_period` records a pending update applied
// at renewal, `reset` starts a new period at once. Seats cannot go below those assigned.
import { inTransaction } from "../../../db/client.ts";
import type { SeatTiers } from "../../../db/schema/index.ts";
import { ApiError, RequestValidationError } from "../../lib/errors.ts";
import { queueReceiptMail } from "../invoices/receipt-queue.ts";
import { insertOrderOnce, renderOrders } from "../orders/service.ts";
import { prorationBehaviorOf } from "../organizations/queries.ts";
import { seatAmount, seatBounds } from "../products/seat-tiers.ts";
import { productsForDisplay } from "../products/service.ts";
import { fixedClock } from "../sandbox-clock/queries.ts";
import { recordEvent } from "../webhooks/outbox.ts";
import { settleOrderBalance } from "../wallets/service.ts";
import { chargeSubscription, recordAttempt } from "./charge.ts";
import type { BillingDeps } from "./deps.ts";
import { recordCustomerState, recordSubscriptionEvents } from "./events.ts";
import { prorationFactor, roundHalfEven, schedulePendingUpdate } from "./plan-change.ts";
import { renewSubscription } from "./renewal.ts";
import * as repo from "./repository.ts";

type Behavior = "invoice" | "prorate" | "next_period" | "reset";

export class NotASeatBasedSubscription extends ApiError {
  constructor() {
    super(400, "NotASeatBasedSubscription", "This subscription is not seat-based.");
  }
}

const invalidSeats = (msg: string) => RequestValidationError.field(["body", "seats"], msg);

async function tiersOf(deps: BillingDeps, s: repo.SubscriptionRow): Promise<SeatTiers> {
  const [product] = await productsForDisplay(deps.db, deps.baseUrl, [s.productId]);
  const price = (product?.prices ?? []).find(
    (p) => s.priceIds.includes(p.id) && p.amount_type === "seat_based",
  ) as { seat_tiers?: SeatTiers } | undefined;
  if (!price?.seat_tiers) throw new NotASeatBasedSubscription();
  return price.seat_tiers;
}

export async function changeSeats(
  deps: BillingDeps,
  s: repo.SubscriptionRow,
  seats: number,
  requested: Behavior | null | undefined,
  now: Date,
): Promise<void> {
  if (s.seats === null) throw new NotASeatBasedSubscription();
  const tiers = await tiersOf(deps, s);
  const newAmount = seatAmount(tiers, seats);
  if (newAmount === null) {
    const { minimum, maximum } = seatBounds(tiers);
    throw invalidSeats(
      `The seats must be between ${minimum} and ${maximum ?? "any number"} for this price.`,
    );
  }
  if (seats === s.seats) throw invalidSeats("The subscription already has this many seats.");
  const oldAmount = seatAmount(tiers, s.seats) ?? 0;
  const behavior = requested ?? (await prorationBehaviorOf(deps.db, s.organizationId));
  const clock = fixedClock(now);
  const assertAssigned = async (tx: Parameters<typeof repo.lockAndCountLiveSeats>[0]) => {
    const assigned = await repo.lockAndCountLiveSeats(tx, s.id);
    if (seats < assigned)
      throw invalidSeats(`${assigned} seats are assigned: revoke some before going below that.`);
  };
  const switchSeats = async (
    tx: Parameters<typeof repo.lockAndCountLiveSeats>[0],
    carried: number,
  ) => {
    const locked = (await repo.lockSubscription(tx, s.id))!;
    const row = await repo.updateSubscription(tx, s.id, {
      seats,
      amount: newAmount,
      prorationAmount: locked.prorationAmount + carried,
      modifiedAt: now,
    });
    await recordSubscriptionEvents(tx, { clock, baseUrl: deps.baseUrl }, row, [
      "subscription.updated",
    ]);
    await recordCustomerState(tx, clock, s.organizationId, s.customerId);
  };

  if (behavior === "next_period") {
    await inTransaction(deps.db, async (tx) => {
      await assertAssigned(tx);
      await schedulePendingUpdate(tx, deps, s, now, {
        productId: s.pendingUpdate?.productId ?? null,
        seats,
      });
    });
    return;
  }
  if (behavior === "reset") {
    const row = await inTransaction(deps.db, async (tx) => {
      await assertAssigned(tx);
      return repo.updateSubscription(tx, s.id, {
        seats,
        amount: newAmount,
        pendingUpdate: null,
        currentPeriodStart: now,
        currentPeriodEnd: now,
        modifiedAt: now,
      });
    });
    await renewSubscription(deps, row, now);
    return;
  }

  const factor = prorationFactor(s.currentPeriodStart, s.currentPeriodEnd, now);
  const credit = roundHalfEven(oldAmount * factor);
  const debit = roundHalfEven(newAmount * factor);
  const difference = debit - credit;
  if (behavior !== "invoice" || difference === 0) {
    await inTransaction(deps.db, async (tx) => {
      await assertAssigned(tx);
      await switchSeats(tx, difference);
    });
    return;
  }
  // Checked before the charge too, so a refused change charges nothing.
  await inTransaction(deps.db, assertAssigned);
  // A decrease's order totals the (negative) credit, which goes to the customer's balance.
  const tax =
    difference > 0
      ? deps.tax.quote({ netAmount: difference, currency: s.currency, country: null })
      : { taxAmount: 0 };
  const total = difference + (tax.taxAmount ?? 0);
  const key = `seats:${s.id}:${seats}:${now.toISOString()}`;
  const [product] = await productsForDisplay(deps.db, deps.baseUrl, [s.productId]);
  const label = product?.name ?? "Subscription";
  const outcome = await chargeSubscription(deps, s, total, `${key}:0`, `${label} (seats)`);
  if (outcome.status === "failed") {
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
        productId: s.productId,
        subscriptionId: s.id,
        status: "paid",
        billingReason: "subscription_update",
        billingKey: key,
        seats,
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
        { label: `Unused time on ${s.seats} seats`, amount: -credit },
        { label: `Remaining time on ${seats} seats`, amount: debit },
      ].map((l) => ({ ...l, taxAmount: 0, proration: true, productPriceId: null, createdAt: now })),
    );
    await switchSeats(tx, 0);
    if (!inserted) return;
    await settleOrderBalance(tx, inserted.order, now);
    await recordAttempt(tx, clock, deps, s, inserted.order.id, outcome, "subscription_cycle");
    const [data] = await renderOrders(tx, deps.baseUrl, [inserted.order]);
    for (const type of ["order.created", "order.paid"])
      await recordEvent(tx, clock, { organizationId: s.organizationId, type, data });
    if (total > 0)
      await queueReceiptMail(tx, deps.queue, { orderId: inserted.order.id, kind: "paid" });
  });
}
