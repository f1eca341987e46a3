// The published @polar-sh/better-auth server plugin (1.8.4, with @polar-sh/sdk 0.47.1) pointed at
// a till server, unchanged but for the client's serverURL: sign-up creates the customer, checkout,
// customer state, portal session, usage ingest and the subscription/order/benefit/meter lists all
// answer without errors, and its webhook handler accepts every delivery till recorded for the
// purchase, signed as till signs them.
import { checkout, polar, portal, usage, webhooks } from "@polar-sh/better-auth";
import { Polar } from "@polar-sh/sdk";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../test/helpers/auth.ts";
import { sellerAppClient, startSellerApp, type SellerApp } from "../../test/helpers/seller-app.ts";
import { startTestServer, type TestServer } from "../../test/helpers/server.ts";
import { newWebhookSecret, signDelivery } from "../../test/helpers/webhook-signature.ts";
import { US_ADDRESS } from "../../test/helpers/addresses.ts";

const SCOPES = [
  "products:write",
  "customers:write",
  "checkouts:write",
  "customer_sessions:write",
  "subscriptions:read",
  "orders:read",
  "events:write",
];
let t: TestServer;
let app: SellerApp;
let token: string;
let organizationId: string;
let productId: string;
const secret = newWebhookSecret();
const handled: string[] = [];

beforeAll(async () => {
  t = await startTestServer({ worker: false });
  const seller = await createSeller(t.url, SCOPES);
  token = seller.token;
  organizationId = seller.organization.id;
  productId = (
    await api(t.url, "/v1/products/", {
      token,
      body: {
        name: "Pro",
        recurring_interval: "month",
        prices: [{ amount_type: "fixed", price_amount: 1500, price_currency: "usd" }],
      },
    })
  ).body.id;
  const client = new Polar({ accessToken: token, serverURL: t.url });
  app = await startSellerApp(() => [
    polar({
      client,
      createCustomerOnSignUp: true,
      use: [
        checkout({
          products: [{ productId, slug: "pro" }],
          successUrl: "/success?checkout_id={CHECKOUT_ID}",
          authenticatedUsersOnly: true,
        }),
        portal(),
        usage(),
        webhooks({
          secret,
          onPayload: async (p) => void handled.push(`payload:${p.type}`),
          onOrderPaid: async () => void handled.push("onOrderPaid"),
          onSubscriptionActive: async () => void handled.push("onSubscriptionActive"),
          onCustomerStateChanged: async () => void handled.push("onCustomerStateChanged"),
        }),
      ],
    }),
  ]);
});
afterAll(async () => {
  await app?.close();
  await t?.stop();
});

describe("@polar-sh/better-auth 1.8.4 against till", () => {
  it("runs the whole customer loop and accepts till's signed deliveries", async () => {
    const browser = sellerAppClient(app.url);
    const signUp = await browser.call("/api/auth/sign-up/email", {
      body: { email: "polar-user@shop.example", password: "correct horse battery", name: "Pat" },
    });
    expect(signUp.status, JSON.stringify(signUp.body)).toBe(200);
    const userId = signUp.body.user.id as string;
    // Its before-hook creates the customer, its after-hook sets external_id to the user id.
    expect((await api(t.url, `/v1/customers/external/${userId}`, { token })).body).toMatchObject({
      email: "polar-user@shop.example",
      name: "Pat",
    });

    const created = await browser.call("/api/auth/checkout", {
      body: {
        slug: "pro",
        referenceId: "org-1",
        redirect: false,
        embedOrigin: "https://shop.example",
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.url).toMatch(new RegExp(`^${t.url}/checkout/till_c_`));
    const secretOf = new URL(created.body.url).pathname.split("/")[2]!;
    await api(t.url, `/v1/checkouts/client/${secretOf}`, {
      method: "PATCH",
      body: { customer_billing_address: US_ADDRESS },
    });
    expect(
      (
        await api(t.url, `/v1/checkouts/client/${secretOf}/confirm`, {
          body: { confirmation_token_id: "sandbox_token_success" },
        })
      ).status,
    ).toBe(200);

    const state = await browser.call("/api/auth/customer/state");
    expect(state.status, JSON.stringify(state.body)).toBe(200);
    expect(state.body.externalId).toBe(userId);
    expect(state.body.activeSubscriptions).toHaveLength(1);

    const portalRes = await browser.call("/api/auth/customer/portal", {
      body: { redirect: false },
    });
    expect(portalRes.status, JSON.stringify(portalRes.body)).toBe(200);
    expect(portalRes.body.url).toMatch(
      new RegExp(`^${t.url}/portal\\?customer_session_token=till_cst_`),
    );

    const ingest = await browser.call("/api/auth/usage/ingest", {
      body: { event: "api_call", metadata: { tokens: 3 } },
    });
    expect(ingest.status, JSON.stringify(ingest.body)).toBe(200);
    expect(ingest.body.inserted).toBe(1);

    const subs = await browser.call("/api/auth/customer/subscriptions/list");
    expect(subs.status, JSON.stringify(subs.body)).toBe(200);
    expect(subs.body.result.items).toHaveLength(1);
    const byReference = await browser.call(
      "/api/auth/customer/subscriptions/list?referenceId=org-1",
    );
    expect(byReference.status, JSON.stringify(byReference.body)).toBe(200);
    expect(byReference.body.result.items).toHaveLength(1);
    const orders = await browser.call("/api/auth/customer/orders/list");
    expect(orders.status, JSON.stringify(orders.body)).toBe(200);
    expect(orders.body.result.items).toHaveLength(1);
    const benefits = await browser.call("/api/auth/customer/benefits/list");
    expect(benefits.status, JSON.stringify(benefits.body)).toBe(200);
    expect(benefits.body.result.items).toEqual([]);
    const meters = await browser.call("/api/auth/usage/meters/list");
    expect(meters.status, JSON.stringify(meters.body)).toBe(200);

    // Every event till recorded for this organization, delivered with till's two signatures.
    const events = await t.server.database.rows<{ type: string; payload: unknown }>(
      sql`select type, payload from webhook_events where organization_id = ${organizationId} order by seq`,
    );
    const types = events.map((e) => e.type);
    expect(types).toEqual(
      expect.arrayContaining([
        "customer.created",
        "checkout.created",
        "order.paid",
        "subscription.active",
        "customer.state_changed",
      ]),
    );
    for (const e of events) {
      const body = JSON.stringify(e.payload);
      const res = await sellerAppClient(app.url).call("/api/auth/polar/webhooks", {
        body,
        headers: signDelivery(secret, body),
      });
      expect(res.status, `${e.type}: ${JSON.stringify(res.body)}`).toBe(200);
    }
    expect(handled.filter((h) => h.startsWith("payload:"))).toHaveLength(events.length);
    expect(handled).toEqual(
      expect.arrayContaining(["onOrderPaid", "onSubscriptionActive", "onCustomerStateChanged"]),
    );

    // A delivery signed with another secret is refused.
    const body = JSON.stringify(events[0]!.payload);
    expect(
      (
        await sellerAppClient(app.url).call("/api/auth/polar/webhooks", {
          body,
          headers: signDelivery(newWebhookSecret(), body),
        })
      ).status,
    ).toBe(400);
  });
});
