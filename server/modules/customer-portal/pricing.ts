// What the portal says a subscription costs beyond Polar's CustomerSubscription (till's addition):
// its prices a period before the discount, the discount by name, and what the next renewal bills,
// computed as the renewal computes them so the page never says one figure and charges another.
import type { OrgScope } from "../../lib/org-scope.ts";
import type { Db } from "../../../db/client.ts";
import {
  type CycleDiscount,
  type CyclePrice,
  recurringAmountOf,
} from "../subscriptions/amounts.ts";
import { pricingTermsOf } from "../subscriptions/queries.ts";
import type { SubscriptionOut } from "../subscriptions/schemas.ts";
import type { PortalPricingOut } from "./schemas.ts";

type Terms = { customAmount: number | null; discountAppliedAt: Date | null };

/** Statuses a renewal follows (Polar's billable ones). */
const RENEWING = new Set(["trialing", "active", "past_due"]);

export function pricingOf(s: SubscriptionOut, terms: Terms | undefined): PortalPricingOut {
  const d = s.discount;
  const discount: CycleDiscount | null = d
    ? {
        type: d.type,
        amount: d.type === "fixed" ? d.amount : null,
        basisPoints: d.type === "percentage" ? d.basis_points : null,
        duration: d.duration,
        durationInMonths: d.duration_in_months ?? null,
      }
    : null;
  const base = {
    productName: s.product.name,
    prices: s.prices as CyclePrice[],
    customAmount: terms?.customAmount ?? s.amount,
    seats: s.seats,
    currency: s.currency,
  };
  const periodStart = new Date(s.current_period_end ?? s.current_period_start);
  const renews =
    RENEWING.has(s.status) &&
    !s.cancel_at_period_end &&
    !s.ends_at &&
    !s.pending_update?.product_id &&
    s.current_period_end !== null;
  return {
    amount_before_discount: recurringAmountOf({
      ...base,
      discount: null,
      discountAppliedAt: null,
      periodStart,
    }),
    discount: d
      ? {
          id: d.id,
          name: d.name,
          type: d.type,
          amount: d.type === "fixed" ? d.amount : null,
          basis_points: d.type === "percentage" ? d.basis_points : null,
          duration: d.duration,
          duration_in_months: d.duration_in_months ?? null,
        }
      : null,
    // As the renewal: a discount not yet applied (a trial's) first applies to the next period.
    next_amount: renews
      ? recurringAmountOf({
          ...base,
          seats: s.pending_update?.seats ?? s.seats,
          discount,
          discountAppliedAt: d ? (terms?.discountAppliedAt ?? periodStart) : null,
          periodStart,
        })
      : null,
  };
}

/** The pricing of each subscription, by id. */
export async function pricingOfAll(
  db: Db,
  scope: OrgScope,
  subscriptions: SubscriptionOut[],
): Promise<Map<string, PortalPricingOut>> {
  const terms = await pricingTermsOf(
    db,
    scope,
    subscriptions.map((s) => s.id),
  );
  return new Map(subscriptions.map((s) => [s.id, pricingOf(s, terms.get(s.id))]));
}
