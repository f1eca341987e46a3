// The buying flow end to end through Polar's official client: product → checkout → update and
// confirm through the client endpoints → order, subscription, customer state → cancel, uncancel,
// revoke; declines leave the session open; expiry answers 410 (moved there with the test clock).
import { Polar } from "@polar-sh/sdk";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSeller } from "../../../test/helpers/auth.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { TestClock } from "../../lib/clock.ts";
import { US_ADDRESS_SDK } from "../../../test/helpers/addresses.ts";

const SCOPES = [
  "products:write",
  "checkouts:write",
  "subscriptions:write",
  "customers:read",
  "orders:read",
  "discounts:write",
  "organizations:read",
];
const clock = new TestClock();
let t: TestServer;
let polar: Polar;
let organizationId: string;

beforeAll(async () => {
  t = await startTestServer({ clock });
  const seller = await createSeller(t.url, SCOPES);
  organizationId = seller.organization.id;
  polar = new Polar({ accessToken: seller.token, serverURL: t.url });
});
afterAll(() => t.stop());

async function recurringProduct(name = "Pro") {
  return polar.products.create({
    name,
    recurringInterval: "month",
    prices: [{ amountType: "fixed", priceAmount: 1500, priceCurrency: "usd" }],
  });
}

async function outboxTypes(
  since = 0,
): Promise<{ seq: number; type: string; data: Record<string, unknown> }[]> {
  const rows = await t.server.database.rows<{
    seq: number;
    type: string;
    payload: { data: Record<string, unknown> };
  }>(
    sql`select seq, type, payload from webhook_events where organization_id = ${organizationId} and seq > ${since} order by seq`,
  );
  return rows.map((r) => ({ seq: Number(r.seq), type: r.type, data: r.payload.data }));
}

async function lastSeq(): Promise<number> {
  const [row] = await t.server.database.rows<{ n: number | null }>(
    sql`select max(seq)::int as n from webhook_events`,
  );
  return row?.n ?? 0;
}

