// The purchase a seat belongs to — a seat-based subscription or a paid one-time order — read within
// the caller's organizations (the seller) or the buyer's own purchases (the portal), named directly
// or by the checkout that made it. Anything else is a 404, never a hint that it exists elsewhere.
import type { Db } from "../../../db/client.ts";
import { ResourceNotFound } from "../../lib/errors.ts";
import { checkoutOutcome } from "../checkouts/queries.ts";
import { findOrderRow } from "../orders/service.ts";
import { type OrgScope, scopeOfResource } from "../../lib/org-scope.ts";
import { productsOf } from "../products/service.ts";
import { hasEnded } from "../subscriptions/schemas.ts";
import { subscriptionsByIds } from "../subscriptions/service.ts";
import { InvalidSeatAssignmentRequest, SeatNotAvailable } from "./errors.ts";
import type { Purchase } from "./repository.ts";

export interface PurchaseOfSeats {
  id: string;
  purchase: Purchase;
  organizationId: string;
  billingCustomerId: string;
  productId: string;
  productName: string;
  /** Seats bought; 0 when the purchase is not seat-based. */
  seats: number;
  /** Why no seat can be assigned now (an ended subscription, an unpaid order), or null. */
  closed: string | null;
}

/** Who may see a purchase: the seller's organizations, and for the portal only its buyer. */
export interface PurchaseScope {
  organizationIds: OrgScope;
  billingCustomerId?: string;
}

export interface PurchaseRef {
  subscription_id?: string | null;
  order_id?: string | null;
  checkout_id?: string | null;
}

export async function purchaseOf(
  db: Db,
  scope: PurchaseScope,
  ref: PurchaseRef,
): Promise<PurchaseOfSeats> {
  if ([ref.subscription_id, ref.order_id, ref.checkout_id].filter(Boolean).length !== 1)
    throw new InvalidSeatAssignmentRequest(
      "Exactly one of subscription_id, order_id or checkout_id is required.",
    );
  const mine = (org: string, customer: string | null) =>
    scope.organizationIds.includes(org) &&
    (scope.billingCustomerId === undefined || scope.billingCustomerId === customer);
  if (ref.checkout_id) {
    // As Polar: the checkout's subscription, else its order.
    const c = await checkoutOutcome(db, scope.organizationIds, ref.checkout_id);
    if (!c || !mine(c.organizationId, c.customerId))
      throw new ResourceNotFound("Checkout not found.");
    if (c.status !== "succeeded" || !(c.subscriptionId ?? c.orderId))
      throw new InvalidSeatAssignmentRequest(
        "The checkout has not completed: it has no purchase to assign seats of yet.",
      );
    return purchaseOf(
      db,
      scope,
      c.subscriptionId ? { subscription_id: c.subscriptionId } : { order_id: c.orderId },
    );
  }
  let found: Omit<PurchaseOfSeats, "productName"> | null = null;
  if (ref.subscription_id) {
    const [s] = await subscriptionsByIds(db, scope.organizationIds, [ref.subscription_id]);
    if (s && mine(s.organizationId, s.customerId))
      found = {
        id: s.id,
        purchase: { subscriptionId: s.id },
        organizationId: s.organizationId,
        billingCustomerId: s.customerId,
        productId: s.productId,
        seats: s.seats ?? 0,
        closed: hasEnded(s.status) ? "The subscription has ended." : null,
      };
    if (!found) throw new ResourceNotFound("Subscription not found.");
  } else {
    const o = await findOrderRow(db, scope.organizationIds, ref.order_id!);
    if (o?.productId && mine(o.organizationId, o.customerId))
      found = {
        id: o.id,
        purchase: { orderId: o.id },
        organizationId: o.organizationId,
        billingCustomerId: o.customerId,
        productId: o.productId,
        // A subscription's orders carry its seats, but the seats live on the subscription.
        seats: o.subscriptionId ? 0 : (o.seats ?? 0),
        closed: o.status === "paid" ? null : "The order must be paid before assigning seats.",
      };
    if (!found) throw new ResourceNotFound("Order not found.");
  }
  const [product] = await productsOf(db, scopeOfResource(found), [found.productId]);
  return { ...found, productName: product?.name ?? "" };
}

/** The purchase of an existing seat (its tenancy already checked through the seat). */
export function purchaseOfSeat(
  db: Db,
  seat: { organizationId: string; subscriptionId: string | null; orderId: string | null },
) {
  return purchaseOf(
    db,
    { organizationIds: scopeOfResource(seat) },
    { subscription_id: seat.subscriptionId, order_id: seat.orderId },
  );
}

export function assertSeatBased(p: PurchaseOfSeats): void {
  if (p.seats === 0) throw new SeatNotAvailable("This purchase is not seat-based.");
}
