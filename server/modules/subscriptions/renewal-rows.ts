// The rows of a batch renewal apart from its writes: which subscriptions renew in a batch, at what
// time each, and what each row becomes after its cycle order.
import type { OrderRow } from "../orders/service.ts";
import { meterCycleDue } from "./meter-cycle.ts";
import { type CyclePlan, cycledFields } from "./renewal.ts";
import type * as repo from "./repository.ts";
import { earliest, nextActionOf, takesMeterRetries } from "./schedule.ts";

/** Whether `s` is due a plain renewal at `at` (no meter cycle, end or pause comes first). */
export function renewableInBatch(s: repo.SubscriptionRow, at: Date): boolean {
  return (
    (s.status === "active" || s.status === "trialing") &&
    s.nextActionAt !== null &&
    s.nextActionAt <= at &&
    s.currentPeriodEnd <= at &&
    !s.cancelAtPeriodEnd &&
    !s.pauseAtPeriodEnd &&
    !meterCycleDue(s, at)
  );
}

/**
 * When each renewal of a batch happens: one instant for all (a wake-up job), or each
 * subscription's own (the sandbox clock renews rows due at different times in one batch).
 */
export type RenewalTime = Date | ((subscriptionId: string) => Date);

export function timeOf(at: RenewalTime, subscriptionId: string): Date {
  return at instanceof Date ? at : at(subscriptionId);
}

/** `items` in groups of one time each, in the order each time first appears. */
export function byTime<T>(items: T[], time: (item: T) => Date): [Date, T[]][] {
  const groups = new Map<number, [Date, T[]]>();
  for (const item of items) {
    const t = time(item);
    const group = groups.get(t.getTime()) ?? [t, []];
    group[1].push(item);
    groups.set(t.getTime(), group);
  }
  return [...groups.values()];
}

/** The row's new period and state after its cycle order, as renewSubscription writes them. */
export function moveOf(
  locked: repo.SubscriptionRow,
  plan: CyclePlan,
  order: Pick<OrderRow, "status" | "nextPaymentAttemptAt">,
  at: Date,
  meterRetry: Date | undefined,
): repo.RenewalMove {
  const paid = order.status === "paid";
  const moved = {
    ...locked,
    ...cycledFields(plan, paid, at),
  };
  return {
    id: moved.id,
    productId: moved.productId,
    seats: moved.seats,
    priceIds: moved.priceIds,
    amount: moved.amount,
    currentPeriodStart: moved.currentPeriodStart,
    currentPeriodEnd: moved.currentPeriodEnd,
    recurringInterval: moved.recurringInterval,
    recurringIntervalCount: moved.recurringIntervalCount,
    discountId: moved.discountId,
    discountAppliedAt: moved.discountAppliedAt,
    currentMeterPeriodStart: moved.currentMeterPeriodStart,
    currentMeterPeriodEnd: moved.currentMeterPeriodEnd,
    status: moved.status,
    pastDueAt: moved.pastDueAt,
    modifiedAt: at,
    nextActionAt: takesMeterRetries(moved)
      ? earliest(nextActionOf(moved, null), meterRetry)
      : nextActionOf(moved, order.nextPaymentAttemptAt),
  };
}
