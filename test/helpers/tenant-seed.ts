// One organization holding a resource of every kind the seller API serves by id, made through the
// public API (and Polar's client for the purchase), for the tenancy test: another organization's
// token must find none of them.
import { Polar } from "@polar-sh/sdk";
import { sql } from "drizzle-orm";
import { SCOPES } from "../../server/lib/scopes.ts";
import { api, createSeller } from "./auth.ts";
import { uploadFile } from "./catalog.ts";
import { buy, eventually } from "./grants.ts";
import type { TestServer } from "./server.ts";
import { US_ADDRESS } from "./addresses.ts";

export interface Tenant {
  token: string;
  organizationId: string;
  customerSessionToken: string;
  /** Ids by the path a contract operation names them under, e.g. "products/{id}". */
  ids: Record<string, string>;
}

function ok(res: Awaited<ReturnType<typeof api>>, what: string) {
  if (res.status >= 300) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export async function seedTenant(t: TestServer, name: string): Promise<Tenant> {
  const seller = await createSeller(t.url, [...SCOPES]);
  const token = seller.token;
  const organizationId = seller.organization.id;
  const call = async (path: string, body?: unknown, method?: string): Promise<any> =>
    ok(
      await api(t.url, path, {
        token,
        ...(body === undefined ? {} : { body }),
        ...(method ? { method } : {}),
      }),
      `${method ?? (body === undefined ? "GET" : "POST")} ${path}`,
    );
  const polar = new Polar({ accessToken: token, serverURL: t.url });

  const meter = await call("/v1/meters/", {
    name: `${name} calls`,
    filter: { conjunction: "and", clauses: [] },
    aggregation: { func: "count" },
  });
  const credits = await call("/v1/benefits/", {
    type: "meter_credit",
    description: `${name} credits`,
    properties: { meter_id: meter.id, units: 100, rollover: false },
  });
  const benefit = await call("/v1/benefits/", {
    type: "license_keys",
    description: `${name} key`,
    properties: { activations: { limit: 3, enable_customer_admin: true } },
  });
  const product = await call("/v1/products/", {
    name: `${name} product`,
    prices: [{ amount_type: "fixed", price_amount: 1500, price_currency: "usd" }],
  });
  await call(`/v1/products/${product.id}/benefits`, { benefits: [benefit.id, credits.id] });
  const monthly = await call("/v1/products/", {
    name: `${name} plan`,
    recurring_interval: "month",
    prices: [{ amount_type: "fixed", price_amount: 900, price_currency: "usd" }],
  });
  const discount = await call("/v1/discounts/", {
    name: `${name} ten`,
    type: "percentage",
    basis_points: 1000,
    duration: "once",
  });
  const customer = await call("/v1/customers/", {
    email: `${name.toLowerCase()}-direct@example.com`,
    external_id: `${name}-ext-1`,
  });
  await call("/v1/events/ingest", { events: [{ name: "api_call", customer_id: customer.id }] });
  const member = await call(`/v1/customers/${customer.id}/members`, {
    email: `${name.toLowerCase()}-member@example.com`,
    external_id: `${name}-member-1`,
  });
  const field = await call("/v1/custom-fields/", {
    type: "text",
    slug: `${name.toLowerCase()}-note`,
    name: "Note",
    properties: {},
  });
  const link = await call("/v1/checkout-links/", {
    payment_processor: "stripe",
    products: [product.id],
  });
  const checkout = await call("/v1/checkouts/", { products: [product.id] });
  const endpoint = await call("/v1/webhooks/endpoints", {
    url: "https://example.com/hook",
    format: "raw",
    events: ["order.created"],
  });
  const dashboard = await call("/v1/metrics/dashboards", {
    name: `${name} dashboard`,
    metrics: ["revenue"],
  });
  const { file } = await uploadFile(t, token, Buffer.from(`${name} cover`));

  const order = await buy(polar, organizationId, product.id, `${name.toLowerCase()}@example.com`);
  const grant = await eventually(
    async () =>
      (
        await polar.benefitGrants.list({ organizationId, customerId: order.customerId })
      ).result.items.find((g) => g.isGranted && g.benefitId === benefit.id),
    20_000,
    `${name}'s license grant`,
  );
  const licenseKeyId = (grant.properties as { licenseKeyId: string }).licenseKeyId;
  const activation = await ok(
    await api(t.url, "/v1/customer-portal/license-keys/activate", {
      body: {
        key: (await polar.licenseKeys.get({ id: licenseKeyId })).key,
        organization_id: organizationId,
        label: "laptop",
      },
    }),
    "activate license key",
  );
  const subscriber = await buy(
    polar,
    organizationId,
    monthly.id,
    `${name.toLowerCase()}-sub@example.com`,
  );
  const subscription = (await call("/v1/subscriptions/")).items[0];
  const seatPlan = await call("/v1/products/", {
    name: `${name} team`,
    recurring_interval: "month",
    prices: [
      { amount_type: "seat_based", seat_tiers: { tiers: [{ min_seats: 1, price_per_seat: 500 }] } },
    ],
  });
  const seatCheckout = await call("/v1/checkouts/", { products: [seatPlan.id], seats: 3 });
  ok(
    await api(t.url, `/v1/checkouts/client/${seatCheckout.client_secret}/confirm`, {
      body: {
        customer_email: `${name.toLowerCase()}-team@example.com`,
        customer_billing_address: US_ADDRESS,
        confirmation_token_id: "sandbox_token_success",
      },
    }),
    "buy seats",
  );
  const seatSubscriptionId = (await call(`/v1/checkouts/${seatCheckout.id}`)).subscription_id;
  const seat = await call("/v1/customer-seats", {
    subscription_id: seatSubscriptionId,
    email: `${name.toLowerCase()}-seat@example.com`,
  });
  const card = (await call(`/v1/customers/${subscriber.customerId}/payment-methods`)).items[0];
  await call("/v1/refunds/", { order_id: order.id, reason: "other", amount: 100 });
  const payment = (await call("/v1/payments/")).items[0];
  const event = (await call(`/v1/events/?customer_id=${customer.id}`)).items[0];
  const eventType = (await call("/v1/event-types/")).items[0];
  const webhookEvent = await eventually(
    async () => (await call(`/v1/webhooks/deliveries?endpoint_id=${endpoint.id}`)).items[0],
    20_000,
    `${name}'s webhook delivery`,
  );
  const customerMeter = await eventually(
    async () => (await call("/v1/customer-meters/")).items[0],
    20_000,
    `${name}'s customer meter`,
  );
  const session = await call("/v1/customer-sessions/", { customer_id: order.customerId });
  // Draft orders (POST /v1/orders/, finalize) are on for both tenants, so a refusal is tenancy's.
  await call(
    `/v1/organizations/${organizationId}`,
    { feature_settings: { off_session_charges_enabled: true } },
    "PATCH",
  );
  const draft = await call("/v1/orders/", { customer_id: customer.id, product_id: product.id });
  // Disputes come only from a processor's events (Stripe); the sandbox's are written as one would be.
  const [dispute] = await t.server.database.rows<{ id: string }>(
    sql`insert into disputes (organization_id, customer_id, order_id, payment_id, processor,
          processor_dispute_id, status, amount, tax_amount, currency)
        select o.organization_id, o.customer_id, o.id, p.id, 'stripe', ${`dp_${name}`},
          'needs_response', p.amount, 0, p.currency
        from payments p join orders o on o.id = p.order_id where p.id = ${payment.id}
        returning id`,
  );
  // A balance comes from a plan change's credit (tested end to end elsewhere); written as one would be.
  const [wallet] = await t.server.database.rows<{ id: string }>(
    sql`with w as (
          insert into wallets (organization_id, customer_id, type, currency)
          values (${organizationId}, ${order.customerId}, 'billing', 'usd') returning id)
        insert into wallet_transactions (wallet_id, amount, reason, reference)
        select id, 250, 'proration_credit', 'seed' from w returning wallet_id as id`,
  );

  return {
    token,
    organizationId,
    customerSessionToken: session.token,
    ids: {
      "organizations/{id}": organizationId,
      "cli/logs/{organization_id}": organizationId,
      "subscriptions/{id}": subscription.id,
      "benefits/{id}": benefit.id,
      "webhooks/endpoints/{id}": endpoint.id,
      "webhooks/events/{id}": webhookEvent.webhook_event.id,
      "products/{id}": product.id,
      "orders/{id}": order.id,
      "draft-orders/{id}": draft.id,
      "checkouts/{id}": checkout.id,
      "files/{id}": file.id,
      "license-keys/{id}": licenseKeyId,
      "activations/{activation_id}": activation.id,
      "checkout-links/{id}": link.id,
      "custom-fields/{id}": field.id,
      "discounts/{id}": discount.id,
      "customers/{id}": customer.id,
      "customers/external/{external_id}": customer.external_id,
      "members/{member_id}": member.id,
      "members/{member_external_id}": member.external_id,
      "customer-portal/members/{id}": member.id,
      "events/{id}": event.id,
      "event-types/{id}": eventType.id,
      "meters/{id}": meter.id,
      "metrics/dashboards/{id}": dashboard.id,
      "customer-meters/{id}": customerMeter.id,
      "payments/{id}": payment.id,
      "disputes/{id}": dispute!.id,
      "benefit-grants/{id}": grant.id,
      "customer-portal/meters/{id}": customerMeter.id,
      "payment-methods/{id}": card.id,
      "customer-seats/{seat_id}": seat.id,
      "customer-portal/seats/{seat_id}": seat.id,
      "customer-portal/wallets/{id}": wallet!.id,
      /** Not a path parameter: the seat subscription, for creates that name it. */
      "seat-subscription": seatSubscriptionId,
    },
  };
}
