// The customer portal: what one customer, holding a customer session token, may see and do — read
// and edit their billing details, list their subscriptions and orders, cancel a subscription at
// period end or take the cancellation back. Every read is scoped to the session's customer first;
// anything else is a 404. The seller's services do the work, so rules and webhooks stay in one place.
import type { Db } from "../../../db/client.ts";
import type { QueueHandle } from "../../jobs/queue.ts";
import type { Clock } from "../../lib/clock.ts";
import { organizationView, type CustomerContext } from "../../lib/customer-context.ts";
import { ApiError, RequestValidationError, ResourceNotFound } from "../../lib/errors.ts";
import type { Pagination } from "../../lib/pagination.ts";
import { customerSessionSummary } from "../customer-sessions/service.ts";
import { getCustomer, updateCustomerBilling } from "../customers/service.ts";
import type { DownloadDeps } from "../grants/downloads.ts";
import type { BillingDeps } from "../subscriptions/deps.ts";
import { getOrder, listCustomerOrders } from "../orders/service.ts";
import { organizationSummary } from "../organizations/service.ts";
import { scopeOfCustomer } from "../../lib/org-scope.ts";
import { serializeProductsByIds } from "../products/service.ts";
import { getSubscription, listSubscriptions } from "../subscriptions/service.ts";
import { updateSubscription } from "../subscriptions/update.ts";
import {
  customerOrganizationOut,
  portalCustomerOut,
  portalOrderOut,
  portalSubscriptionOut,
  type CustomerOrganizationOut,
  type PortalCustomerUpdate,
  type PortalOrderListQuery,
  type PortalSubscriptionListQuery,
  type PortalSubscriptionUpdate,
  type PortalAuthenticatedUserOut,
} from "./schemas.ts";

export interface PortalDeps {
  db: Db;
  clock: Clock;
  baseUrl: string;
  /** Canceling through the portal goes through the subscriptions service, which queues grant changes. */
  queue: QueueHandle | null;
  /** Signed download URLs for the downloadables list. */
  downloads: DownloadDeps;
}

/** Plan changes from the portal charge through the billing engine. */
export type PortalBillingDeps = PortalDeps & Partial<BillingDeps>;

/** GET customer-session/introspect — Polar's CustomerCustomerSession: when it ends, where "back" goes. */
export async function introspectSession(deps: PortalDeps, ctx: CustomerContext) {
  return customerSessionSummary(deps.db, ctx.sessionId);
}

async function organizationOf(
  deps: PortalDeps,
  ctx: CustomerContext,
): Promise<CustomerOrganizationOut> {
  return customerOrganizationOut(await organizationSummary(deps.db, ctx.organizationId));
}

export async function getMe(deps: PortalDeps, ctx: CustomerContext) {
  return portalCustomerOut(await getCustomer(deps, organizationView(ctx), { id: ctx.customerId }));
}

/** Polar's PortalAuthenticatedUser: who the session acts for (always a customer: no members yet). */
export async function getSessionUser(
  deps: PortalDeps,
  ctx: CustomerContext,
): Promise<PortalAuthenticatedUserOut> {
  const me = await getCustomer(deps, organizationView(ctx), { id: ctx.customerId });
  return {
    type: "customer",
    name: me.name,
    email: me.email,
    customer_id: me.id,
    member_id: null,
    role: null,
  };
}

export async function updateMe(
  deps: PortalDeps,
  ctx: CustomerContext,
  input: PortalCustomerUpdate,
) {
  // till keeps no saved payment methods yet, so none can be made the default.
  if (input.default_payment_method_id)
    throw RequestValidationError.field(
      ["body", "default_payment_method_id"],
      "Payment method not found.",
      "value_error",
    );
  const { default_payment_method_id: _pm, ...billing } = input;
  return portalCustomerOut(
    await updateCustomerBilling(deps, organizationView(ctx), ctx.customerId, billing),
  );
}

export async function listMySubscriptions(
  deps: PortalDeps,
  ctx: CustomerContext,
  q: PortalSubscriptionListQuery,
  page: Pagination,
) {
  const [list, organization] = await Promise.all([
    listSubscriptions(
      deps,
      organizationView(ctx),
      {
        customer_id: [ctx.customerId],
        product_id: q.product_id,
        active: q.active,
        sorting: q.sorting,
      },
      page,
    ),
    organizationOf(deps, ctx),
  ]);
  return {
    items: list.items.map((s) => portalSubscriptionOut(s, organization)),
    pagination: list.pagination,
  };
}

