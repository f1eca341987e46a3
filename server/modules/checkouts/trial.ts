// The trial a checkout's purchase starts with, shared by the confirm, the fulfilment (also the
// reconciler's) and the session's wire shape so all three agree.
import type { Interval } from "../../lib/periods.ts";

export interface Trial {
  interval: Interval;
  count: number;
}

/**
 * The trial a purchase starts with: none for a one-time product, when the seller turned trials off
 * for the session (allow_trial false) or the buyer declined it at confirm; else the session's own
 * trial over the product's.
 */
export function trialOf(
  product: {
    is_recurring: boolean;
    trial_interval?: string | null;
    trial_interval_count?: number | null;
  },
  checkout: {
    trialInterval: string | null;
    trialIntervalCount: number | null;
    allowTrial: boolean | null;
  },
  buyerAllows: boolean,
): Trial | null {
  if (!buyerAllows || checkout.allowTrial === false || !product.is_recurring) return null;
  if (checkout.trialInterval)
    return {
      interval: checkout.trialInterval as Interval,
      count: checkout.trialIntervalCount ?? 1,
    };
  return product.trial_interval
    ? { interval: product.trial_interval as Interval, count: product.trial_interval_count ?? 1 }
    : null;
}

/**
 * What the buyer's card is for, as Polar's is_payment_required, is_payment_setup_required and
 * is_payment_form_required: paying now (nothing is paid during a trial), being saved for a later
 * charge (a trial's first, or usage billed at the cycle), either of them; with the trial.
 */
export function cardUse(
  product: (Parameters<typeof trialOf>[0] & Parameters<typeof paymentSetupRequired>[0]) | null,
  checkout: Parameters<typeof trialOf>[1] & { amount: number; totalAmount: number },
  discount: Parameters<typeof paymentSetupRequired>[2],
) {
  const trial = product ? trialOf(product, checkout, true) : null;
  const paysNow = checkout.totalAmount > 0 && !trial;
  const setup = paymentSetupRequired(product, checkout, discount);
  return { trial, paysNow, setup, formRequired: paysNow || setup };
}

/**
 * Whether the purchase saves a card for later charges, as Polar's is_payment_setup_required: any
 * recurring product that may bill later, a metered price billed from usage included (even when
 * nothing is due now), unless every price is free, nothing is billed now or later, or a 100 %
 * forever discount takes it all.
 */
export function paymentSetupRequired(
  product: {
    is_recurring: boolean;
    prices: { amount_type: string; is_archived?: boolean }[];
  } | null,
  checkout: { amount: number },
  discount: { type: string; duration: string; basisPoints: number | null } | null,
): boolean {
  if (!product?.is_recurring) return false;
  const prices = product.prices.filter((p) => !p.is_archived);
  if (prices.every((p) => p.amount_type === "free")) return false;
  const metered = prices.some((p) => p.amount_type === "metered_unit");
  if (checkout.amount === 0 && !metered) return false;
  if (
    discount?.type === "percentage" &&
    discount.duration === "forever" &&
    discount.basisPoints === 10_000
  )
    return false;
  return true;
}
