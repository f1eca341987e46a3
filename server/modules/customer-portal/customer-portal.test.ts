// Customer sessions and the customer portal API: a seller opens a session for one customer; its
// till_cst_ token reads and manages only that customer's subscriptions and orders (another
// customer's ids are 404), is refused on seller routes, and expires after an hour. Polar's client
// parses every portal answer.
import { Polar } from "@polar-sh/sdk";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { TestClock } from "../../lib/clock.ts";

const SCOPES = [
  "products:write",
  "checkouts:write",
  "subscriptions:write",
  "customers:write",
  "orders:read",
  "customer_sessions:write",
];
const clock = new TestClock();
let t: TestServer;
let polar: Polar;
let slug: string;
let token: string;
let productId: string;
let oneTimeProductId: string;
let ada: { customerId: string; subscriptionId: string; orderId: string };
let bob: { customerId: string; subscriptionId: string; orderId: string };

async function buy(product: string, email: string, externalId: string) {
  const checkout = await polar.checkouts.create({
    products: [product],
    externalCustomerId: externalId,
  });
  await polar.checkouts.clientUpdate({
    clientSecret: checkout.clientSecret,
    checkoutUpdatePublic: {
      customerEmail: email,
      customerName: email.split("@")[0]!,
      customerBillingAddress: { country: "US" },
    },
  });
  await polar.checkouts.clientConfirm({
    clientSecret: checkout.clientSecret,
    checkoutConfirmStripe: { confirmationTokenId: "sandbox_token_success" },
  });
  const orders = await polar.orders.list({ checkoutId: checkout.id });
  const order = orders.result.items[0]!;
  return {
    customerId: order.customerId,
    subscriptionId: order.subscriptionId ?? "",
    orderId: order.id,
  };
}

