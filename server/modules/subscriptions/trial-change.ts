// Trials changed by a SubscriptionUpdate: a trial_end set by hand, checked as Polar's update_trial;
// a plan change during a trial, as Polar's update_product (_resolve_trial_end): the trial is
// recomputed from its start with the new product's trial, and ends now when the new product has
// none or that end has already passed; the renewal then bills the new product at once.
import { ApiError, RequestValidationError } from "../../lib/errors.ts";
import { addInterval, type Interval } from "../../lib/periods.ts";
import type { DisplayProduct } from "./renewal.ts";
import type { SubscriptionRow } from "./repository.ts";

/**
 * The end a SubscriptionUpdate's trial_end asks for, once allowed. As Polar's update_trial: only
 * a running trial can end now, and a trial given to an active subscription starts after the
 * period it paid for, never cutting it short (a period end brought forward would bill the
 * customer again early).
 */
export function requestedTrialEnd(
  s: Pick<SubscriptionRow, "status" | "currentPeriodEnd">,
  trialEnd: string,
  now: Date,
): Date {
  if (s.status !== "trialing" && s.status !== "active")
    throw new ApiError(403, "TrialingSubscription", "This subscription cannot be given a trial.");
  const trialing = s.status === "trialing";
  const invalid = (msg: string) =>
    RequestValidationError.field(["body", "trial_end"], msg, "value_error");
  if (trialEnd === "now" && !trialing) throw invalid("The subscription is not currently trialing.");
  const end = trialEnd === "now" ? now : new Date(trialEnd);
  if (end < now) throw invalid("The trial end must be now or in the future.");
  if (!trialing && end <= s.currentPeriodEnd)
    throw invalid("Trial end must be after the current period end.");
  withinReach(["body", "trial_end"], end, now);
  return end;
}

// As Stripe bounds trial_end (how Polar moves a period end there too): a date a card processor
// would refuse, or a typo of a year, is refused before anything changes.
const MAX_DAYS_AHEAD = 730;

export function withinReach(loc: string[], end: Date, now: Date): void {
  if (end.getTime() - now.getTime() > MAX_DAYS_AHEAD * 86_400_000)
    throw RequestValidationError.field(
      loc,
      `Must be at most ${MAX_DAYS_AHEAD} days from now.`,
      "value_error",
    );
}

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
