// The periods of a plan change: the proration factor and its rounding, a period that starts now
// (a reset or a change of billing interval), the meter cycle on the new product, and what a change
// will leave, known before it is made.
import { scopeOfResource } from "../../lib/org-scope.ts";
import { addInterval, meterCycleOf, nextMeterBoundary, type Interval } from "../../lib/periods.ts";
import { prorationBehaviorOf } from "../organizations/queries.ts";
import { serializeProductsByIds } from "../products/service.ts";
import type { BillingDeps } from "./deps.ts";
import type { DisplayProduct } from "./renewal.ts";
import type * as repo from "./repository.ts";

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

/** The period a move to `product` starts now when its billing interval differs; else null. */
export function intervalChange(
  s: repo.SubscriptionRow,
  product: DisplayProduct,
  now: Date,
): NewPeriod | null {
  const interval = product.recurring_interval as Interval | null;
  const count = product.recurring_interval_count ?? 1;
  if (!interval || (interval === s.recurringInterval && count === s.recurringIntervalCount))
    return null;
  return periodFrom(now, { recurringInterval: interval, recurringIntervalCount: count });
}

export interface NewPeriod {
  currentPeriodStart: Date;
  currentPeriodEnd: Date;
  anchorDay: number;
  /** A trial's new end (a plan change during it). */
  trialEnd?: Date;
}

/** One period of the interval from `now`, anchored on now's day (Polar's cycle reset). */
export function periodFrom(
  now: Date,
  { recurringInterval, recurringIntervalCount }: ReturnType<typeof intervalOf>,
): NewPeriod {
  const anchorDay = now.getUTCDate();
  return {
    currentPeriodStart: now,
    currentPeriodEnd: addInterval(
      now,
      recurringInterval as Interval,
      recurringIntervalCount,
      anchorDay,
    ),
    anchorDay,
  };
}

/**
 * The period and meter cycle of `locked` on `product`, from `period` when one starts now: unsettled
 * usage keeps its start; the product's meter cycle (or the period) says its end.
 */
export function periodOn(
  locked: repo.SubscriptionRow,
  product: Pick<DisplayProduct, "meter_interval" | "meter_interval_count">,
  period: NewPeriod | null,
  now: Date,
) {
  const start = period?.currentPeriodStart ?? locked.currentPeriodStart;
  const end = period?.currentPeriodEnd ?? locked.currentPeriodEnd;
  const cycle = meterCycleOf(product);
  const meterStart = locked.currentMeterPeriodStart;
  return {
    ...(period ?? {}),
    ...(cycle || meterStart
      ? {
          currentMeterPeriodStart: meterStart ?? locked.currentPeriodStart,
          currentMeterPeriodEnd: cycle ? nextMeterBoundary(start, end, cycle, now) : end,
        }
      : {}),
  };
}

/** The billing interval a subscription on `product` renews at (the row's, for a one-off product). */
export function intervalOf(
  product: Pick<DisplayProduct, "recurring_interval" | "recurring_interval_count"> | undefined,
  s: Pick<repo.SubscriptionRow, "recurringInterval" | "recurringIntervalCount">,
) {
  return {
    recurringInterval: product?.recurring_interval ?? s.recurringInterval,
    recurringIntervalCount: product?.recurring_interval_count ?? s.recurringIntervalCount,
  };
}

/**
 * What a plan change to `productId` will leave `s` with (its product and period end): the rest of
 * the request (a discount, a trial end) is checked against it before the change commits (and
 * charges), so a discount the new product does not take, or a trial that would cut the new paid
 * period short, is refused before anything.
 */
export async function rowAfterPlan(
  deps: BillingDeps,
  s: repo.SubscriptionRow,
  productId: string,
  requested: string | null | undefined,
  now: Date,
): Promise<repo.SubscriptionRow> {
  const behavior = requested ?? (await prorationBehaviorOf(deps.db, s.organizationId));
  // A scheduled change leaves the product and period as they are until the period ends.
  if (behavior === "next_period") return s;
  // A trial's end is recomputed by the change itself.
  if (s.status === "trialing") return { ...s, productId };
  const [product] = await serializeProductsByIds(deps.db, deps.baseUrl, scopeOfResource(s), [
    productId,
  ]);
  // A product the change cannot move to is refused by the change.
  if (!product) return s;
  const period =
    behavior === "reset"
      ? periodFrom(now, intervalOf(product, s))
      : intervalChange(s, product, now);
  return { ...s, productId, currentPeriodEnd: period?.currentPeriodEnd ?? s.currentPeriodEnd };
}
