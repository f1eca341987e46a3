// What `till trigger` runs for each event type: fixtures of real API requests on sandbox objects
// whose changes fire the event. The product is found or created once per organization (the "till
// trigger product"), not on every run; time-driven events move the organization's sandbox clock.
import type { Fixture } from "../lib/fixtures.ts";

const product = (recurring: boolean, organizationId: string | undefined): Fixture => {
  const name = recurring ? "till trigger subscription" : "till trigger product";
  return {
    name: "product",
    method: "post",
    path: "/v1/products/",
    params: {
      name,
      recurring_interval: recurring ? "month" : null,
      prices: [{ amount_type: "fixed", price_amount: 1000, price_currency: "usd" }],
      metadata: { till_trigger: true },
      ...(organizationId ? { organization_id: organizationId } : {}),
    },
    find: {
      query: {
        query: "${.params:name}",
        is_archived: false,
        is_recurring: recurring,
        ...(organizationId ? { organization_id: organizationId } : {}),
      },
      match: [
        "name",
        "recurring_interval",
        "prices.0.amount_type",
        "prices.0.price_amount",
        "prices.0.price_currency",
        "metadata.till_trigger",
      ],
    },
  };
};

const checkout = (organizationId: string | undefined): Fixture => ({
  name: "checkout",
  method: "post",
  path: "/v1/checkouts/",
  params: {
    products: ["${product:id}"],
    customer_email: "trigger+${.random:hex}@example.com",
    metadata: { till_trigger: true },
    ...(organizationId ? { organization_id: organizationId } : {}),
  },
});
// The confirm answers the checkout, now confirmed: its step is named for that, not "payment".
const pay: Fixture[] = [
  {
    name: "confirmed_checkout",
    method: "post",
    path: "/v1/checkouts/client/${checkout:client_secret}/confirm",
    params: {
      // A paid checkout asks a US buyer for the state, street, city and postal code, as Polar.
      customer_billing_address: {
        country: "US",
        state: "US-NY",
        line1: "1 Main St",
        city: "New York",
        postal_code: "10001",
      },
      confirmation_token_id: "sandbox_token_success",
    },
  },
  {
    name: "order",
    method: "get",
    path: "/v1/orders/",
    params: { checkout_id: "${checkout:id}", page: 1, limit: 1 },
  },
];
const subscriptionUpdate = (name: string, params: object): Fixture => ({
  name,
  method: "patch",
  path: "/v1/subscriptions/${order:items.0.subscription_id}",
  params: params as Record<string, unknown>,
});

type Recipe = (org: string | undefined) => Fixture[];
const purchase =
  (recurring: boolean): Recipe =>
  (org) => [product(recurring, org), checkout(org), ...pay];

// Renewals come from the sandbox clock: advancing it past the period end renews (or, with a card
// that declines renewals, marks past due) as a real month would; two days expire a checkout.
const MONTH = 32 * 86_400;
const advanceClock = (org: string | undefined, seconds = MONTH, name = "clock"): Fixture => ({
  name,
  method: "post",
  path: "/v1/sandbox/clock/advance",
  params: { seconds, ...(org ? { organization_id: org } : {}) },
});
/**
 * The order the clock's renewal made: the subscription's newest, which must be its cycle order (a
 * renewal that did not happen fails here rather than naming the purchase's order instead).
 */
const cycleOrder: Fixture = {
  name: "cycle_order",
  method: "get",
  path: "/v1/orders/",
  params: {
    subscription_id: "${order:items.0.subscription_id}",
    sorting: "-created_at",
    page: 1,
    limit: 1,
  },
  wait_for: { path: "items.0.billing_reason", equals: "subscription_cycle", timeout_ms: 10_000 },
};
const declinedRenewal: Recipe = (org) => [
  product(true, org),
  checkout(org),
  {
    ...pay[0]!,
    params: { ...pay[0]!.params, confirmation_token_id: "sandbox_token_renewal_declined" },
  },
  pay[1]!,
  advanceClock(org),
  cycleOrder,
];

