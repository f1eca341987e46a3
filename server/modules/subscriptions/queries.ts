// Reads of subscriptions for the customer state, which the subscriptions' own use cases emit:
// repository reads only, so the state can gather them without importing the use cases.
import type { Db } from "../../../db/client.ts";
import { type OrgScope, scopeOfResource } from "../../lib/org-scope.ts";
import * as purchases from "./purchase-repository.ts";
import * as repo from "./repository.ts";

export function activeSubscriptionsOf(db: Db, scope: OrgScope, customerId: string) {
  return repo.activeOfCustomer(db, scope, customerId);
}

export function activeSubscriptionsOfCustomers(db: Db, scope: OrgScope, customerIds: string[]) {
  return repo.activeOfCustomers(db, scope, customerIds);
}

/** Whether the customer (by id, else by email) has a subscription of the organization to pay for. */
export function hasBillableSubscription(
  db: Db,
  scope: OrgScope,
  who: { customerId: string } | { email: string },
) {
  return purchases.hasBillable(db, scope, who);
}

/**
 * Whether a customer with this email (+alias ignored), or one who saved this card, had a trial of
 * the organization.
 */
export function hadTrial(
  db: Db,
  scope: OrgScope,
  who: { email: string; fingerprint: string | null },
) {
  return purchases.hadTrial(db, scope, who);
}

/** Whether the organization has a paid subscription still running (trialing to paused). */
export function hasRunningPaidSubscriptions(db: Db, organizationId: string) {
  return purchases.anyRunningPaid(db, scopeOfResource({ organizationId }));
}

/** The customer's subscriptions that still need a card to be billed (a card's removal asks). */
export function subscriptionsNeedingCard(db: Db, scope: OrgScope, customerId: string) {
  return purchases.needingCard(db, scope, customerId);
}

/**
 * What the customer portal needs beyond the wire model to say what subscriptions cost: a custom
 * price's chosen amount and when the discount first applied, by subscription id.
 */
export async function pricingTermsOf(db: Db, scope: OrgScope, ids: string[]) {
  const rows = await repo.subscriptionsByIds(db, scope, ids);
  return new Map(
    rows.map((r) => [
      r.id,
      { customAmount: r.customAmount, discountAppliedAt: r.discountAppliedAt },
    ]),
  );
}
