// POST /v1/subscriptions/: the seller subscribes a customer to a free recurring product without a
// checkout (by customer id or external id): active, no order, the product's benefits granted and
// the subscription's events recorded; a paid, one-time or another organization's product, or an
// unknown customer, is a 422 that creates nothing.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { billingSeller, ordersOf, type BillingSeller } from "../../../test/helpers/billing.ts";
import { eventually } from "../../../test/helpers/grants.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

let t: TestServer;
let s: BillingSeller;
beforeAll(async () => {
  t = await startTestServer();
  s = await billingSeller(t);
});
afterAll(() => t?.stop());

const count = async () =>
  (
    await t.server.database.rows<{ n: number }>(
      sql`select count(*)::int as n from subscriptions where organization_id = ${s.organizationId}`,
    )
  )[0]!.n;

describe("POST /v1/subscriptions/", () => {
  it("subscribes a customer to a free product, with its benefits and events, and no order", async () => {
    const benefit = await s.polar.benefits.create({
      type: "custom",
      description: "Community access",
      properties: { note: "Welcome" },
    });
    const free = await s.polar.products.create({
      name: "Free tier",
      recurringInterval: "month",
      prices: [{ amountType: "free" }],
    });
    await s.polar.products.updateBenefits({
      id: free.id,
      productBenefitsUpdate: { benefits: [benefit.id] },
    });
    const customer = await s.polar.customers.create({
      email: "free@example.com",
      externalId: "user_free_1",
    });
    const created = await s.call("/v1/subscriptions/", {
      body: { product_id: free.id, customer_id: customer.id, metadata: { plan: "free" } },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      status: "active",
      product_id: free.id,
      customer_id: customer.id,
      amount: 0,
      recurring_interval: "month",
      checkout_id: null,
      metadata: { plan: "free" },
    });
    expect(await ordersOf(s, created.body.id)).toHaveLength(0);
    const grant = await eventually(
      async () =>
        (await s.call(`/v1/benefit-grants/?customer_id=${customer.id}`)).body.items?.find(
          (g: { is_granted: boolean }) => g.is_granted,
        ),
      20_000,
      "the free tier's grant",
    );
    expect(grant).toMatchObject({ benefit_id: benefit.id, subscription_id: created.body.id });
    const events = await t.server.database.rows<{ type: string }>(
      sql`select type from webhook_events where payload->'data'->>'id' = ${created.body.id} order by seq`,
    );
    expect(events.map((e) => e.type)).toEqual(["subscription.created", "subscription.active"]);

    const byExternal = await s.call("/v1/subscriptions/", {
      body: { product_id: free.id, external_customer_id: "user_free_1" },
    });
    expect(byExternal.status).toBe(201);
    expect(byExternal.body.customer_id).toBe(customer.id);
  });

  it("refuses paid and one-time products, unknown customers and bad bodies, creating nothing", async () => {
    const paid = await s.polar.products.create({
      name: "Paid tier",
      recurringInterval: "month",
      prices: [{ amountType: "fixed", priceAmount: 900, priceCurrency: "usd" }],
    });
    const once = await s.polar.products.create({
      name: "One-time free",
      prices: [{ amountType: "free" }],
    });
    const customer = await s.polar.customers.create({ email: "refused@example.com" });
    const before = await count();
    for (const [body, loc] of [
      [{ product_id: paid.id, customer_id: customer.id }, "product_id"],
      [{ product_id: once.id, customer_id: customer.id }, "product_id"],
      [{ product_id: crypto.randomUUID(), customer_id: customer.id }, "product_id"],
      [{ product_id: paid.id, external_customer_id: "nobody" }, "product_id"],
      [{ product_id: once.id }, null],
      [{ product_id: "nope", customer_id: customer.id }, null],
    ] as const) {
      const res = await s.call("/v1/subscriptions/", { body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      if (loc) expect(res.body.detail[0].loc).toEqual(["body", loc]);
    }
    const free = await s.polar.products.create({
      name: "Free for the unknown",
      recurringInterval: "month",
      prices: [{ amountType: "free" }],
    });
    const unknown = await s.call("/v1/subscriptions/", {
      body: { product_id: free.id, external_customer_id: "nobody" },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail[0].loc).toEqual(["body", "external_customer_id"]);
    expect(await count()).toBe(before);
  });
});