async function session(body: Record<string, unknown>) {
  const res = await api(t.url, "/v1/customer-sessions/", { token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as {
    token: string;
    customer_portal_url: string;
    expires_at: string;
    customer_id: string;
  };
}

async function sessionCount(): Promise<number> {
  const [row] = await t.server.database.rows<{ n: number }>(
    sql`select count(*)::int as n from customer_sessions`,
  );
  return Number(row!.n);
}

beforeAll(async () => {
  t = await startTestServer({ clock, worker: false });
  const seller = await createSeller(t.url, SCOPES);
  slug = seller.organization.slug;
  token = seller.token;
  polar = new Polar({ accessToken: token, serverURL: t.url });
  productId = (
    await polar.products.create({
      name: "Pro",
      recurringInterval: "month",
      prices: [{ amountType: "fixed", priceAmount: 1500, priceCurrency: "usd" }],
    })
  ).id;
  oneTimeProductId = (
    await polar.products.create({
      name: "Ebook",
      prices: [{ amountType: "fixed", priceAmount: 900, priceCurrency: "usd" }],
    })
  ).id;
  ada = await buy(productId, "ada@example.com", "user-ada");
  await buy(oneTimeProductId, "ada@example.com", "user-ada");
  bob = await buy(productId, "bob@example.com", "user-bob");
});
afterAll(() => t.stop());

describe("POST /v1/customer-sessions/", () => {
  it("opens a one-hour session by customer id or external id, answered as Polar's CustomerSession", async () => {
    const before = clock.now().getTime();
    const byId = await session({
      customer_id: ada.customerId,
      return_url: "https://shop.example/account",
    });
    expect(Object.keys(byId).sort()).toEqual([
      "created_at",
      "customer",
      "customer_id",
      "customer_portal_url",
      "expires_at",
      "id",
      "modified_at",
      "return_url",
      "token",
    ]);
    expect(byId).toMatchObject({
      customer_id: ada.customerId,
      return_url: "https://shop.example/account",
      customer: { id: ada.customerId, email: "ada@example.com", external_id: "user-ada" },
    });
    expect(byId.token).toMatch(/^till_cst_[A-Za-z0-9_-]{43}$/);
    expect(byId.customer_portal_url).toBe(`${t.url}/portal?customer_session_token=${byId.token}`);
    const ttl = new Date(byId.expires_at).getTime() - before;
    expect(ttl).toBeGreaterThanOrEqual(3_590_000);
    expect(ttl).toBeLessThanOrEqual(3_610_000);
    // Stored hashed: the token itself appears nowhere in the table.
    const [row] = await t.server.database.rows<{ token_hash: string }>(
      sql`select token_hash from customer_sessions where customer_id = ${ada.customerId} limit 1`,
    );
    expect(row!.token_hash).toMatch(/^[0-9a-f]{64}$/);

    const byExternal = await polar.customerSessions.create({ externalCustomerId: "user-bob" });
    expect(byExternal.customerId).toBe(bob.customerId);
    expect(byExternal.returnUrl).toBeNull();
  });

  it("refuses bad input with 422, unknown or foreign customers with 404, a token without the scope with 403, and writes nothing", async () => {
    const n = await sessionCount();
    const missing = await api(t.url, "/v1/customer-sessions/", {
      token,
      body: { return_url: "https://x.example" },
    });
    expect(missing.status).toBe(422);
    expect(
      (await api(t.url, "/v1/customer-sessions/", { token, body: { customer_id: "nope" } })).status,
    ).toBe(422);
    expect(
      (
        await api(t.url, "/v1/customer-sessions/", {
          token,
          body: { customer_id: ada.customerId, return_url: "not a url" },
        })
      ).status,
    ).toBe(422);
    const unknown = await api(t.url, "/v1/customer-sessions/", {
      token,
      body: { external_customer_id: "nobody" },
    });
    expect(unknown).toMatchObject({ status: 404, body: { error: "ResourceNotFound" } });
    const other = await createSeller(t.url, ["customer_sessions:write"]);
    expect(
      (
        await api(t.url, "/v1/customer-sessions/", {
          token: other.token,
          body: { customer_id: ada.customerId },
        })
      ).status,
    ).toBe(404);
    const readOnly = await createSeller(t.url, ["customers:read"]);
    expect(
      (
        await api(t.url, "/v1/customer-sessions/", {
          token: readOnly.token,
          body: { customer_id: ada.customerId },
        })
      ).status,
    ).toBe(403);
    expect(await sessionCount()).toBe(n);
  });
});

describe("/v1/customer-portal", () => {
  it("is closed to anonymous callers, seller tokens and session cookies; a customer token is refused on seller routes", async () => {
    const { token: cst } = await session({ customer_id: ada.customerId });
    expect((await api(t.url, "/v1/customer-portal/customers/me")).status).toBe(401);
    expect((await api(t.url, "/v1/customer-portal/customers/me", { token })).status).toBe(401);
    expect(
      (await api(t.url, "/v1/customer-portal/customers/me", { token: "till_cst_forged" })).status,
    ).toBe(401);
    for (const path of [
      "/v1/subscriptions/",
      "/v1/customers/",
      `/v1/orders/${ada.orderId}`,
      "/v1/organizations/",
    ]) {
      const res = await api(t.url, path, { token: cst });
      expect(res.status, path).toBe(401);
    }
  });

  it("shows an organization and its public products by slug, without a token", async () => {
    const hidden = await polar.products.create({
      name: "Internal",
      visibility: "private",
      prices: [{ amountType: "fixed", priceAmount: 100, priceCurrency: "usd" }],
    });
    const anonymous = new Polar({ serverURL: t.url });
    const data = await anonymous.customerPortal.organizations.get({ slug });
    expect(data.organization).toMatchObject({ slug });
    expect(data.products.map((p) => p.name).sort()).toEqual(["Ebook", "Pro"]);
    expect(data.products.map((p) => p.id)).not.toContain(hidden.id);
    const missing = await api(t.url, "/v1/customer-portal/organizations/no-such-shop");
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe("ResourceNotFound");
  });

  it("tells who the session acts for", async () => {
    const { token: cst } = await session({ customer_id: ada.customerId });
    const user = await polar.customerPortal.customerSession.getAuthenticatedUser({
      customerSession: cst,
    });
    expect(user).toEqual({
      type: "customer",
      name: expect.anything(),
      email: "ada@example.com",
      customerId: ada.customerId,
      memberId: null,
      role: null,
    });
    expect((await api(t.url, "/v1/customer-portal/customer-session/user")).status).toBe(401);
  });

  it("shows and edits the customer's own billing details", async () => {
    const { token: cst } = await session({ customer_id: ada.customerId });
    const me = await api(t.url, "/v1/customer-portal/customers/me", { token: cst });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      id: ada.customerId,
      email: "ada@example.com",
      oauth_accounts: {},
      default_payment_method_id: null,
    });
    const patched = await api(t.url, "/v1/customer-portal/customers/me", {
      token: cst,
      method: "PATCH",
      body: {
        billing_name: "Ada Lovelace Ltd",
        billing_address: { country: "GB", city: "London" },
      },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      billing_name: "Ada Lovelace Ltd",
      billing_address: { country: "GB", city: "London" },
    });
    const bad = await api(t.url, "/v1/customer-portal/customers/me", {
      token: cst,
      method: "PATCH",
      body: { billing_address: { country: "XX" } },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(["body", "billing_address", "country"]);
    const again = await polar.customerPortal.customers.get({ customerSession: cst });
    expect(again.billingAddress?.country).toBe("GB");
  });

  it("lists only the customer's own subscriptions and orders, and another customer's ids are 404", async () => {
    const { token: cst } = await session({ customer_id: ada.customerId });
    const subs = await polar.customerPortal.subscriptions.list({ customerSession: cst }, {});
    expect(subs.result.items.map((s) => s.id)).toEqual([ada.subscriptionId]);
    expect(subs.result.items[0]!.product.organization.name).toBe("Acme");
    const raw = await api(t.url, "/v1/customer-portal/subscriptions/", { token: cst });
    expect(raw.body.items[0]).not.toHaveProperty("customer");
    expect(raw.body.items[0]).not.toHaveProperty("metadata");

    const orders = await polar.customerPortal.orders.list({ customerSession: cst }, {});
    expect(orders.result.items).toHaveLength(2);
    const oneTime = await polar.customerPortal.orders.list(
      { customerSession: cst },
      { productBillingType: "one_time" },
    );
    expect(oneTime.result.items.map((o) => o.productId)).toEqual([oneTimeProductId]);
    expect(
      (await polar.customerPortal.orders.get({ customerSession: cst }, { id: ada.orderId })).id,
    ).toBe(ada.orderId);

    for (const path of [
      `/v1/customer-portal/subscriptions/${bob.subscriptionId}`,
      `/v1/customer-portal/orders/${bob.orderId}`,
    ]) {
      const res = await api(t.url, path, { token: cst });
      expect(res, path).toMatchObject({ status: 404, body: { error: "ResourceNotFound" } });
    }
    for (const [method, body] of [
      ["PATCH", { cancel_at_period_end: true }],
      ["DELETE", undefined],
    ] as const) {
      const res = await api(t.url, `/v1/customer-portal/subscriptions/${bob.subscriptionId}`, {
        token: cst,
        method,
        ...(body ? { body } : {}),
      });
      expect(res.status).toBe(404);
    }
    const bobs = await polar.subscriptions.get({ id: bob.subscriptionId });
    expect(bobs.cancelAtPeriodEnd).toBe(false);
  });

  it("cancels at period end with a reason, refuses a second cancel, uncancels, and cancels again by DELETE", async () => {
    const { token: cst } = await session({ customer_id: ada.customerId });
    const path = `/v1/customer-portal/subscriptions/${ada.subscriptionId}`;
    const canceled = await polar.customerPortal.subscriptions.update(
      { customerSession: cst },
      {
        id: ada.subscriptionId,
        customerSubscriptionUpdate: {
          cancelAtPeriodEnd: true,
          cancellationReason: "too_expensive",
          cancellationComment: "pricey",
        },
      },
    );
    expect(canceled).toMatchObject({
      status: "active",
      cancelAtPeriodEnd: true,
      customerCancellationReason: "too_expensive",
      customerCancellationComment: "pricey",
    });
    expect(
      (
        await api(t.url, path, {
          token: cst,
          method: "PATCH",
          body: { cancel_at_period_end: true },
        })
      ).body.error,
    ).toBe("AlreadyCanceledSubscription");
    expect(
      (
        await api(t.url, path, {
          token: cst,
          method: "PATCH",
          body: { cancellation_reason: "bored" },
        })
      ).status,
    ).toBe(422);
    expect(
      (await api(t.url, path, { token: cst, method: "PATCH", body: { product_id: productId } }))
        .status,
    ).toBe(403);
    const uncanceled = await api(t.url, path, {
      token: cst,
      method: "PATCH",
      body: { cancel_at_period_end: false },
    });
    expect(uncanceled.body).toMatchObject({
      cancel_at_period_end: false,
      ends_at: null,
      customer_cancellation_reason: null,
    });
    const deleted = await polar.customerPortal.subscriptions.cancel(
      { customerSession: cst },
      { id: ada.subscriptionId },
    );
    expect(deleted.cancelAtPeriodEnd).toBe(true);
    // The seller sees the same change, with the webhook events the seller API would record.
    expect((await polar.subscriptions.get({ id: ada.subscriptionId })).cancelAtPeriodEnd).toBe(
      true,
    );
    const events = await t.server.database.rows<{ type: string }>(
      sql`select type from webhook_events where payload->'data'->>'id' = ${ada.subscriptionId} order by seq desc limit 2`,
    );
    expect(events.map((e) => e.type)).toEqual(["subscription.canceled", "subscription.updated"]);
    await api(t.url, path, { token: cst, method: "PATCH", body: { cancel_at_period_end: false } });
  });

  it("answers empty lists of grants, license keys, downloadables and meters when the purchases granted none", async () => {
    const { token: cst } = await session({ customer_id: ada.customerId });
    expect(
      (await polar.customerPortal.benefitGrants.list({ customerSession: cst }, {})).result.items,
    ).toEqual([]);
    expect(
      (await polar.customerPortal.licenseKeys.list({ customerSession: cst }, {})).result.items,
    ).toEqual([]);
    expect(
      (await polar.customerPortal.downloadables.list({ customerSession: cst }, {})).result.items,
    ).toEqual([]);
    expect(
      (await polar.customerPortal.customerMeters.list({ customerSession: cst }, {})).result.items,
    ).toEqual([]);
    expect((await api(t.url, "/v1/customer-portal/customer-meters/", { token: cst })).body).toEqual(
      { items: [], pagination: { total_count: 0, max_page: 0 } },
    );
  });

  it("stops working after an hour", async () => {
    const { token: cst } = await session({ customer_id: ada.customerId });
    expect((await api(t.url, "/v1/customer-portal/customers/me", { token: cst })).status).toBe(200);
    clock.advance(60 * 60 * 1000 + 1000);
    expect((await api(t.url, "/v1/customer-portal/customers/me", { token: cst })).status).toBe(401);
  });
});
