// Changing the seats of a seat-based subscription (PATCH seats), per proration_behavior as a plan
// change: the seats' price for the rest of the period is prorated to the second; `invoice` settles
// the difference now in a `subscription_update` order (a decrease's credit goes to the balance),
// `prorate` carries the difference to the next cycle, `next_period` records a pending update applied
// at renewal, `reset` starts a new period at once. Seats cannot go below those assigned. As for a
// plan change, the discount of the period is netted from the old and the new seats' amounts before
// they are prorated, so a fixed discount is not counted twice.
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
import { prorationFactor, roundHalfEven, schedulePendingUpdate } from "./plan-change.ts";
import { periodDiscount, renewSubscription } from "./renewal.ts";
import * as repo from "./repository.ts";

type Behavior = "invoice" | "prorate" | "next_period" | "reset";

export class NotASeatBasedSubscription extends ApiError {
  constructor() {
    super(400, "NotASeatBasedSubscription", "This subscription is not seat-based.");
  }
}

const invalidSeats = (msg: string) => RequestValidationError.field(["body", "seats"], msg);

async function tiersOf(deps: BillingDeps, s: repo.SubscriptionRow): Promise<SeatTiers> {
  const [product] = await serializeProductsByIds(deps.db, deps.baseUrl, scopeOfResource(s), [
    s.productId,
  ]);
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
  const assertAssigned = async (tx: Tx) => {
    const assigned = await repo.lockAndCountLiveSeats(tx, scopeOfResource(s), s.id);
    if (seats < assigned)
      throw invalidSeats(`${assigned} seats are assigned: revoke some before going below that.`);
  };
  const switchSeats = async (tx: Tx, carried: number) => {
    const locked = (await repo.lockSubscription(tx, scopeOfResource(s), s.id))!;
    const row = await repo.updateSubscription(tx, s.id, {
      seats,
      amount: newAmount,
      prorationAmount: locked.prorationAmount + carried,
      modifiedAt: now,
    });
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
  if (behavior === "reset") {
    const row = await inTransaction(deps.db, async (tx) => {
      await assertAssigned(tx);
      return repo.updateSubscription(tx, s.id, {
        seats,
        amount: newAmount,
        pendingUpdate: null,
        currentPeriodStart: now,
        currentPeriodEnd: now,
        anchorDay: now.getUTCDate(),
        modifiedAt: now,
      });
    });
    await renewSubscription(deps, row, now);
    return;
  }

  const factor = prorationFactor(s.currentPeriodStart, s.currentPeriodEnd, now);
  const discount = await periodDiscount(deps, s, s.productId);
  const net = (amount: number) =>
    discountApplies(discount, s.discountAppliedAt ?? s.currentPeriodStart, s.currentPeriodStart)
      ? amount - discountAmountOf(discount, amount)
      : amount;
  const credit = roundHalfEven(net(oldAmount) * factor);
  const debit = roundHalfEven(net(newAmount) * factor);
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
  const [product] = await serializeProductsByIds(deps.db, deps.baseUrl, scopeOfResource(s), [
    s.productId,
  ]);
  await chargeChangeNow(deps, s, {
    key: `seats:${s.id}:${seats}:${now.toISOString()}`,
    description: `${product?.name ?? "Subscription"} (seats)`,
    productId: s.productId,
    seats,
    difference,
    lines: [
      { label: `Unused time on ${s.seats} seats`, amount: -credit },
      { label: `Remaining time on ${seats} seats`, amount: debit },
    ],
    now,
    apply: (tx) => switchSeats(tx, 0),
  });
}
