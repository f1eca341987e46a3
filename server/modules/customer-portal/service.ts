// The customer portal: what one customer, holding a customer session token, may see and do — read
// and edit their billing details, list their subscriptions and orders, cancel a subscription at
// period end or take the cancellation back, change its seats or plan, pause or resume it, and take
// back a scheduled change, as far as the organization's portal settings allow. Every read is scoped
// to the session's customer first; anything else is a 404. The seller's services do the work, so
// rules and webhooks stay in one place.
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
import { defaultPaymentMethod } from "../payments/queries.ts";
import { makeCardDefault } from "../payments/service.ts";
import {
  hasEnded,
  type SubscriptionOut,
  type SubscriptionUpdate,
} from "../subscriptions/schemas.ts";
import { getSubscription, listSubscriptions } from "../subscriptions/service.ts";
import { updateSubscription } from "../subscriptions/update.ts";
import { pricingOfAll } from "./pricing.ts";
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

/** The portal's customer, with the card renewals charge (the default, else the newest). */
async function meOut(
  deps: PortalDeps,
  ctx: CustomerContext,
  c: Parameters<typeof portalCustomerOut>[0],
) {
  const card = await defaultPaymentMethod(deps.db, scopeOfCustomer(ctx), ctx.customerId);
  return portalCustomerOut(c, card?.id ?? null);
}

export async function getMe(deps: PortalDeps, ctx: CustomerContext) {
  return meOut(deps, ctx, await getCustomer(deps, organizationView(ctx), { id: ctx.customerId }));
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
  const { default_payment_method_id: card, ...billing } = input;
  if (
    card &&
    !(await makeCardDefault(deps.db, scopeOfCustomer(ctx), ctx.customerId, card, deps.clock.now()))
  )
    throw RequestValidationError.field(
      ["body", "default_payment_method_id"],
      "Payment method not found.",
      "value_error",
    );
  return meOut(
    deps,
    ctx,
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
  const pricing = await pricingOfAll(deps.db, scopeOfCustomer(ctx), list.items);
  return {
    items: list.items.map((s) => portalSubscriptionOut(s, organization, pricing.get(s.id)!)),
    pagination: list.pagination,
  };
}

async function portalOut(
  deps: PortalDeps,
  ctx: CustomerContext,
  s: SubscriptionOut,
  organization: CustomerOrganizationOut,
) {
  const pricing = await pricingOfAll(deps.db, scopeOfCustomer(ctx), [s]);
  return portalSubscriptionOut(s, organization, pricing.get(s.id)!);
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
  return portalOut(deps, ctx, s, organization);
}

/** The portal setting each change needs, and Polar's refusal when the organization has it off. */
const REFUSALS = {
  updateSeats: () =>
    new ApiError(
      403,
      "UpdateSubscriptionSeatsNotAllowed",
      "Updating subscription seats is not allowed.",
    ),
  updatePlan: () =>
    new ApiError(
      403,
      "UpdateSubscriptionPlanNotAllowed",
      "Updating subscription plan is not allowed.",
    ),
  pause: () =>
    new ApiError(
      403,
      "PauseResumeNotAllowed",
      "Pausing or resuming a subscription is not allowed.",
    ),
};

async function requireSetting(
  deps: PortalDeps,
  ctx: CustomerContext,
  setting: keyof typeof REFUSALS,
) {
  const { portal } = await organizationSummary(deps.db, ctx.organizationId);
  if (!portal[setting]) throw REFUSALS[setting]();
}

/**
 * Resuming charges a new period at once, and taking a cancellation back means renewing at the
 * period end, both off-session: as Polar, a customer with nothing saved to charge is told to add
 * a card first, rather than the subscription going past due for want of one.
 */
async function requirePaymentMethod(
  deps: PortalDeps,
  ctx: CustomerContext,
  s: SubscriptionOut,
  action: "resuming" | "uncancelling",
) {
  if (s.prices.every((p) => p.amount_type === "free")) return;
  if (await defaultPaymentMethod(deps.db, scopeOfCustomer(ctx), ctx.customerId)) return;
  throw new ApiError(
    409,
    "PaymentMethodRequired",
    `Add a payment method before ${action} this subscription.`,
  );
}

/**
 * The seller's change a portal request stands for, once the organization's portal settings allow
 * it; null when it asks for nothing (a cancellation reason alone, without cancel or uncancel).
 */
async function sellerChange(
  deps: PortalDeps,
  ctx: CustomerContext,
  s: SubscriptionOut,
  input: PortalSubscriptionUpdate,
): Promise<SubscriptionUpdate | null> {
  // The organization's proration_behavior applies to seats and plan, as in Polar's portal.
  if ("seats" in input) {
    await requireSetting(deps, ctx, "updateSeats");
    return { seats: input.seats };
  }
  if ("product_id" in input) {
    await requireSetting(deps, ctx, "updatePlan");
    return { product_id: input.product_id };
  }
  if ("pause_at_period_end" in input) {
    await requireSetting(deps, ctx, "pause");
    return input;
  }
  if ("resume" in input) {
    await requireSetting(deps, ctx, "pause");
    if (s.status === "paused") await requirePaymentMethod(deps, ctx, s, "resuming");
    return input;
  }
  // Taking back a scheduled plan change is always the customer's to do.
  if ("pending_update" in input) return input;
  if (input.cancel_at_period_end === null || input.cancel_at_period_end === undefined) return null;
  if (!input.cancel_at_period_end && s.cancel_at_period_end && !hasEnded(s.status))
    await requirePaymentMethod(deps, ctx, s, "uncancelling");
  return {
    cancel_at_period_end: input.cancel_at_period_end,
    customer_cancellation_reason: input.cancellation_reason,
    customer_cancellation_comment: input.cancellation_comment,
  };
}

/**
 * PATCH: cancel at period end (with the customer's reason) or uncancel, change seats or plan,
 * pause at period end or resume, clear a pending update; DELETE is cancel. The seller's
 * updateSubscription does each, so its rules and webhooks hold here too.
 */
export async function updateMySubscription(
  deps: PortalBillingDeps,
  ctx: CustomerContext,
  id: string,
  input: PortalSubscriptionUpdate,
) {
  const mine = await mySubscription(deps, ctx, id);
  const change = await sellerChange(deps, ctx, mine, input);
  // A customer moves only to products the organization shows them, as in Polar's portal.
  const updated = change
    ? await updateSubscription(deps, organizationView(ctx), id, change, ["public"])
    : mine;
  return portalOut(deps, ctx, updated, await organizationOf(deps, ctx));
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
