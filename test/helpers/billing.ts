// Recurring billing through the public API: a seller with a token, recurring products, a
// subscription bought through the checkout client endpoints, and the sandbox clock.
import { Polar } from "@polar-sh/sdk";
import type { Db } from "../../db/client.ts";
import { systemClock } from "../../server/lib/clock.ts";
import { createProcessor } from "../../server/modules/payments/factory.ts";
import type { BillingDeps } from "../../server/modules/subscriptions/deps.ts";
import { createTaxCalculator } from "../../server/modules/tax/calculator.ts";
import { sdkAddressIn } from "./addresses.ts";
import { api, createSeller } from "./auth.ts";
import type { TestServer } from "./server.ts";

export const BILLING_SCOPES = [
  "products:write",
  "checkouts:write",
  "subscriptions:write",
  "customers:write",
  "orders:read",
  "orders:write",
  "refunds:write",
  "discounts:write",
  "benefits:write",
  "custom_fields:write",
  "events:write",
  "meters:write",
  "webhooks:write",
  "organizations:write",
  "customer_sessions:write",
  "payments:read",
  "customer_meters:read",
];

export interface BillingSeller {
  token: string;
  organizationId: string;
  polar: Polar;
  call(path: string, init?: { method?: string; body?: unknown }): ReturnType<typeof api>;
}

export async function billingSeller(t: TestServer): Promise<BillingSeller> {
  const seller = await createSeller(t.url, BILLING_SCOPES);
  return {
    token: seller.token,
    organizationId: seller.organization.id,
    polar: new Polar({ accessToken: seller.token, serverURL: t.url }),
    call: (path, init = {}) => api(t.url, path, { ...init, token: seller.token }),
  };
}

/**
 * Sets fields of one group of the organization's settings (the contract takes a group whole);
 * answers the group as saved.
 */
export async function setOrganizationSettings(
  url: string,
  seller: { token: string; organizationId: string },
  group:
    | "subscription_settings"
    | "customer_email_settings"
    | "customer_portal_settings"
    | "order_settings",
  settings: Record<string, unknown>,
): Promise<Record<string, any>> {
  const path = `/v1/organizations/${seller.organizationId}`;
  const org = (await api(url, path, { token: seller.token })).body;
  const patched = await api(url, path, {
    token: seller.token,
    method: "PATCH",
    body: { [group]: { ...org[group], ...settings } },
  });
  if (patched.status !== 200)
    throw new Error(`${group}: ${patched.status} ${JSON.stringify(patched.body)}`);
  return patched.body[group];
}

/** Lets the organization use the `reset` proration behavior (off by default, as at Polar). */
export async function enableResetProration(
  url: string,
  seller: { token: string; organizationId: string },
): Promise<void> {
  const patched = await api(url, `/v1/organizations/${seller.organizationId}`, {
    token: seller.token,
    method: "PATCH",
    body: { feature_settings: { reset_proration_behavior_enabled: true } },
  });
  if (patched.status !== 200)
    throw new Error(`feature_settings: ${patched.status} ${JSON.stringify(patched.body)}`);
}

/** setOrganizationSettings for subscription_settings, e.g. allow_multiple_subscriptions. */
export function setSubscriptionSettings(
  url: string,
  seller: { token: string; organizationId: string },
  settings: Record<string, unknown>,
) {
  return setOrganizationSettings(url, seller, "subscription_settings", settings);
}

/** Buys the product through the checkout client endpoints; answers the checkout. */
export async function buy(
  s: BillingSeller,
  productId: string,
  token: string,
  email: string,
  country = "US",
  discountId?: string,
) {
  const checkout = await s.polar.checkouts.create({
    products: [productId],
    ...(discountId ? { discountId } : {}),
  });
  await s.polar.checkouts.clientUpdate({
    clientSecret: checkout.clientSecret,
    checkoutUpdatePublic: {
      customerEmail: email,
      customerBillingAddress: sdkAddressIn(country),
    },
  });
  await s.polar.checkouts.clientConfirm({
    clientSecret: checkout.clientSecret,
    checkoutConfirmStripe: { confirmationTokenId: token },
  });
  return checkout;
}

/** Buys the product through the checkout client endpoints; returns the subscription id. */
export async function subscribe(
  s: BillingSeller,
  productId: string,
  token = "sandbox_token_success",
  email = `buyer-${Math.random().toString(36).slice(2, 8)}@example.com`,
  country = "US",
  discountId?: string,
): Promise<{ subscriptionId: string; customerId: string; checkoutId: string }> {
  const checkout = await buy(s, productId, token, email, country, discountId);
  const done = await s.polar.checkouts.get({ id: checkout.id });
  const orders = await s.polar.orders.list({ checkoutId: checkout.id });
  const subscriptionId = orders.result.items[0]?.subscriptionId;
  if (!subscriptionId) throw new Error("the checkout made no subscription");
  return { subscriptionId, customerId: done.customerId!, checkoutId: checkout.id };
}

