// What the customer portal says a subscription costs (till's `pricing` beside Polar's `amount`),
// through real HTTP and the sandbox clock: the prices before the discount, the discount, and what
// the next renewal bills as the renewal then bills it — a once or repeating discount spent, a
// trial's discount first taken at its end, nothing when no renewal follows.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "../../../test/helpers/auth.ts";
import {
  advance,
  billingSeller,
  type BillingSeller,
  monthlyProduct,
  ordersOf,
  subscribe,
  subscriptionOf,
} from "../../../test/helpers/billing.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

let t: TestServer;
let s: BillingSeller;

beforeAll(async () => {
  t = await startTestServer({ worker: false });
  s = await billingSeller(t);
});
afterAll(() => t?.stop());

async function discount(body: Record<string, unknown>) {
  const res = await s.call("/v1/discounts/", { body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

/** The subscription as its customer's portal answers it, listed and alone (the same). */
async function portalSubscription(customerId: string, id: string) {
  const session = await s.call("/v1/customer-sessions/", { body: { customer_id: customerId } });
  const get = (path: string) =>
    api(t.url, `/v1/customer-portal/${path}`, { token: session.body.token });
  const [one, list] = await Promise.all([get(`subscriptions/${id}`), get("subscriptions/")]);
  expect(one.status).toBe(200);
  expect(list.body.items.find((i: { id: string }) => i.id === id)).toEqual(one.body);
  return one.body as { amount: number; pricing: Record<string, unknown> };
}

describe("a subscription's pricing in the customer portal", () => {
  it("without a discount: the price, and the same at the renewal", async () => {
    const product = await monthlyProduct(s, "Plain", 2000);
    const { subscriptionId, customerId } = await subscribe(s, product.id);
    const sub = await portalSubscription(customerId, subscriptionId);
    expect(sub.amount).toBe(2000);
    expect(sub.pricing).toEqual({
      amount_before_discount: 2000,
      discount: null,
      next_amount: 2000,
    });
  });

  it("a discount forever: the full price, the discount named, the discounted renewal", async () => {
    const id = await discount({
      name: "Quarter off",
      type: "percentage",
      basis_points: 2500,
      duration: "forever",
    });
    const product = await monthlyProduct(s, "Forever", 2000);
    const bought = await subscribe(s, product.id, undefined, undefined, "US", id);
    const sub = await portalSubscription(bought.customerId, bought.subscriptionId);
    expect(sub.amount).toBe(1500);
    expect(sub.pricing).toEqual({
      amount_before_discount: 2000,
      discount: {
        id,
        name: "Quarter off",
        type: "percentage",
        amount: null,
        basis_points: 2500,
        duration: "forever",
        duration_in_months: null,
      },
      next_amount: 1500,
    });
  });

  it("a discount for two months: discounted next, then the full price, as the renewals charge", async () => {
    const id = await discount({
      name: "Five off",
      type: "fixed",
      amount: 500,
      currency: "usd",
      duration: "repeating",
      duration_in_months: 2,
    });
    const product = await monthlyProduct(s, "Repeating", 2000);
    const { subscriptionId, customerId } = await subscribe(
      s,
      product.id,
      undefined,
      undefined,
      "US",
      id,
    );
    let sub = await portalSubscription(customerId, subscriptionId);
    expect(sub.amount).toBe(1500);
    expect(sub.pricing).toMatchObject({ amount_before_discount: 2000, next_amount: 1500 });
    expect(sub.pricing.discount).toMatchObject({
      type: "fixed",
      amount: 500,
      duration_in_months: 2,
    });

    await advance(s, { to: (await subscriptionOf(s, subscriptionId)).current_period_end });
    const orders = await ordersOf(s, subscriptionId);
    expect(orders.at(-1)?.net_amount).toBe(1500);
    sub = await portalSubscription(customerId, subscriptionId);
    expect(sub.amount).toBe(1500);
    expect(sub.pricing).toMatchObject({ amount_before_discount: 2000, next_amount: 2000 });

    await advance(s, { to: (await subscriptionOf(s, subscriptionId)).current_period_end });
    expect((await ordersOf(s, subscriptionId)).at(-1)?.net_amount).toBe(2000);
    sub = await portalSubscription(customerId, subscriptionId);
    expect(sub.amount).toBe(2000);
    expect(sub.pricing).toEqual({
      amount_before_discount: 2000,
      discount: null,
      next_amount: 2000,
    });
  });

  it("a discount for one payment: the renewal at the full price", async () => {
    const id = await discount({
      name: "Welcome",
      type: "percentage",
      basis_points: 1250,
      duration: "once",
    });
    const product = await monthlyProduct(s, "Once", 2000);
    const bought = await subscribe(s, product.id, undefined, undefined, "US", id);
    const sub = await portalSubscription(bought.customerId, bought.subscriptionId);
    expect(sub.amount).toBe(1750);
    expect(sub.pricing).toMatchObject({ amount_before_discount: 2000, next_amount: 2000 });
  });

  it("a trial's discount for one payment: taken off the payment at the trial's end", async () => {
    const id = await discount({
      name: "Trial welcome",
      type: "percentage",
      basis_points: 5000,
      duration: "once",
    });
    const product = await monthlyProduct(s, "Trial", 2000, 7);
    const { subscriptionId, customerId } = await subscribe(
      s,
      product.id,
      undefined,
      undefined,
      "US",
      id,
    );
    expect((await subscriptionOf(s, subscriptionId)).status).toBe("trialing");
    const sub = await portalSubscription(customerId, subscriptionId);
    expect(sub.pricing).toMatchObject({ amount_before_discount: 2000, next_amount: 1000 });
    await advance(s, { to: (await subscriptionOf(s, subscriptionId)).current_period_end });
    expect((await ordersOf(s, subscriptionId)).at(-1)?.net_amount).toBe(1000);
  });

  it("no renewal follows a subscription set to cancel: no next amount", async () => {
    const product = await monthlyProduct(s, "Leaving", 2000);
    const { subscriptionId, customerId } = await subscribe(s, product.id);
    const canceled = await s.call(`/v1/subscriptions/${subscriptionId}`, {
      method: "PATCH",
      body: { cancel_at_period_end: true },
    });
    expect(canceled.status).toBe(200);
    const sub = await portalSubscription(customerId, subscriptionId);
    expect(sub.pricing).toEqual({
      amount_before_discount: 2000,
      discount: null,
      next_amount: null,
    });
  });
});
