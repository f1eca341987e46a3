// A checkout made with `subscription_id` upgrades that subscription instead of starting another, as
// Polar's: only a free subscription of the organization (every price it bills is free; till also
// refuses one that is canceled or ended). On success the subscription takes the checkout's product,
// prices and amounts, and a new period (or trial) starting then; its grants of benefits the new
// product lacks are revoked (the checkout grants the new product's), and subscription.updated is
// what the seller hears, not subscription.created.
import type { Db, Tx } from "../../../db/client.ts";
import type { Clock } from "../../lib/clock.ts";
import { type OrgScope, scopeOfResource } from "../../lib/org-scope.ts";
import type { QueueHandle } from "../../jobs/queue.ts";
import { revokeBenefitsOutsideProduct } from "../grants/seam.ts";
import { priceIsFree } from "../products/prices.ts";
import { serializeProductsByIds } from "../products/service.ts";
import { SubscriptionLocked } from "./lease.ts";
import { leaseHeld, upgradeClaimed } from "./lease-repository.ts";
import * as repo from "./repository.ts";
import { scheduleNext } from "./schedule.ts";
import { type NewSubscription, termsOf } from "./service.ts";

export interface UpgradeTarget {
  id: string;
  customerId: string;
}

/** Why a checkout cannot upgrade the subscription (Polar's messages where Polar has the rule). */
export type UpgradeRefusal = "not_found" | "not_free" | "canceled";

export const UPGRADE_REFUSALS: Record<UpgradeRefusal, string> = {
  not_found: "Subscription does not exist.",
  not_free: "Only free subscriptions can be upgraded.",
  canceled: "A canceled subscription cannot be upgraded.",
};

async function check(
  db: Db,
  s: repo.SubscriptionRow | null,
): Promise<UpgradeTarget | UpgradeRefusal> {
  if (!s) return "not_found";
  if (s.canceledAt || s.endedAt || (s.status !== "active" && s.status !== "trialing"))
    return "canceled";
  const [product] = await serializeProductsByIds(db, "", scopeOfResource(s), [s.productId]);
  const prices = (product?.prices ?? []).filter((p) => s.priceIds.includes(p.id));
  if (!prices.every(priceIsFree)) return "not_free";
  return { id: s.id, customerId: s.customerId };
}

/** The subscription a new checkout would upgrade, read in the checkout's organization. */
export async function upgradeTarget(db: Db, scope: OrgScope, id: string) {
  return check(db, await repo.findSubscription(db, scope, id));
}

/**
 * Checked again when the checkout is claimed for payment, with the row locked until that claim
 * commits: two checkouts claiming one subscription take turns, and the second sees the first.
 */
export async function lockUpgradeTarget(tx: Tx, scope: OrgScope, id: string) {
  const s = await repo.lockSubscription(tx, scope, id);
  // A change holding the lease is charging now: it goes first, and this claim is refused before
  // any charge (the change, once leased, refuses while this claim stands: upgradeClaimed).
  if (s && (await leaseHeld(tx, s.id))) throw new SubscriptionLocked();
  return check(tx, s);
}

/** The paid checkout's terms on the subscription it upgrades, its next renewal scheduled. */
export async function upgradeSubscription(
  tx: Tx,
  deps: { clock: Clock; queue: QueueHandle | null },
  id: string,
  input: NewSubscription,
): Promise<repo.SubscriptionRow> {
  const locked = await repo.lockSubscription(tx, scopeOfResource(input), id);
  if (!locked) throw new Error(`subscription ${id} to upgrade is gone`);
  const terms = await termsOf(tx, deps.clock, input);
  const row = await repo.updateSubscription(tx, id, {
    ...terms,
    // As Polar: the checkout's metadata overwrites the keys it carries and keeps the others.
    metadata: { ...locked.metadata, ...input.metadata },
    // The new plan replaces what was scheduled for the free one.
    pendingUpdate: null,
    prorationAmount: 0,
    modifiedAt: terms.currentPeriodStart,
  });
  await revokeBenefitsOutsideProduct(tx, deps, row, row.productId);
  return scheduleNext(tx, deps.queue, row);
}

/** Whether a checkout other than `checkoutId` upgrading the subscription is claimed for payment. */
export function otherUpgradeClaimed(
  db: Db,
  subscription: { id: string; organizationId: string },
  checkoutId: string,
) {
  return upgradeClaimed(db, subscription, checkoutId);
}
