// Discounts on usage, through the public API and the sandbox clock, as Polar bills them: a
// renewal's discount applies to every line but a proration, metered usage included; a meter
// cycle's settlement takes a percentage discount, never a fixed amount (which would be given again
// at every cycle). A custom (pay-what-you-want) amount renews at what was chosen, discounted once
// per order. A discount set by PATCH is checked as a checkout checks it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "../../../test/helpers/auth.ts";
import {
  advance,
  billingSeller,
  ingestHourly,
  meteredPlan,
  ordersOf,
  subscribe,
  subscriptionOf,
  type BillingSeller,
} from "../../../test/helpers/billing.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { US_ADDRESS } from "../../../test/helpers/addresses.ts";

let t: TestServer;
let s: BillingSeller;

beforeAll(async () => {
  t = await startTestServer();
  s = await billingSeller(t);
});
afterAll(() => t.stop());

/** $100 a period plus $0.10 a call of `<name>_call`, optionally with monthly meter cycles. */
async function usagePlan(name: string, interval: "month" | "year", meterInterval?: "month") {
  const plan = await meteredPlan(s, {
    name,
    interval,
    ...(meterInterval ? { meterInterval } : {}),
    credit: 0,
  });
  return { productId: plan.product.id, event: plan.event };
}

/** A monthly plan at a fixed price. */
const fixedPlan = (name: string, amount: number, trial: Record<string, unknown> = {}) =>
  s.polar.products.create({
    name,
    recurringInterval: "month",
    prices: [{ amountType: "fixed", priceAmount: amount, priceCurrency: "usd" }],
    ...trial,
  });

/** Buys `productId` with the discount through a checkout. */
const subscribeWith = (productId: string, discountId: string) =>
  subscribe(s, productId, undefined, undefined, undefined, discountId);

const use = (name: string, customerId: string, from: string, count: number) =>
  ingestHourly(s, name, customerId, from, count);

