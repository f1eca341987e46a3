// The customer portal API: a customer session's till_cst_ token reads and manages only that
// customer's subscriptions and orders (another customer's ids are 404), is refused on seller routes,
// and expires after an hour. Polar's client parses every portal answer. Opening sessions is in
// customer-portal-sessions.test.ts.
import { Polar } from "@polar-sh/sdk";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { api } from "../../../test/helpers/auth.ts";
import {
  ada,
  bob,
  clock,
  oneTimeProductId,
  polar,
  productId,
  session,
  slug,
  t,
  token,
  withPortalShop,
} from "../../../test/helpers/customer-portal.ts";

withPortalShop();

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
    });
    // The card saved at checkout is the one renewals charge.
    const cards = await api(t.url, "/v1/customer-portal/customers/me/payment-methods", {
      token: cst,
    });
    expect(cards.body.items).toHaveLength(1);
    expect(me.body.default_payment_method_id).toBe(cards.body.items[0].id);
    const unknown = await api(t.url, "/v1/customer-portal/customers/me", {
      token: cst,
      method: "PATCH",
      body: { default_payment_method_id: "11111111-2222-4333-8444-555555555555" },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail[0].loc).toEqual(["body", "default_payment_method_id"]);
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