export async function advance(s: BillingSeller, body: { to?: string; seconds?: number }) {
  const res = await s.call("/v1/sandbox/clock/advance", { body });
  if (res.status !== 200) throw new Error(`advance: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { organization_id: string; now: string; offset_seconds: number };
}

export async function subscriptionOf(s: BillingSeller, id: string) {
  const res = await s.call(`/v1/subscriptions/${id}`);
  return res.body as Record<string, any>;
}

export async function ordersOf(s: BillingSeller, subscriptionId: string) {
  const res = await s.call(
    `/v1/orders/?subscription_id=${subscriptionId}&limit=100&sorting=created_at`,
  );
  return res.body.items as Record<string, any>[];
}

/** The billing engine's dependencies over `db` (another pool than the server's, to race it). */
export function billingDepsOn(t: TestServer, db: Db): BillingDeps {
  return {
    db,
    clock: systemClock,
    baseUrl: t.config.baseUrl,
    queue: t.server.queue,
    processor: createProcessor(t.config.payments, db),
    tax: createTaxCalculator(t.config.taxRates),
    mailer: null,
    retryDays: t.config.dunningRetryDays,
  };
}

/** `count` usage events named `name` for the customer, one an hour after `from`. */
export async function ingestHourly(
  s: BillingSeller,
  name: string,
  customerId: string,
  from: string,
  count: number,
): Promise<void> {
  const events = Array.from({ length: count }, (_, i) => ({
    name,
    customer_id: customerId,
    timestamp: new Date(Date.parse(from) + (i + 1) * 3_600_000).toISOString(),
  }));
  const res = await s.call("/v1/events/ingest", { body: { events } });
  if (res.status !== 200) throw new Error(`ingest: ${res.status} ${JSON.stringify(res.body)}`);
}

/** A sandbox confirmation token for a test card number, as the checkout page makes one. */
export async function sandboxCard(url: string, number: string): Promise<string> {
  const res = await api(url, "/v1/sandbox/confirmation-tokens", {
    body: { card: { number, exp_month: 12, exp_year: 2034, cvc: "123" } },
  });
  if (res.status !== 201)
    throw new Error(`card ${number}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}

/**
 * A recurring product of $100 a period plus $0.10 a call of `<name>_call` events (a count meter),
 * with meter cycles when asked and a meter_credit benefit of `credit` units when above 0.
 */
export async function meteredPlan(
  s: BillingSeller,
  opts: {
    name: string;
    interval: "month" | "year";
    meterInterval?: "month";
    credit: number;
    /** The fixed price a period, $100 unless told; 0: usage alone. */
    fixedAmount?: number;
  },
) {
  const fixedAmount = opts.fixedAmount ?? 10_000;
  const meter = await s.polar.meters.create({
    name: `${opts.name} calls`,
    filter: {
      conjunction: "and",
      clauses: [{ property: "name", operator: "eq", value: `${opts.name}_call` }],
    },
    aggregation: { func: "count" },
  });
  const res = await s.call("/v1/products/", {
    body: {
      name: opts.name,
      recurring_interval: opts.interval,
      ...(opts.meterInterval ? { meter_interval: opts.meterInterval } : {}),
      prices: [
        ...(fixedAmount > 0
          ? [{ amount_type: "fixed", price_amount: fixedAmount, price_currency: "usd" }]
          : []),
        {
          amount_type: "metered_unit",
          meter_id: meter.id,
          unit_amount: "10",
          price_currency: "usd",
        },
      ],
    },
  });
  if (res.status !== 201) throw new Error(`product: ${res.status} ${JSON.stringify(res.body)}`);
  const product = res.body as { id: string; prices: { id: string; amount_type: string }[] };
  if (opts.credit > 0) {
    const benefit = await s.polar.benefits.create({
      type: "meter_credit",
      description: `${opts.credit} ${opts.name} calls`,
      properties: { units: opts.credit, rollover: false, meterId: meter.id },
    });
    await s.polar.products.updateBenefits({
      id: product.id,
      productBenefitsUpdate: { benefits: [benefit.id] },
    });
  }
  const metered = product.prices.find((p) => p.amount_type === "metered_unit")!.id;
  return { product, meterId: meter.id, metered, event: `${opts.name}_call`, body: res.body };
}

/**
 * A product at one fixed price in USD, renewed every month unless `interval` says a year, with a
 * trial of `trialDays` when given.
 */
export function monthlyProduct(
  s: BillingSeller,
  name: string,
  amount: number,
  trialDays?: number,
  interval: "month" | "year" = "month",
) {
  return s.polar.products.create({
    name,
    recurringInterval: interval,
    ...(trialDays ? { trialInterval: "day" as const, trialIntervalCount: trialDays } : {}),
    prices: [{ amountType: "fixed", priceAmount: amount, priceCurrency: "usd" }],
  });
}

/** A monthly seat-based product in USD at `perSeat` a seat, from one seat; answers its id. */
export async function seatProduct(
  call: BillingSeller["call"],
  name: string,
  perSeat = 1000,
): Promise<string> {
  const res = await call("/v1/products/", {
    body: {
      name,
      recurring_interval: "month",
      prices: [
        {
          amount_type: "seat_based",
          price_currency: "usd",
          seat_tiers: { tiers: [{ min_seats: 1, price_per_seat: perSeat }] },
        },
      ],
    },
  });
  if (res.status !== 201)
    throw new Error(`seat product: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}

/** A monthly product with a free price, as a free tier. */
export function freeMonthlyProduct(s: BillingSeller, name = "Free") {
  return s.polar.products.create({
    name,
    recurringInterval: "month",
    prices: [{ amountType: "free" }],
  });
}

/** A new customer subscribed to the free `productId` by the seller (no checkout). */
export async function freeSubscription(
  s: BillingSeller,
  productId: string,
  customer: { email: string; externalId?: string },
  metadata: Record<string, string> = {},
) {
  const { id: customerId } = await s.polar.customers.create(customer);
  const res = await s.call("/v1/subscriptions/", {
    body: { product_id: productId, customer_id: customerId, metadata },
  });
  if (res.status !== 201)
    throw new Error(`free subscription: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.id as string, customerId, body: res.body as Record<string, any> };
}