/** The seller's view of a subscription, only when it is this customer's; otherwise not found. */
async function mySubscription(deps: PortalDeps, ctx: CustomerContext, id: string) {
  const s = await getSubscription(deps, organizationView(ctx), id);
  if (s.customer_id !== ctx.customerId) throw new ResourceNotFound("Subscription not found.");
  return s;
}

export async function getMySubscription(deps: PortalDeps, ctx: CustomerContext, id: string) {
  const [s, organization] = await Promise.all([
    mySubscription(deps, ctx, id),
    organizationOf(deps, ctx),
  ]);
  return portalSubscriptionOut(s, organization);
}

/** PATCH: cancel at period end (with the customer's reason) or uncancel; DELETE is cancel. */
export async function updateMySubscription(
  deps: PortalBillingDeps,
  ctx: CustomerContext,
  id: string,
  input: PortalSubscriptionUpdate,
) {
  await mySubscription(deps, ctx, id);
  if ("seats" in input) {
    const { portal } = await organizationSummary(deps.db, ctx.organizationId);
    if (!portal.updateSeats)
      throw new ApiError(
        403,
        "UpdateSubscriptionSeatsNotAllowed",
        "Updating subscription seats is not allowed.",
      );
    // The buyer sizes their own team, with the organization's proration_behavior.
    const changed = await updateSubscription(deps, organizationView(ctx), id, {
      seats: input.seats,
    });
    return portalSubscriptionOut(changed, await organizationOf(deps, ctx));
  }
  if ("product_id" in input) {
    const { portal } = await organizationSummary(deps.db, ctx.organizationId);
    if (!portal.updatePlan)
      throw new ApiError(
        403,
        "UpdateSubscriptionPlanNotAllowed",
        "Updating subscription plan is not allowed.",
      );
    // The organization's proration_behavior applies, as in Polar's portal.
    const changed = await updateSubscription(deps, organizationView(ctx), id, {
      product_id: input.product_id,
    });
    return portalSubscriptionOut(changed, await organizationOf(deps, ctx));
  }
  // Only a reason or comment, without saying cancel or uncancel, changes nothing.
  if (input.cancel_at_period_end === null || input.cancel_at_period_end === undefined)
    return getMySubscription(deps, ctx, id);
  const updated = await updateSubscription(deps, organizationView(ctx), id, {
    cancel_at_period_end: input.cancel_at_period_end,
    customer_cancellation_reason: input.cancellation_reason,
    customer_cancellation_comment: input.cancellation_comment,
  });
  return portalSubscriptionOut(updated, await organizationOf(deps, ctx));
}

export async function cancelMySubscription(deps: PortalDeps, ctx: CustomerContext, id: string) {
  return updateMySubscription(deps, ctx, id, { cancel_at_period_end: true });
}

async function displayProducts(deps: PortalDeps, ctx: CustomerContext, ids: (string | null)[]) {
  const products = await serializeProductsByIds(deps.db, deps.baseUrl, scopeOfCustomer(ctx), [
    ...new Set(ids.flatMap((id) => (id ? [id] : []))),
  ]);
  return new Map(products.map((p) => [p.id, p]));
}

export async function listMyOrders(
  deps: PortalDeps,
  ctx: CustomerContext,
  q: PortalOrderListQuery,
  page: Pagination,
) {
  // Both billing types asked for is the same as no filter.
  const types = new Set(q.product_billing_type ?? []);
  const recurring = types.size === 1 ? types.has("recurring") : undefined;
  const list = await listCustomerOrders(
    deps,
    scopeOfCustomer(ctx),
    ctx.customerId,
    { productIds: q.product_id, subscriptionIds: q.subscription_id, recurring },
    q.sorting,
    page,
  );
  const [products, organization] = await Promise.all([
    displayProducts(
      deps,
      ctx,
      list.items.map((o) => o.product_id),
    ),
    organizationOf(deps, ctx),
  ]);
  return {
    items: list.items.map((o) =>
      portalOrderOut(o, o.product_id ? (products.get(o.product_id) ?? null) : null, organization),
    ),
    pagination: list.pagination,
  };
}

export async function getMyOrder(deps: PortalDeps, ctx: CustomerContext, id: string) {
  const o = await getOrder(deps, scopeOfCustomer(ctx), id);
  // A draft is the seller's until finalized: the customer does not see it yet.
  if (o.customer_id !== ctx.customerId || o.status === "draft")
    throw new ResourceNotFound("Order not found.");
  const [products, organization] = await Promise.all([
    displayProducts(deps, ctx, [o.product_id]),
    organizationOf(deps, ctx),
  ]);
  return portalOrderOut(
    o,
    o.product_id ? (products.get(o.product_id) ?? null) : null,
    organization,
  );
}
