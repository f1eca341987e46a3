// Benefits while a payment is owed, as Polar's benefit_revocation_grace_period says: a past_due
// subscription's benefits are revoked once past_due_at + the grace (in days) has come, checked when
// the renewal fails and at each failed retry; 0 (the default) revokes them at the failure. When a
// retry is paid, the benefits are granted again: the buyer's (the product's current benefits) and
// those of the holders of its claimed seats.
import type { Tx } from "../../../db/client.ts";
import {
  type GrantQueueDeps,
  grantBenefitsForOrder,
  revokeBenefitsForSubscription,
} from "../grants/seam.ts";
import { subscriptionSettingsOf } from "../organizations/queries.ts";
import { claimedSeatHolders } from "../seats/subscription-end.ts";

const DAY_MS = 86_400_000;

type PastDue = { id: string; organizationId: string; pastDueAt: Date | null };

/** Revokes the benefits of past_due subscriptions of one organization whose grace ended by `at`. */
export async function revokeAfterGrace(
  tx: Tx,
  deps: GrantQueueDeps,
  subscriptions: PastDue[],
  at: Date,
): Promise<void> {
  if (subscriptions.length === 0) return;
  const settings = await subscriptionSettingsOf(tx, subscriptions[0]!.organizationId);
  const days = settings?.benefit_revocation_grace_period ?? 0;
  for (const s of subscriptions)
    if (s.pastDueAt && at.getTime() >= s.pastDueAt.getTime() + days * DAY_MS)
      await revokeBenefitsForSubscription(tx, deps, s);
}

/** A past_due subscription was paid: what the grace rule took back is granted again. */
export async function restoreBenefits(
  tx: Tx,
  deps: GrantQueueDeps,
  s: { id: string; organizationId: string; customerId: string; productId: string },
  orderId: string | null,
): Promise<void> {
  const purchase = {
    organizationId: s.organizationId,
    productId: s.productId,
    subscriptionId: s.id,
  };
  await grantBenefitsForOrder(tx, deps, { ...purchase, id: orderId, customerId: s.customerId });
  for (const holder of await claimedSeatHolders(tx, s))
    await grantBenefitsForOrder(tx, deps, { ...purchase, ...holder, id: holder.orderId });
}
