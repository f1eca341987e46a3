// When a subscription ends, its seats end with it, in the transaction that ends it: each live seat
// is revoked with customer_seat.revoked. The holders' benefits are revoked with the subscription's
// own grants, so nothing more is taken back here. Imports nothing from subscriptions, which calls it.
import type { Tx } from "../../../db/client.ts";
import type { Clock } from "../../lib/clock.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import { recordEvent } from "../webhooks/outbox.ts";
import * as repo from "./repository.ts";
import { seatOut } from "./schemas.ts";

export async function revokeSeatsOfSubscription(
  tx: Tx,
  clock: Clock,
  subscription: { id: string; organizationId: string },
): Promise<void> {
  const now = clock.now();
  const scope = scopeOfResource(subscription);
  for (const row of await repo.revokeLiveSeatsOfSubscription(tx, scope, subscription.id, now))
    await recordEvent(tx, clock, {
      organizationId: row.organizationId,
      type: "customer_seat.revoked",
      data: seatOut(row, null),
    });
}

/** The holders of a subscription's claimed seats (not the buyer), with the purchase's order. */
export async function claimedSeatHolders(
  tx: Tx,
  subscription: { id: string; organizationId: string },
): Promise<{ customerId: string; orderId: string | null }[]> {
  const seats = await repo.seatsOfPurchase(tx, scopeOfResource(subscription), {
    subscriptionId: subscription.id,
  });
  return seats.flatMap((s) =>
    s.status === "claimed" && s.customerId
      ? [{ customerId: s.customerId, orderId: s.orderId }]
      : [],
  );
}
