// The orders module's read API for modules its service depends on (subscriptions' scheduling), so
// they need not import the service: no side effects.
import type { Db } from "../../../db/client.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import * as repo from "./repository.ts";

/** The subscription's meter-cycle order due a retry at `at`, under its scope. */
export function dueMeterOrderOfSubscription(
  db: Db,
  subscription: { id: string; organizationId: string },
  at: Date,
) {
  return repo.dueMeterOrderOfSubscription(db, scopeOfResource(subscription), subscription.id, at);
}

/** When each subscription's pending meter-cycle orders are next retried (the earliest). */
export function meterRetriesOf(db: Db, subscriptions: { id: string; organizationId: string }[]) {
  return repo.meterRetriesOf(
    db,
    scopeOfResource(...subscriptions),
    subscriptions.map((s) => s.id),
  );
}

/** When the subscription's pending (dunning) order is next tried; null when none waits. */
export async function pendingAttemptOf(
  db: Db,
  subscription: { id: string; organizationId: string },
): Promise<Date | null> {
  const order = await repo.pendingOrderOfSubscription(
    db,
    scopeOfResource(subscription),
    subscription.id,
  );
  return order?.nextPaymentAttemptAt ?? null;
}

/** Whether any order of the organization charged anything: its deletion would take money records. */
export function hasChargedOrders(db: Db, organizationId: string): Promise<boolean> {
  return repo.anyChargedOrder(db, scopeOfResource({ organizationId }));
}
