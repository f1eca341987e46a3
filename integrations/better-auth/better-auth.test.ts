// till's better-auth plugin in a seller's app (better-auth on PGlite) against a running till server:
// sign-up creates the till customer, /checkout answers a checkout URL (slug or ids, referenceId in
// metadata, the user as external customer, embedOrigin checked), the customer endpoints read what
// the purchase made, usage is ingested, the customer follows user updates and deletion, and signed
// webhook deliveries reach their typed handlers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../test/helpers/auth.ts";
import { startSellerApp, sellerAppClient, type SellerApp } from "../../test/helpers/seller-app.ts";
import { startTestServer, type TestServer } from "../../test/helpers/server.ts";
import { newWebhookSecret, signDelivery } from "../../test/helpers/webhook-signature.ts";
import { till } from "./server.ts";
import type { WebhookPayload } from "./webhooks.ts";
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
let productId: string;
const secret = newWebhookSecret();
const received: { handler: string; type: string }[] = [];

beforeAll(async () => {
  t = await startTestServer({ worker: false });
  token = (await createSeller(t.url, SCOPES)).token;
  const product = await api(t.url, "/v1/products/", {
    token,
    body: {
      name: "Pro",
      recurring_interval: "month",
      prices: [{ amount_type: "fixed", price_amount: 1500, price_currency: "usd" }],
    },
  });
  productId = product.body.id;
  const record = (handler: string) => async (p: WebhookPayload<string>) =>
    void received.push({ handler, type: p.type });
  app = await startSellerApp(() => [
    till({
      serverUrl: t.url,
      accessToken: token,
      products: [{ productId, slug: "pro" }],
      createCustomerOnSignUp: true,
      authorizeReference: ({ referenceId }) => referenceId === "team-7" || referenceId === "team-9",
      successUrl: "/thanks?checkout={CHECKOUT_ID}",
      webhooks: {
        secret,
        onOrderPaid: record("onOrderPaid"),
        onSubscriptionActive: record("onSubscriptionActive"),
        onBenefitGrantCreated: record("onBenefitGrantCreated"),
        onPayload: record("onPayload"),
      },
    }),
  ]);
});
afterAll(async () => {
  await app?.close();
  await t?.stop();
});

