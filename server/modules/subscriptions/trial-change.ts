// A plan change during a trial, as Polar's update_product (_resolve_trial_end): the trial is
// recomputed from its start with the new product's trial, and ends now when the new product has
// none or that end has already passed; the renewal then bills the new product at once.
import { addInterval, type Interval } from "../../lib/periods.ts";
import type { DisplayProduct } from "./renewal.ts";
import type { SubscriptionRow } from "./repository.ts";

/** The trial's period on `product`: it ends at the new trial's end, or now. */
export function trialOn(
  s: Pick<SubscriptionRow, "trialStart" | "currentPeriodStart">,
  product: Pick<DisplayProduct, "trial_interval" | "trial_interval_count">,
  now: Date,
) {
  const start = s.trialStart ?? s.currentPeriodStart;
  const candidate = product.trial_interval
    ? addInterval(start, product.trial_interval as Interval, product.trial_interval_count ?? 1)
    : null;
  const end = candidate && candidate > now ? candidate : now;
  return {
    currentPeriodStart: s.currentPeriodStart,
    currentPeriodEnd: end,
    anchorDay: end.getUTCDate(),
    trialEnd: end,
    /** The trial ended with the change: the renewal is due now. */
    endsNow: end.getTime() === now.getTime(),
  };
}