async function discount(
  body: { type: "percentage"; basis_points: number } | { type: "fixed"; amount: number },
) {
  const res = await s.call("/v1/discounts/", {
    body: {
      name: `${body.type} ${Math.random().toString(36).slice(2, 6)}`,
      duration: "forever",
      ...(body.type === "fixed" ? { currency: "usd" } : {}),
      ...body,
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

async function setDiscount(subscriptionId: string, discountId: string) {
  const res = await s.call(`/v1/subscriptions/${subscriptionId}`, {
    method: "PATCH",
    body: { discount_id: discountId },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.discount_id).toBe(discountId);
}

describe("discounts on usage", () => {
  it("a renewal's percentage discount takes its share of the metered usage too", async () => {
    const { productId, event } = await usagePlan("renewal", "month");
    const { subscriptionId, customerId } = await subscribe(s, productId);
    const twenty = await discount({ type: "percentage", basis_points: 2000 });
    await setDiscount(subscriptionId, twenty);
    const sub = await subscriptionOf(s, subscriptionId);
    await use(event, customerId, sub.current_period_start, 50);
    await advance(s, { to: sub.current_period_end });
    const [cycle] = (await ordersOf(s, subscriptionId)).filter(
      (o) => o.billing_reason === "subscription_cycle",
    );
    // $100 + 50 × $0.10 = $105.00, less 20 %: $21.00 off.
    expect(cycle).toMatchObject({
      status: "paid",
      subtotal_amount: 10_500,
      discount_amount: 2_100,
      net_amount: 8_400,
      discount_id: twenty,
    });
  });

  it("a meter cycle takes a percentage discount and no fixed one", async () => {
    const { productId, event } = await usagePlan("cycle", "year", "month");
    const { subscriptionId, customerId } = await subscribe(s, productId);
    const percent = await discount({ type: "percentage", basis_points: 2500 });
    await setDiscount(subscriptionId, percent);
    const sub = await subscriptionOf(s, subscriptionId);
    await use(event, customerId, sub.current_meter_period_start, 40);
    await advance(s, { to: sub.current_meter_period_end });
    let settled = (await ordersOf(s, subscriptionId)).filter(
      (o) => o.billing_reason === "subscription_meter_cycle",
    );
    expect(settled).toHaveLength(1);
    expect(settled[0]).toMatchObject({
      status: "paid",
      subtotal_amount: 400,
      discount_amount: 100,
      total_amount: 300,
      discount_id: percent,
    });

    await setDiscount(subscriptionId, await discount({ type: "fixed", amount: 500 }));
    const second = await subscriptionOf(s, subscriptionId);
    await use(event, customerId, second.current_meter_period_start, 40);
    await advance(s, { to: second.current_meter_period_end });
    settled = (await ordersOf(s, subscriptionId)).filter(
      (o) => o.billing_reason === "subscription_meter_cycle",
    );
    expect(settled).toHaveLength(2);
    expect(settled[1]).toMatchObject({
      status: "paid",
      subtotal_amount: 400,
      discount_amount: 0,
      total_amount: 400,
      discount_id: null,
    });
  });

  it("PATCH sets only a live discount of the organization that applies to the product", async () => {
    const { productId } = await usagePlan("patched", "month");
    const { subscriptionId } = await subscribe(s, productId);
    const refused = async (discountId: string, msg: string) => {
      const res = await s.call(`/v1/subscriptions/${subscriptionId}`, {
        method: "PATCH",
        body: { discount_id: discountId },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      expect(res.body.detail[0]).toMatchObject({ loc: ["body", "discount_id"], msg });
    };
    await refused("11111111-2222-4333-8444-555555555555", "Discount not found.");
    const stranger = await billingSeller(t);
    const theirs = await stranger.call("/v1/discounts/", {
      body: { name: "Theirs", type: "percentage", basis_points: 1000, duration: "forever" },
    });
    await refused(theirs.body.id, "Discount not found.");
    const tenPercent = (name: string, more: Record<string, unknown>) =>
      s.call("/v1/discounts/", {
        body: { name, type: "percentage", basis_points: 1000, duration: "forever", ...more },
      });
    const elsewhere = await tenPercent("Other plan only", {
      products: [(await usagePlan("other", "month")).productId],
    });
    await refused(elsewhere.body.id, "This discount does not apply to this product.");
    const once = await tenPercent("One redemption", { max_redemptions: 1 });
    await setDiscount(subscriptionId, once.body.id);
    await refused(once.body.id, "This discount is already applied to the subscription.");
    const other = await subscribe(s, productId);
    const res = await s.call(`/v1/subscriptions/${other.subscriptionId}`, {
      method: "PATCH",
      body: { discount_id: once.body.id },
    });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].msg).toBe("This discount has been fully redeemed.");
    expect((await subscriptionOf(s, other.subscriptionId)).discount_id).toBeNull();
    expect((await s.call(`/v1/discounts/${once.body.id}`)).body.redemptions_count).toBe(1);
    expect((await subscriptionOf(s, subscriptionId)).discount_id).toBe(once.body.id);
  });

  it("a once discount set by PATCH takes off the next renewal, then comes off the subscription", async () => {
    const product = await fixedPlan("Once later", 2000);
    const { subscriptionId } = await subscribe(s, product.id);
    const d = await s.call("/v1/discounts/", {
      body: { name: "Half once", type: "percentage", basis_points: 5000, duration: "once" },
    });
    await setDiscount(subscriptionId, d.body.id);
    // Its amount says what a period costs with it, from the change on (as Polar's).
    expect((await subscriptionOf(s, subscriptionId)).amount).toBe(1000);
    const cycles = async () =>
      (await ordersOf(s, subscriptionId)).filter((o) => o.billing_reason === "subscription_cycle");
    const first = await subscriptionOf(s, subscriptionId);
    await advance(s, { to: first.current_period_end });
    expect(await cycles()).toMatchObject([
      { subtotal_amount: 2000, discount_amount: 1000, total_amount: 1000, discount_id: d.body.id },
    ]);
    // It applied to this period: still on the subscription, and its amount is the period's.
    expect(await subscriptionOf(s, subscriptionId)).toMatchObject({
      discount_id: d.body.id,
      amount: 1000,
    });
    const second = await subscriptionOf(s, subscriptionId);
    await advance(s, { to: second.current_period_end });
    expect((await cycles())[1]).toMatchObject({ total_amount: 2000, discount_id: null });
    expect(await subscriptionOf(s, subscriptionId)).toMatchObject({
      discount_id: null,
      discount: null,
      amount: 2000,
    });
  });

  it("a once discount bought with a trial takes off the first charge, at the trial's end", async () => {
    const product = await fixedPlan("Trial once", 1500, {
      trialInterval: "day",
      trialIntervalCount: 14,
    });
    const d = await s.call("/v1/discounts/", {
      body: { name: "Half first", type: "percentage", basis_points: 5000, duration: "once" },
    });
    const { subscriptionId } = await subscribeWith(product.id, d.body.id);
    const trial = await subscriptionOf(s, subscriptionId);
    expect(trial).toMatchObject({ status: "trialing", amount: 750 });
    await advance(s, { to: trial.trial_end });
    const after = await subscriptionOf(s, subscriptionId);
    await advance(s, { to: after.current_period_end });
    const charged = (await ordersOf(s, subscriptionId)).filter((o) => o.total_amount > 0);
    expect(charged.map((o) => [o.subtotal_amount, o.discount_amount, o.total_amount])).toEqual([
      [1500, 750, 750],
      [1500, 0, 1500],
    ]);
    expect(await subscriptionOf(s, subscriptionId)).toMatchObject({
      discount_id: null,
      amount: 1500,
    });
  });

  it("a forever discount set by PATCH shows in the amount at once; none is set on an ended one", async () => {
    const product = await fixedPlan("Forever later", 2000);
    const { subscriptionId } = await subscribe(s, product.id);
    const d = await s.call("/v1/discounts/", {
      body: {
        name: "Dollar off",
        type: "fixed",
        amount: 100,
        currency: "usd",
        duration: "forever",
        max_redemptions: 2,
      },
    });
    await setDiscount(subscriptionId, d.body.id);
    expect((await subscriptionOf(s, subscriptionId)).amount).toBe(1900);
    const other = await subscribe(s, product.id);
    const revoked = await s.call(`/v1/subscriptions/${other.subscriptionId}`, { method: "DELETE" });
    expect(revoked.status).toBe(200);
    const refused = await s.call(`/v1/subscriptions/${other.subscriptionId}`, {
      method: "PATCH",
      body: { discount_id: d.body.id },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe("AlreadyCanceledSubscription");
    expect((await s.call(`/v1/discounts/${d.body.id}`)).body.redemptions_count).toBe(1);
    expect((await subscriptionOf(s, other.subscriptionId)).discount_id).toBeNull();
  });

  it("a repeating discount bought for two months discounts two orders, then comes off", async () => {
    const product = await fixedPlan("Repeating two", 1000);
    const d = await s.call("/v1/discounts/", {
      body: {
        name: "Two months",
        type: "percentage",
        basis_points: 2000,
        duration: "repeating",
        duration_in_months: 2,
      },
    });
    const { subscriptionId } = await subscribeWith(product.id, d.body.id);
    for (let i = 0; i < 2; i++)
      await advance(s, { to: (await subscriptionOf(s, subscriptionId)).current_period_end });
    const totals = (await ordersOf(s, subscriptionId))
      .sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at))
      .map((o) => o.total_amount);
    expect(totals).toEqual([800, 800, 1000]);
    expect(await subscriptionOf(s, subscriptionId)).toMatchObject({
      discount_id: null,
      amount: 1000,
    });
  });

  it("a repeating discount counts calendar months from its first period, as Polar", async () => {
    // Polar's is_repetition_expired: the first period is the first month, so one month on a
    // weekly plan is its first week only, and two months run to periods starting a month later.
    const weekly = await s.polar.products.create({
      name: "Weekly repeating",
      recurringInterval: "week",
      prices: [{ amountType: "fixed", priceAmount: 1000, priceCurrency: "usd" }],
    });
    const repeating = async (months: number) => {
      const d = await s.call("/v1/discounts/", {
        body: {
          name: `${months} months weekly`,
          type: "percentage",
          basis_points: 2000,
          duration: "repeating",
          duration_in_months: months,
        },
      });
      return d.body.id as string;
    };
    const discountedOrders = async (months: number) => {
      const { subscriptionId } = await subscribeWith(weekly.id, await repeating(months));
      for (let i = 0; i < 10; i++)
        await advance(s, { to: (await subscriptionOf(s, subscriptionId)).current_period_end });
      const orders = (await ordersOf(s, subscriptionId)).sort(
        (a, b) => Date.parse(a.created_at) - Date.parse(b.created_at),
      );
      expect(orders).toHaveLength(11);
      return orders.filter((o) => o.total_amount === 800).length;
    };
    expect(await discountedOrders(1)).toBe(1);
    // Two months: the weeks starting up to a month after the first, days 0 to 28 (a month is 28
    // to 31 days), take it; day 35's does not.
    expect(await discountedOrders(2)).toBe(5);
  });

  it("a custom amount renews at what was chosen: a once discount ends, a forever one applies once", async () => {
    const product = await s.call("/v1/products/", {
      body: {
        name: "Pay what you want",
        recurring_interval: "month",
        prices: [{ amount_type: "custom", price_currency: "usd", minimum_amount: 500 }],
      },
    });
    expect(product.status, JSON.stringify(product.body)).toBe(201);
    const chosen = async (discount: Record<string, unknown>) => {
      const d = await s.call("/v1/discounts/", {
        body: { name: `Custom ${Math.random().toString(36).slice(2, 6)}`, ...discount },
      });
      const checkout = await s.call("/v1/checkouts/", {
        body: { products: [product.body.id], discount_id: d.body.id },
      });
      const secret = checkout.body.client_secret as string;
      const client = (path: string, body: unknown, method?: string) =>
        api(t.url, `/v1/checkouts/client/${secret}${path}`, {
          body,
          ...(method ? { method } : {}),
        });
      await client(
        "",
        {
          amount: 2000,
          customer_email: `pwyw-${Math.random().toString(36).slice(2, 6)}@example.com`,
          customer_billing_address: US_ADDRESS,
        },
        "PATCH",
      );
      const confirmed = await client("/confirm", {
        confirmation_token_id: "sandbox_token_success",
      });
      expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
      const orders = await s.call(`/v1/orders/?checkout_id=${checkout.body.id}`);
      return orders.body.items[0].subscription_id as string;
    };
    const once = await chosen({ type: "percentage", basis_points: 5000, duration: "once" });
    const forever = await chosen({ type: "percentage", basis_points: 1000, duration: "forever" });
    // The later of the two periods' ends renews both.
    const end = (await subscriptionOf(s, forever)).current_period_end;
    await advance(s, { to: end });
    const cycleOf = async (id: string) =>
      (await ordersOf(s, id)).find((o) => o.billing_reason === "subscription_cycle");
    expect(await cycleOf(once)).toMatchObject({ subtotal_amount: 2000, total_amount: 2000 });
    expect(await cycleOf(forever)).toMatchObject({
      subtotal_amount: 2000,
      discount_amount: 200,
      total_amount: 1800,
    });
    // The amount says what the current period costs: the once discount has ended, the other lasts.
    expect((await subscriptionOf(s, once)).amount).toBe(2000);
    expect((await subscriptionOf(s, forever)).amount).toBe(1800);
  });
});