/** Which fixtures fire each event type. */
export const TRIGGERS: Record<string, Recipe> = {
  "product.created": (org) => [{ ...product(false, org), find: undefined }],
  "product.updated": (org) => [
    product(false, org),
    {
      name: "update",
      method: "patch",
      path: "/v1/products/${product:id}",
      params: { description: "updated by till trigger ${.random:hex}" },
    },
  ],
  "customer.created": (org) => [customer(org)],
  "checkout.created": (org) => [product(false, org), checkout(org)],
  "checkout.updated": purchase(false),
  "order.created": purchase(false),
  "order.paid": purchase(false),
  "customer.state_changed": purchase(true),
  "subscription.created": purchase(true),
  "subscription.active": purchase(true),
  "subscription.updated": (org) => [
    ...purchase(true)(org),
    subscriptionUpdate("cancel", { cancel_at_period_end: true }),
  ],
  "subscription.canceled": (org) => [
    ...purchase(true)(org),
    subscriptionUpdate("cancel", { cancel_at_period_end: true }),
  ],
  "subscription.uncanceled": (org) => [
    ...purchase(true)(org),
    subscriptionUpdate("cancel", { cancel_at_period_end: true }),
    subscriptionUpdate("uncancel", { cancel_at_period_end: false }),
  ],
  "subscription.cycled": (org) => [...purchase(true)(org), advanceClock(org), cycleOrder],
  "subscription.past_due": declinedRenewal,
  // Canceled at period end, then the sandbox clock passes the end: revoked as in a real month.
  "subscription.revoked": (org) => [
    ...purchase(true)(org),
    subscriptionUpdate("cancel", { cancel_at_period_end: true }),
    advanceClock(org),
  ],
};

const customer = (org: string | undefined): Fixture => ({
  name: "customer",
  method: "post",
  path: "/v1/customers/",
  params: {
    type: "individual",
    email: "trigger+${.random:hex}@example.com",
    metadata: { till_trigger: true },
    ...(org ? { organization_id: org } : {}),
  },
});
/** A member of the customer made just before (its team's first). */
const member: Fixture = {
  name: "member",
  method: "post",
  path: "/v1/customers/${customer:id}/members",
  params: { email: "member+${.random:hex}@example.com", name: "till trigger member" },
};
const benefit = (org: string | undefined): Fixture => ({
  name: "benefit",
  method: "post",
  path: "/v1/benefits/",
  params: {
    type: "custom",
    description: "till trigger benefit",
    properties: { note: "Granted by till trigger" },
    ...(org ? { organization_id: org } : {}),
  },
});
const refund: Fixture = {
  name: "refund",
  method: "post",
  path: "/v1/refunds/",
  params: { order_id: "${order:items.0.id}", amount: 100, reason: "customer_request" },
};

/** More events, from the same building blocks. */
const MORE: Record<string, Recipe> = {
  "customer.updated": (org) => [
    customer(org),
    {
      name: "update",
      method: "patch",
      path: "/v1/customers/${customer:id}",
      params: { name: "Updated by till trigger" },
    },
  ],
  "customer.deleted": (org) => [
    customer(org),
    { name: "delete", method: "delete", path: "/v1/customers/${customer:id}", params: {} },
  ],
  "member.created": (org) => [customer(org), member],
  "member.updated": (org) => [
    customer(org),
    member,
    {
      name: "update",
      method: "patch",
      path: "/v1/customers/${customer:id}/members/${member:id}",
      params: { name: "Updated by till trigger" },
    },
  ],
  "member.deleted": (org) => [
    customer(org),
    member,
    {
      name: "delete",
      method: "delete",
      path: "/v1/customers/${customer:id}/members/${member:id}",
      params: {},
    },
  ],
  "benefit.created": (org) => [benefit(org)],
  "benefit.updated": (org) => [
    benefit(org),
    {
      name: "update",
      method: "patch",
      path: "/v1/benefits/${benefit:id}",
      params: { type: "custom", description: "till trigger benefit (updated)" },
    },
  ],
  // The grant follows the order (in the worker).
  "benefit_grant.created": (org) => purchaseWithBenefit(false)(org),
  "refund.created": (org) => [...purchase(false)(org), refund],
  "order.refunded": (org) => [...purchase(false)(org), refund],
  "order.updated": (org) => [...purchase(false)(org), refund],
  "organization.updated": (org) => [
    {
      name: "organizations",
      method: "get",
      path: "/v1/organizations/",
      params: { limit: 1 },
    },
    {
      name: "organization",
      method: "patch",
      path: org ? `/v1/organizations/${org}` : "/v1/organizations/${organizations:items.0.id}",
      params: { website: "https://till-trigger-${.random:hex}.example.com" },
    },
  ],
};
Object.assign(TRIGGERS, MORE);