async function signUp(email: string) {
  const browser = sellerAppClient(app.url);
  const res = await browser.call("/api/auth/sign-up/email", {
    body: { email, password: "correct horse battery", name: "Ada" },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { browser, userId: res.body.user.id as string };
}

async function checkoutCount(): Promise<number> {
  return (await api(t.url, "/v1/checkouts/?limit=1", { token })).body.pagination.total_count;
}

describe("till's better-auth plugin", () => {
  it("creates the till customer on sign-up, opens checkouts for the signed-in user, and reads back what was bought", async () => {
    const { browser, userId } = await signUp("ada@shop.example");
    const customer = await api(t.url, `/v1/customers/external/${userId}`, { token });
    expect(customer.status).toBe(200);
    expect(customer.body).toMatchObject({
      email: "ada@shop.example",
      name: "Ada",
      external_id: userId,
    });

    const res = await browser.call("/api/auth/checkout", {
      body: {
        slug: "pro",
        referenceId: "team-7",
        metadata: { plan: "pro" },
        redirect: false,
        embedOrigin: "https://shop.example",
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.redirect).toBe(false);
    expect(res.body.url).toMatch(new RegExp(`^${t.url}/checkout/till_c_`));
    const secretOf = new URL(res.body.url).pathname.split("/")[2]!;
    const checkout = await api(t.url, `/v1/checkouts/client/${secretOf}`);
    expect(checkout.body).toMatchObject({
      embed_origin: "https://shop.example",
      success_url: `${app.url}/thanks?checkout=${checkout.body.id}`,
      customer_email: "ada@shop.example",
    });
    const seller = await api(t.url, `/v1/checkouts/${checkout.body.id}`, { token });
    expect(seller.body).toMatchObject({
      external_customer_id: userId,
      metadata: { referenceId: "team-7", plan: "pro" },
      product_id: productId,
    });

    // One id as a string works as well as a list.
    const byId = await browser.call("/api/auth/checkout", { body: { products: productId } });
    expect(byId.status).toBe(200);
    expect(byId.body.redirect).toBe(true);

    // Buy it, then the customer endpoints see it.
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
    expect(state.status).toBe(200);
    expect(state.body.external_id).toBe(userId);
    expect(state.body.active_subscriptions).toHaveLength(1);
    const subs = await browser.call("/api/auth/customer/subscriptions/list");
    expect(subs.body.items.map((s: { product_id: string }) => s.product_id)).toEqual([productId]);
    const byReference = await browser.call(
      "/api/auth/customer/subscriptions/list?referenceId=team-7",
    );
    expect(byReference.body.items).toHaveLength(1);
    expect(
      (await browser.call("/api/auth/customer/subscriptions/list?referenceId=team-9")).body.items,
    ).toHaveLength(0);
    expect(
      (await browser.call("/api/auth/customer/subscriptions/list?referenceId=team-8")).status,
    ).toBe(403);
    const orders = await browser.call(
      "/api/auth/customer/orders/list?productBillingType=recurring",
    );
    expect(orders.body.items).toHaveLength(1);
    expect((await browser.call("/api/auth/customer/benefits/list")).body).toEqual({
      items: [],
      pagination: { total_count: 0, max_page: 0 },
    });
    const portal = await browser.call("/api/auth/customer/portal", { body: { redirect: false } });
    expect(portal.body.redirect).toBe(false);
    expect(portal.body.url).toMatch(
      new RegExp(`^${t.url}/portal\\?customer_session_token=till_cst_`),
    );
    expect((await browser.call("/api/auth/customer/portal")).body.redirect).toBe(true);
    const ingest = await browser.call("/api/auth/usage/ingest", {
      body: { event: "api_call", metadata: { tokens: 12 } },
    });
    expect(ingest.body).toMatchObject({ inserted: 1 });
    const events = await api(t.url, `/v1/events/?external_customer_id=${userId}`, { token });
    expect(events.body.items.map((e: { name: string }) => e.name)).toEqual(["api_call"]);
    expect((await browser.call("/api/auth/usage/meters/list")).body.items).toEqual([]);
  });

  it("refuses bad checkout input with the reason and creates nothing; signed-out callers get no customer endpoints", async () => {
    const { browser } = await signUp("bob@shop.example");
    const before = await checkoutCount();
    const badOrigin = await browser.call("/api/auth/checkout", {
      body: { slug: "pro", embedOrigin: "not a url" },
    });
    expect(badOrigin.status).toBe(400);
    const unknownSlug = await browser.call("/api/auth/checkout", { body: { slug: "enterprise" } });
    expect(unknownSlug).toMatchObject({
      status: 400,
      body: { message: 'No product with the slug "enterprise".' },
    });
    const unknownProduct = await browser.call("/api/auth/checkout", {
      body: { products: ["00000000-0000-4000-8000-000000000000"] },
    });
    expect(unknownProduct.status).toBe(400);
    expect(unknownProduct.body.message).toMatch(/product/i);
    expect((await browser.call("/api/auth/checkout", { body: {} })).status).toBe(400);
    expect(await checkoutCount()).toBe(before);

    const anonymous = sellerAppClient(app.url);
    for (const path of [
      "/customer/state",
      "/customer/subscriptions/list",
      "/customer/orders/list",
      "/customer/benefits/list",
      "/usage/meters/list",
    ]) {
      expect((await anonymous.call(`/api/auth${path}`)).status, path).toBe(401);
    }
    // A guest checkout (no session) is allowed unless authenticatedUsersOnly is set.
    expect((await anonymous.call("/api/auth/checkout", { body: { slug: "pro" } })).status).toBe(
      200,
    );
  });

  it("keeps the till customer in step when the user changes their name and deletes their account", async () => {
    const { browser, userId } = await signUp("carol@shop.example");
    expect(
      (await browser.call("/api/auth/update-user", { body: { name: "Carol Q" } })).status,
    ).toBe(200);
    await expect
      .poll(async () => (await api(t.url, `/v1/customers/external/${userId}`, { token })).body.name)
      .toBe("Carol Q");
    expect(
      (await browser.call("/api/auth/delete-user", { body: { password: "correct horse battery" } }))
        .status,
    ).toBe(200);
    await expect
      .poll(async () => (await api(t.url, `/v1/customers/external/${userId}`, { token })).status)
      .toBe(404);
  });

  it("links a guest customer with the same email instead of creating a second one", async () => {
    const guest = await api(t.url, "/v1/customers/", {
      token,
      body: { email: "dave@shop.example", name: "Dave" },
    });
    const { userId } = await signUp("dave@shop.example");
    const linked = await api(t.url, `/v1/customers/external/${userId}`, { token });
    expect(linked.body.id).toBe(guest.body.id);
  });

  it("verifies webhook deliveries and dispatches them to the typed handler and onPayload", async () => {
    received.length = 0;
    const post = (body: string, headers: Record<string, string>) =>
      sellerAppClient(app.url).call("/api/auth/till/webhooks", { body, headers });
    const body = JSON.stringify({
      type: "order.paid",
      timestamp: new Date().toISOString(),
      data: { id: "o1" },
    });
    const ok = await post(body, signDelivery(secret, body));
    expect(ok).toMatchObject({ status: 200, body: { received: true } });
    expect(received).toEqual([
      { handler: "onPayload", type: "order.paid" },
      { handler: "onOrderPaid", type: "order.paid" },
    ]);

    received.length = 0;
    const tampered = await post(body.replace("o1", "o2"), signDelivery(secret, body));
    expect(tampered.status).toBe(403);
    expect((await post(body, signDelivery(newWebhookSecret(), body))).status).toBe(403);
    expect((await post(body, {})).status).toBe(403);
    const stale = await post(body, signDelivery(secret, body, new Date(Date.now() - 3600_000)));
    expect(stale.status).toBe(403);
    expect(received).toEqual([]);

    const grant = JSON.stringify({
      type: "benefit_grant.created",
      timestamp: new Date().toISOString(),
      data: {},
    });
    await post(grant, signDelivery(secret, grant));
    const other = JSON.stringify({
      type: "checkout.created",
      timestamp: new Date().toISOString(),
      data: {},
    });
    await post(other, signDelivery(secret, other));
    expect(received).toEqual([
      { handler: "onPayload", type: "benefit_grant.created" },
      { handler: "onBenefitGrantCreated", type: "benefit_grant.created" },
      { handler: "onPayload", type: "checkout.created" },
    ]);
  });
});
