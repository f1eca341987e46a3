// The customer portal's seats: the buyer manages the seats of their own purchases (assign by
// invitation only, revoke, resend), and a seat holder lists the subscriptions their claimed seats
// give them. Another customer's purchase or seat is a 404.
import type { CustomerContext } from "../../lib/customer-context.ts";
import { scopeOfCustomer } from "../../lib/org-scope.ts";
import { pageOf, type Pagination } from "../../lib/pagination.ts";
import { customerOrganizationOut, portalSubscriptionOut } from "../customer-portal/schemas.ts";
import { organizationSummary } from "../organizations/service.ts";
import { serializeSubscriptions, subscriptionsByIds } from "../subscriptions/service.ts";
import type { PurchaseScope } from "./purchase.ts";
import * as repo from "./repository.ts";
import type { PortalSeatAssign, SeatListQuery } from "./schemas.ts";
import {
  assignSeat,
  buyerSeat,
  listSeats,
  resendInvitation,
  revokeSeat,
  type SeatDeps,
} from "./service.ts";

const buyer = (c: CustomerContext): PurchaseScope => ({
  organizationIds: scopeOfCustomer(c),
  billingCustomerId: c.customerId,
});

export function listMySeats(deps: SeatDeps, c: CustomerContext, q: SeatListQuery) {
  return listSeats(deps, buyer(c), q);
}

export function assignMySeat(deps: SeatDeps, c: CustomerContext, input: PortalSeatAssign) {
  const { subscription_id, order_id, checkout_id, metadata, ...holder } = input;
  return assignSeat(
    deps,
    buyer(c),
    { subscription_id, order_id, checkout_id },
    { ...holder, metadata: metadata ?? null, immediateClaim: false },
  );
}

export function revokeMySeat(deps: SeatDeps, c: CustomerContext, id: string) {
  return revokeSeat(deps, buyerSeat(c), id);
}

export function resendMyInvitation(deps: SeatDeps, c: CustomerContext, id: string) {
  return resendInvitation(deps, buyerSeat(c), id);
}

export async function listClaimedSubscriptions(
  deps: SeatDeps,
  c: CustomerContext,
  page: Pagination,
) {
  const ids = await repo.claimedSubscriptionIds(deps.db, scopeOfCustomer(c), c.customerId);
  const rows = (await subscriptionsByIds(deps.db, scopeOfCustomer(c), ids)).sort(
    (a, b) => b.createdAt.getTime() - a.createdAt.getTime(),
  );
  const start = (page.page - 1) * page.limit;
  const [subscriptions, organization] = await Promise.all([
    serializeSubscriptions(deps.db, deps.baseUrl, rows.slice(start, start + page.limit)),
    organizationSummary(deps.db, c.organizationId),
  ]);
  const org = customerOrganizationOut(organization);
  return pageOf(
    subscriptions.map((s) => portalSubscriptionOut(s, org, null)),
    rows.length,
    page,
  );
}
