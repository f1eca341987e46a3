// Changing the seats of a seat-based subscription (PATCH seats), per proration_behavior as a plan
// change: the seats' price for the rest of the period is prorated to the second; `invoice` settles
// the difference now in a `subscription_update` order (a decrease's credit goes to the balance),
// `prorate` carries the difference to the next cycle, `next_period` records a pending update applied
// at renewal, `reset` (behind the organization's flag) charges the new seats' full price now and
// starts a new period. Seats cannot go below those assigned. As for a plan change, the discount of
// the period is netted from the old and the new seats' amounts before they are prorated, so a fixed
// discount is not counted twice. As Polar, a trial bills nothing and keeps its end.
import { inTransaction, type Tx } from "../../../db/client.ts";
import type { SeatTiers } from "../../../db/schema/index.ts";
import { ApiError, RequestValidationError } from "../../lib/errors.ts";
import { prorationBehaviorOf } from "../organizations/queries.ts";
import { seatAmount, seatBounds } from "../products/seat-tiers.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import { serializeProductsByIds } from "../products/service.ts";
import { fixedClock } from "../sandbox-clock/queries.ts";
import { discountAmountOf, discountApplies } from "./amounts.ts";
import { chargeChangeNow } from "./charge-now.ts";
import type { BillingDeps } from "./deps.ts";
import { recordCustomerState, recordSubscriptionEvents } from "./events.ts";
import { schedulePendingUpdate } from "./plan-change.ts";
import {
  type NewPeriod,
  periodFrom,
  periodOn,
  prorationFactor,
  roundHalfEven,
} from "./plan-period.ts";
import { pendingProrations, periodDiscount } from "./renewal.ts";
import * as repo from "./repository.ts";
import { scheduleNext } from "./schedule.ts";

type Behavior = "invoice" | "prorate" | "next_period" | "reset";

export class NotASeatBasedSubscription extends ApiError {
  constructor() {
    super(400, "NotASeatBasedSubscription", "This subscription is not seat-based.");
  }
}

const invalidSeats = (msg: string) => RequestValidationError.field(["body", "seats"], msg);

/** The subscription's product and the tiers of its seat price. */
async function tiersOf(deps: BillingDeps, s: repo.SubscriptionRow) {
  const [product] = await serializeProductsByIds(deps.db, deps.baseUrl, scopeOfResource(s), [
    s.productId,
  ]);
  const price = (product?.prices ?? []).find(
    (p) => s.priceIds.includes(p.id) && p.amount_type === "seat_based",
  ) as { seat_tiers?: SeatTiers } | undefined;
  if (!product || !price?.seat_tiers) throw new NotASeatBasedSubscription();
  return { product, tiers: price.seat_tiers };
}

export async function changeSeats(
  deps: BillingDeps,
  s: repo.SubscriptionRow,
  seats: number,
  requested: Behavior | null | undefined,
  now: Date,
): Promise<void> {
  if (s.seats === null) throw new NotASeatBasedSubscription();
  const { product, tiers } = await tiersOf(deps, s);
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
  const assertAssigned = async (tx: Tx) => {
    const assigned = await repo.lockAndCountLiveSeats(tx, scopeOfResource(s), s.id);
    if (seats < assigned)
      throw invalidSeats(`${assigned} seats are assigned: revoke some before going below that.`);
  };
  const switchSeats = async (tx: Tx, carried: number, period: NewPeriod | null) => {
    const locked = (await repo.lockSubscription(tx, scopeOfResource(s), s.id))!;
    const updated = await repo.updateSubscription(tx, s.id, {
      seats,
      amount: newAmount,
      // A new period's order settled what was waiting.
      prorationAmount: period ? 0 : locked.prorationAmount + carried,
      ...(period ? { pendingUpdate: null, ...periodOn(locked, product, period, now) } : {}),
      modifiedAt: now,
    });
    const row = period ? await scheduleNext(tx, deps.queue, updated) : updated;
    await recordSubscriptionEvents(tx, { clock, baseUrl: deps.baseUrl }, row, [
      "subscription.updated",
    ]);
    await recordCustomerState(tx, clock, s);
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
  const trialing = s.status === "trialing";
  const factor = trialing ? 0 : prorationFactor(s.currentPeriodStart, s.currentPeriodEnd, now);
  const discount = await periodDiscount(deps, s, s.productId);
  const net = (amount: number) =>
    discountApplies(discount, s.discountAppliedAt ?? s.currentPeriodStart, s.currentPeriodStart)
      ? amount - discountAmountOf(discount, amount)
      : amount;
  // As Polar, a reset credits nothing and debits the new seats' full price for a new period of the
  // subscription's interval from now; prorations still waiting for the old period's end are
  // settled with it.
  const reset = behavior === "reset" && !trialing;
  const period = reset ? periodFrom(now, s) : null;
  const waiting = reset ? pendingProrations(s) : [];
  const credit = reset ? 0 : roundHalfEven(net(oldAmount) * factor);
  const debit = reset ? net(newAmount) : roundHalfEven(net(newAmount) * factor);
  const difference = debit - credit + waiting.reduce((sum, l) => sum + l.amount, 0);
  if ((behavior !== "invoice" && !reset) || difference === 0) {
    await inTransaction(deps.db, async (tx) => {
      await assertAssigned(tx);
      await switchSeats(tx, difference, period);
    });
    return;
  }
  // Checked before the charge too, so a refused change charges nothing.
  await inTransaction(deps.db, assertAssigned);
  await chargeChangeNow(deps, s, {
    key: `seats:${s.id}:${seats}:${now.toISOString()}`,
    description: `${product.name} (seats)`,
    productId: s.productId,
    seats,
    difference,
    lines: [
      ...waiting,
      ...(reset
        ? [{ label: `${seats} seats`, amount: debit }]
        : [
            { label: `Unused time on ${s.seats} seats`, amount: -credit },
            { label: `Remaining time on ${seats} seats`, amount: debit },
          ]),
    ],
    now,
    // Again in the change's transaction: a seat assigned while the change settled counts.
    apply: async (tx) => {
      await assertAssigned(tx);
      await switchSeats(tx, 0, period);
    },
  });
}
