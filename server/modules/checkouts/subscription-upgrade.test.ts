// A checkout made with subscription_id upgrades the customer's free subscription, as Polar's: the
// session is the subscription's customer's and echoes the id; on success the same subscription
// takes the paid product, its price and a new period from the payment, an order is made
// (subscription_update), subscription.updated is recorded (not a second subscription.created), the
// old product's benefits are revoked and the new one's granted, and the renewal engine bills the
// new price once at the new period's end.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { US_ADDRESS } from "../../../test/helpers/addresses.ts";
import { api } from "../../../test/helpers/auth.ts";
import {
  advance,
  billingSeller,
  freeMonthlyProduct,
  freeSubscription,
  monthlyProduct,
  ordersOf,
  subscriptionOf,
  type BillingSeller,
} from "../../../test/helpers/billing.ts";
import { eventsOf } from "../../../test/helpers/catalog.ts";
import { eventually } from "../../../test/helpers/grants.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

const DAY = 86_400_000;
let t: TestServer;
let s: BillingSeller;

beforeAll(async () => {
  t = await startTestServer();
  s = await billingSeller(t);
});
afterAll(() => t?.stop());

async function custom(description: string) {
  return s.polar.benefits.create({ type: "custom", description, properties: {} });
}

async function withBenefit(product: { id: string }, benefitId: string) {
  await s.polar.products.updateBenefits({
    id: product.id,
    productBenefitsUpdate: { benefits: [benefitId] },
  });
}

async function grantsOf(customerId: string) {
  const res = await s.call(`/v1/benefit-grants/?customer_id=${customerId}&limit=100`);
  return res.body.items as { benefit_id: string; is_granted: boolean; is_revoked: boolean }[];
}

describe("checkout with subscription_id", () => {
  it("upgrades the free subscription in place, bills the new price and renews it once", async () => {
    const [basic, pro] = [await custom("Community"), await custom("Priority support")];
    const free = await freeMonthlyProduct(s);
    const paid = await monthlyProduct(s, "Pro", 1500);
    await withBenefit(free, basic.id);
    await withBenefit(paid, pro.id);
    const created = await freeSubscription(
      s,
      free.id,
      { email: "upgrader@example.com", externalId: "user_upgrader" },
      { plan: "free", seat: "kept" },
    );
    const customer = { id: created.customerId };
    const subscriptionId = created.id;
    await eventually(
      async () => (await grantsOf(customer.id)).some((g) => g.is_granted),
      20_000,
      "the free tier's grant",
    );
    // Ten days into its period, the free subscription is upgraded.
    await advance(s, { seconds: (10 * DAY) / 1000 });

    const checkout = await s.call("/v1/checkouts/", {
      body: {
        products: [paid.id],
        subscription_id: subscriptionId,
        external_customer_id: "user_upgrader",
        metadata: { plan: "pro" },
      },
    });
    expect(checkout.status).toBe(201);
    expect(checkout.body).toMatchObject({
      subscription_id: subscriptionId,
      customer_id: customer.id,
      customer_email: "upgrader@example.com",
      external_customer_id: "user_upgrader",
    });
    expect((await s.call(`/v1/checkouts/${checkout.body.id}`)).body.subscription_id).toBe(
      subscriptionId,
    );
    const confirmed = await api(
      t.url,
      `/v1/checkouts/client/${checkout.body.client_secret}/confirm`,
      {
        body: {
          confirmation_token_id: "sandbox_token_success",
          customer_billing_address: US_ADDRESS,
        },
      },
    );
    expect(confirmed.status).toBe(200);

    const done = (await s.call(`/v1/checkouts/${checkout.body.id}`)).body;
    expect(done).toMatchObject({ status: "succeeded", subscription_id: subscriptionId });
    const subs = await s.call(`/v1/subscriptions/?customer_id=${customer.id}`);
    expect(subs.body.items).toHaveLength(1);
    const upgraded = await subscriptionOf(s, subscriptionId);
    expect(upgraded).toMatchObject({
      status: "active",
      product_id: paid.id,
      customer_id: customer.id,
      amount: 1500,
      checkout_id: checkout.body.id,
      metadata: { plan: "pro", seat: "kept" },
      prices: [expect.objectContaining({ id: paid.prices[0]!.id })],
    });
    // A new period starts at the upgrade.
    const start = Date.parse(upgraded.current_period_start);
    expect(start).toBeGreaterThanOrEqual(Date.parse(created.body.current_period_start) + 10 * DAY);
    expect(Date.parse(upgraded.current_period_end) - start).toBeGreaterThanOrEqual(28 * DAY);
    expect(upgraded.current_period_end).not.toBe(created.body.current_period_end);
    const [order, ...more] = await ordersOf(s, subscriptionId);
    expect(more).toHaveLength(0);
    expect(order).toMatchObject({
      billing_reason: "subscription_update",
      subtotal_amount: 1500,
      customer_id: customer.id,
      product_id: paid.id,
      checkout_id: checkout.body.id,
      paid: true,
    });
    expect(Math.abs(Date.parse(order!.created_at) - start)).toBeLessThan(5000);

    const events = await t.server.database.rows<{ type: string }>(
      sql`select type from webhook_events where organization_id = ${s.organizationId}
          and type like 'subscription.%' and payload->'data'->>'id' = ${subscriptionId} order by seq`,
    );
    expect(events.map((e) => e.type)).toEqual([
      "subscription.created",
      "subscription.active",
      "subscription.updated",
    ]);

    const all = (await eventsOf(t, s.organizationId)).map((e) => e.type);
    const upgrade = all.slice(all.indexOf("order.created"));
    expect(upgrade.slice(0, 4)).toEqual([
      "order.created",
      "subscription.updated",
      "order.paid",
      "checkout.updated",
    ]);
    expect(upgrade).toContain("customer.state_changed");
    expect(upgrade.filter((type) => type === "subscription.created")).toHaveLength(0);

    // The free tier's benefit is revoked, Pro's granted.
    await eventually(
      async () => {
        const grants = await grantsOf(customer.id);
        const of = (id: string) => grants.find((g) => g.benefit_id === id);
        return of(basic.id)?.is_revoked && of(pro.id)?.is_granted;
      },
      20_000,
      "the benefits switched",
    );

    // The renewal engine bills Pro's price once at the new period's end.
    await advance(s, { to: upgraded.current_period_end });
    await advance(s, { to: upgraded.current_period_end });
    const cycles = (await ordersOf(s, subscriptionId)).filter(
      (o) => o.billing_reason === "subscription_cycle",
    );
    expect(cycles).toHaveLength(1);
    expect(cycles[0]).toMatchObject({ subtotal_amount: 1500, product_id: paid.id, paid: true });
    const renewed = await subscriptionOf(s, subscriptionId);
    expect(renewed.current_period_start).toBe(upgraded.current_period_end);
    expect(renewed.status).toBe("active");
  });
});
