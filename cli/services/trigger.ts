// `till trigger <event>`: runs fixtures (real API requests on sandbox objects) whose changes fire the
// event, so a developer can exercise a webhook handler end to end. The product is found or created
// once per organization (the "till trigger product"), not on every run. Refuses on a production
// server.
import type { CommandContext } from "../lib/command.ts";
import { AbortError, EXIT } from "../lib/errors.ts";
import { type Fixture, pick, runFixtures, setPath } from "../lib/fixtures.ts";

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
const pay: Fixture[] = [
  {
    name: "payment",
    method: "post",
    path: "/v1/checkouts/client/${checkout:client_secret}/confirm",
    params: {
      customer_billing_address: { country: "US" },
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
// that declines renewals, marks past due) as a real month would.
const advanceClock = (org: string | undefined): Fixture => ({
  name: "clock",
  method: "post",
  path: "/v1/sandbox/clock/advance",
  params: { seconds: 32 * 86_400, ...(org ? { organization_id: org } : {}) },
});
const declinedRenewal: Recipe = (org) => [
  product(true, org),
  checkout(org),
  {
    ...pay[0]!,
    params: { ...pay[0]!.params, confirmation_token_id: "sandbox_token_renewal_declined" },
  },
  pay[1]!,
  advanceClock(org),
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
  "subscription.cycled": (org) => [...purchase(true)(org), advanceClock(org)],
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
  // A fresh product carrying a fresh benefit, bought: the grant follows the order (in the worker).
  "benefit_grant.created": (org) => [
    benefit(org),
    {
      ...product(false, org),
      find: undefined,
      params: { ...product(false, org).params, name: "till trigger product with benefit" },
    },
    {
      name: "attach",
      method: "post",
      path: "/v1/products/${product:id}/benefits",
      params: { benefits: ["${benefit:id}"] },
    },
    checkout(org),
    ...pay,
  ],
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

/** Short names for the paths people change most, as `--override price:amount=2000`. */
const ALIASES: Record<string, string> = {
  "price:amount": "product:prices.0.price_amount",
  "price:currency": "product:prices.0.price_currency",
};

export interface TriggerOptions {
  organizationId: string | undefined;
  overrides: string[];
  adds: string[];
}

export function applyChanges(fixtures: Fixture[], changes: string[], flag: string): void {
  for (const change of changes) {
    const eq = change.indexOf("=");
    if (eq <= 0)
      throw new AbortError(`${flag} expects [fixture:]path=value, got "${change}".`, {
        exitCode: EXIT.usage,
      });
    let target = change.slice(0, eq);
    const raw = change.slice(eq + 1);
    target = ALIASES[target] ?? target;
    const value: unknown = /^-?\d+(\.\d+)?$/.test(raw)
      ? Number(raw)
      : raw === "true" || raw === "false"
        ? raw === "true"
        : raw;
    const colon = target.indexOf(":");
    const name = colon > 0 ? target.slice(0, colon) : null;
    const path = colon > 0 ? target.slice(colon + 1) : target;
    // Without a fixture name the change applies to every creating request that has that field
    // (metadata.key goes on the product, the checkout, the customer).
    const top = path.split(".")[0]!;
    const targets = fixtures.filter((f) =>
      name ? f.name === name : f.method === "post" && top in f.params,
    );
    if (targets.length === 0)
      throw new AbortError(
        `${flag} ${change}: ${name ? `no fixture "${name}"` : `no request with "${top}"`} in this trigger.`,
        {
          hint: `Its fixtures: ${fixtures.map((f) => f.name).join(", ")}`,
          exitCode: EXIT.usage,
        },
      );
    for (const f of targets) setPath(f.params, path, value);
  }
}

export async function trigger(
  ctx: CommandContext,
  event: string,
  options: TriggerOptions,
): Promise<void> {
  const recipe = TRIGGERS[event];
  if (!recipe)
    throw new AbortError(`No trigger for "${event}".`, {
      hint: `Available (till trigger --list): ${Object.keys(TRIGGERS).join(", ")}`,
      exitCode: EXIT.usage,
    });
  const fixtures = structuredClone(recipe(options.organizationId));
  applyChanges(fixtures, options.overrides, "--override");
  applyChanges(fixtures, options.adds, "--add");
  const ready = await ctx.anonymousApi().get<{ mode?: string }>("/readyz");
  if (ready.mode !== "sandbox")
    throw new AbortError(
      `${ctx.session.server} runs in production mode; till trigger only makes test purchases in sandbox mode.`,
    );
  const answers = await runFixtures(ctx.api(), fixtures, (r) => {
    if (!ctx.out.json)
      ctx.out.note(
        ctx.out.dim(
          `${r.reused ? "reused" : `${r.method.toUpperCase()} ${r.path}`} → ${r.name} ${String(pick(r.response, "id") ?? "")}`.trim(),
        ),
      );
  });
  const id = (name: string, path = "id") =>
    answers.has(name) ? (pick(answers.get(name), path) as string | undefined) : undefined;
  const state = {
    event,
    productId: id("product"),
    checkoutId: id("checkout"),
    orderId: id("order", "items.0.id"),
    subscriptionId: id("order", "items.0.subscription_id") ?? undefined,
    customerId: id("customer") ?? id("order", "items.0.customer_id"),
  };
  ctx.out.result(
    Object.fromEntries(Object.entries(state).filter(([, v]) => v !== undefined && v !== null)),
    () =>
      `Triggered ${event}${state.orderId ? ` (order ${state.orderId})` : state.productId ? ` (product ${state.productId})` : ""}.`,
  );
}