describe("checkout to paid subscription through Polar's client", () => {
  it("creates, confirms with the sandbox success token, and yields an order, an active subscription and customer state", async () => {
    const product = await recurringProduct();
    const before = await lastSeq();
    const checkout = await polar.checkouts.create({
      products: [product.id],
      successUrl: "https://shop.example/thanks?c={CHECKOUT_ID}",
      metadata: { source: "test" },
    });
    expect(checkout.status).toBe("open");
    expect(checkout.clientSecret).toMatch(/^till_c_/);
    expect(checkout.url).toBe(`${t.url}/checkout/${checkout.clientSecret}`);
    expect(checkout.successUrl).toBe(`https://shop.example/thanks?c=${checkout.id}`);
    expect(checkout.totalAmount).toBe(1500);
    expect(checkout.isPaymentFormRequired).toBe(true);

    const updated = await polar.checkouts.clientUpdate({
      clientSecret: checkout.clientSecret,
      checkoutUpdatePublic: {
        customerEmail: "buyer@example.com",
        customerName: "Ada Buyer",
        customerBillingAddress: US_ADDRESS_SDK,
      },
    });
    expect(updated.customerEmail).toBe("buyer@example.com");

    const confirmed = await polar.checkouts.clientConfirm({
      clientSecret: checkout.clientSecret,
      checkoutConfirmStripe: { confirmationTokenId: "sandbox_token_success" },
    });
    expect(confirmed.status).toBe("confirmed");
    expect((await polar.checkouts.clientGet({ clientSecret: checkout.clientSecret })).status).toBe(
      "succeeded",
    );
    const seller = await polar.checkouts.get({ id: checkout.id });
    expect(seller.customerId).toBeTruthy();

    const orders = await polar.orders.list({ organizationId });
    const order = orders.result.items.find((o) => o.checkoutId === checkout.id)!;
    expect(order).toMatchObject({
      status: "paid",
      paid: true,
      billingReason: "subscription_create",
      subtotalAmount: 1500,
      totalAmount: 1500,
      currency: "usd",
    });
    expect(order.items[0]).toMatchObject({
      label: "Pro",
      amount: 1500,
      productPriceId: product.prices[0]!.id,
    });

    const subscription = await polar.subscriptions.get({ id: order.subscriptionId! });
    expect(subscription).toMatchObject({
      status: "active",
      amount: 1500,
      recurringInterval: "month",
      cancelAtPeriodEnd: false,
      customerId: seller.customerId,
    });
    const start = subscription.currentPeriodStart.getTime();
    const end = subscription.currentPeriodEnd!.getTime();
    expect(end - start).toBeGreaterThanOrEqual(28 * 86_400_000);
    expect(end - start).toBeLessThanOrEqual(31 * 86_400_000);

    const state = await polar.customers.getState({ id: seller.customerId! });
    expect(state.activeSubscriptions.map((s) => s.id)).toEqual([subscription.id]);

    const events = await outboxTypes(before);
    expect(events.map((e) => e.type)).toEqual([
      "checkout.created",
      "checkout.updated",
      "checkout.updated",
      "customer.created",
      "order.created",
      "subscription.created",
      "subscription.active",
      "order.paid",
      "checkout.updated",
      "customer.state_changed",
    ]);
    const paid = events.find((e) => e.type === "order.paid")!;
    expect(paid.data).toMatchObject({
      id: order.id,
      status: "paid",
      customer: { email: "buyer@example.com" },
      product: { id: product.id },
    });
    const active = events.find((e) => e.type === "subscription.active")!;
    expect(active.data).toMatchObject({
      id: subscription.id,
      status: "active",
      product: { id: product.id },
    });

    // Cancel at period end → stays active with ends_at; uncancel; revoke.
    const mark = await lastSeq();
    const canceled = await polar.subscriptions.update({
      id: subscription.id,
      subscriptionUpdate: { cancelAtPeriodEnd: true, customerCancellationReason: "too_expensive" },
    });
    expect(canceled).toMatchObject({
      status: "active",
      cancelAtPeriodEnd: true,
      customerCancellationReason: "too_expensive",
    });
    expect(canceled.endsAt?.getTime()).toBe(end);
    expect(canceled.canceledAt).toBeInstanceOf(Date);
    const uncanceled = await polar.subscriptions.update({
      id: subscription.id,
      subscriptionUpdate: { cancelAtPeriodEnd: false },
    });
    expect(uncanceled).toMatchObject({ cancelAtPeriodEnd: false, canceledAt: null, endsAt: null });
    const revoked = await polar.subscriptions.revoke({ id: subscription.id });
    expect(revoked).toMatchObject({ status: "canceled" });
    expect(revoked.endedAt).toBeInstanceOf(Date);
    await expect(polar.subscriptions.revoke({ id: subscription.id })).rejects.toMatchObject({
      statusCode: 403,
    });
    expect(
      (await polar.customers.getState({ id: seller.customerId! })).activeSubscriptions,
    ).toEqual([]);
    expect((await outboxTypes(mark)).map((e) => e.type)).toEqual([
      "subscription.updated",
      "subscription.canceled",
      "customer.state_changed",
      "subscription.updated",
      "subscription.uncanceled",
      "customer.state_changed",
      "subscription.updated",
      "subscription.canceled",
      "subscription.revoked",
      "customer.state_changed",
    ]);
  });

  it.each([
    [
      "sandbox_token_declined",
      "The payment failed: Your card was declined. Please try again with a different payment method.",
    ],
    [
      "sandbox_token_insufficient_funds",
      "The payment failed: Your card has insufficient funds. Please try again with a different payment method.",
    ],
  ])(
    "%s leaves the checkout open, says the processor's reason and to try another method; a retry with a good card succeeds",
    async (token, message) => {
      const product = await recurringProduct("Retry");
      const checkout = await polar.checkouts.create({
        products: [product.id],
        customerEmail: `retry-${token.replaceAll("_", "-")}@example.com`,
        customerBillingAddress: { country: "DE" },
      });
      const failed = await fetch(`${t.url}/v1/checkouts/client/${checkout.clientSecret}/confirm`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ confirmation_token_id: token }),
      });
      expect(failed.status).toBe(400);
      expect(await failed.json()).toEqual({ error: "PaymentError", detail: message });
      expect((await polar.checkouts.get({ id: checkout.id })).status).toBe("open");
      expect(await countOrders(checkout.id)).toBe(0);
      const ok = await polar.checkouts.clientConfirm({
        clientSecret: checkout.clientSecret,
        checkoutConfirmStripe: { confirmationTokenId: "sandbox_token_success" },
      });
      expect(ok.status).toBe("confirmed");
      expect((await polar.checkouts.get({ id: checkout.id })).status).toBe("succeeded");
      expect(await countOrders(checkout.id)).toBe(1);
    },
  );

  it("an expired checkout answers 410 ExpiredCheckoutError, and the expiry job marks it with checkout.expired", async () => {
    const product = await recurringProduct("Late");
    const checkout = await polar.checkouts.create({ products: [product.id] });
    clock.advance(24 * 3600_000 + 1000);
    try {
      const res = await fetch(`${t.url}/v1/checkouts/client/${checkout.clientSecret}`);
      expect(res.status).toBe(410);
      expect(await res.json()).toEqual({
        error: "ExpiredCheckoutError",
        detail: "This checkout session has expired.",
      });
      await expect(
        polar.checkouts.clientConfirm({
          clientSecret: checkout.clientSecret,
          checkoutConfirmStripe: { confirmationTokenId: "sandbox_token_success" },
        }),
      ).rejects.toMatchObject({ statusCode: 410 });
      const { expireCheckouts } = await import("./jobs.ts");
      const { createSecretBox } = await import("../../lib/secret-box.ts");
      const mark = await lastSeq();
      expect(
        await expireCheckouts({
          db: t.server.database.db,
          clock,
          config: t.config,
          secretBox: createSecretBox(t.config.authSecret),
        }),
      ).toBeGreaterThanOrEqual(1);
      expect((await polar.checkouts.get({ id: checkout.id })).status).toBe("expired");
      const types = (await outboxTypes(mark))
        .filter((e) => e.data.id === checkout.id)
        .map((e) => e.type);
      expect(types).toEqual(["checkout.updated", "checkout.expired"]);
    } finally {
      clock.advance(-(24 * 3600_000 + 1000));
    }
  });
});

async function countOrders(checkoutId: string): Promise<number> {
  const [row] = await t.server.database.rows<{ n: number }>(
    sql`select count(*)::int as n from orders where checkout_id = ${checkoutId}`,
  );
  return row!.n;
}