const discount = (org: string | undefined): Fixture => ({
  name: "discount",
  method: "post",
  path: "/v1/discounts/",
  params: {
    name: "till trigger ${.random:hex}",
    type: "percentage",
    basis_points: 1000,
    duration: "once",
    metadata: { till_trigger: true },
    ...(org ? { organization_id: org } : {}),
  },
});

/** A fresh product (one-time or monthly) carrying a fresh benefit, bought. */
const purchaseWithBenefit =
  (recurring: boolean, withBenefit = benefit): Recipe =>
  (org) => [
    withBenefit(org),
    {
      ...product(recurring, org),
      find: undefined,
      params: { ...product(recurring, org).params, name: "till trigger product with benefit" },
    },
    {
      name: "attach",
      method: "post",
      path: "/v1/products/${product:id}/benefits",
      params: { benefits: ["${benefit:id}"] },
    },
    checkout(org),
    ...pay,
  ];

// A GitHub repository for a buyer who has not linked a GitHub account: the grant attempt fails
// and the grant is updated with the error, as a handler must expect.
const unlinkedGitHub = (org: string | undefined): Fixture => ({
  ...benefit(org),
  params: {
    type: "github_repository",
    description: "till trigger repository",
    properties: {
      repository_owner: "till-trigger",
      repository_name: "example",
      permission: "pull",
    },
    ...(org ? { organization_id: org } : {}),
  },
});

/** Waits until the worker has granted the purchase's benefit. */
const granted: Fixture = {
  name: "grant",
  method: "get",
  path: "/v1/benefit-grants/",
  params: { customer_id: "${order:items.0.customer_id}", is_granted: true, limit: 1 },
  wait_for: { path: "items.0.is_granted", equals: true },
};

const pause = subscriptionUpdate("pause", { pause_at_period_end: true });

/** Event types whose recipes need a benefit grant, a discount or the clock. */
const LATER: Record<string, Recipe> = {
  "checkout.expired": (org) => [product(false, org), checkout(org), advanceClock(org, 2 * 86_400)],
  "discount.created": (org) => [discount(org)],
  "discount.updated": (org) => [
    discount(org),
    {
      name: "update",
      method: "patch",
      path: "/v1/discounts/${discount:id}",
      params: { name: "till trigger (updated) ${.random:hex}" },
    },
  ],
  "discount.deleted": (org) => [
    discount(org),
    { name: "delete", method: "delete", path: "/v1/discounts/${discount:id}", params: {} },
  ],
  "refund.updated": (org) => [...purchase(false)(org), refund],
  "subscription.paused": (org) => [...purchase(true)(org), pause, advanceClock(org)],
  "subscription.resumed": (org) => [
    ...purchase(true)(org),
    pause,
    advanceClock(org),
    subscriptionUpdate("resume", { resume: true }),
  ],
  "benefit_grant.cycled": (org) => [...purchaseWithBenefit(true)(org), granted, advanceClock(org)],
  "benefit_grant.updated": purchaseWithBenefit(false, unlinkedGitHub),
  "benefit_grant.revoked": (org) => [
    ...purchaseWithBenefit(false)(org),
    granted,
    { ...refund, params: { ...refund.params, revoke_benefits: true } },
  ],
};
Object.assign(TRIGGERS, LATER);
