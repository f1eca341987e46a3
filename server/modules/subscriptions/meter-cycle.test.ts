// Meter cycles through the public API and the sandbox clock: a yearly plan with monthly usage
// settles each month's usage beyond its credits in a subscription_meter_cycle order, renews the
// credits each month, bills the last month with the yearly renewal, and a declined settlement is
// retried on its own and voided, the subscription left active (as Polar). Also: a renewal bills
// usage net of its period's credits (however many periods one advance crosses), an overdrawn
// credit starts afresh, calls made before the purchase on a clock moved ahead are not the period's,
// and a month's usage is paid from the customer's balance first.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  advance,
  billingSeller,
  sandboxCard,
  ingestHourly,
  meteredPlan as meteredPlanOf,
  ordersOf,
  subscribe,
  subscriptionOf,
  type BillingSeller,
} from "../../../test/helpers/billing.ts";
import { api } from "../../../test/helpers/auth.ts";
import { eventsOf } from "../../../test/helpers/catalog.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { waitFor } from "../../../test/helpers/webhook-receiver.ts";

let t: TestServer;
let s: BillingSeller;

beforeAll(async () => {
  t = await startTestServer();
  s = await billingSeller(t);
});
afterAll(() => t.stop());

const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();
const HOUR = 3_600_000;

const meteredPlan = (opts: Parameters<typeof meteredPlanOf>[1]) => meteredPlanOf(s, opts);

const use = (name: string, customerId: string, from: string, count: number) =>
  ingestHourly(s, name, customerId, from, count);

async function balanceOf(customerId: string, meterId: string) {
  const res = await s.call(`/v1/customer-meters/?customer_id=${customerId}&meter_id=${meterId}`);
  return res.body.items[0] as { balance: number; credited_units: number } | undefined;
}

async function subscribed(productId: string, meterId: string, token?: string) {
  const bought = await subscribe(s, productId, token);
  // The meter_credit grant gives the customer its credit before any usage counts.
  await waitFor(
    async () => (await balanceOf(bought.customerId, meterId))?.credited_units !== undefined,
    10_000,
    "credit granted",
  );
  return bought;
}

describe("meter cycles", () => {
  it("a yearly plan with monthly usage: each month settled beyond its credits, the last with the renewal", async () => {
    const plan = await meteredPlan({
      name: "yearly",
      interval: "year",
      meterInterval: "month",
      credit: 10,
    });
    expect(plan.body).toMatchObject({ meter_interval: "month", meter_interval_count: 1 });
    const { subscriptionId, customerId } = await subscribed(plan.product.id, plan.meterId);
    const sub = await subscriptionOf(s, subscriptionId);
    const start = sub.current_period_start as string;
    const firstEnd = new Date(Date.parse(start));
    firstEnd.setUTCMonth(firstEnd.getUTCMonth() + 1);
    expect(sub.current_meter_period_start).toBe(start);
    expect(sub.current_meter_period_end).toBe(firstEnd.toISOString());

    // Month 1: 25 calls against 10 credited: 15 billed at $0.10.
    await use(plan.event, customerId, start, 25);
    await advance(s, { to: sub.current_meter_period_end });
    await advance(s, { to: sub.current_meter_period_end });
    let orders = await ordersOf(s, subscriptionId);
    const meterOrders = orders.filter((o) => o.billing_reason === "subscription_meter_cycle");
    expect(meterOrders).toHaveLength(1);
    expect(meterOrders[0]).toMatchObject({
      status: "paid",
      subtotal_amount: 150,
      total_amount: 150,
    });
    expect(meterOrders[0]!.items).toHaveLength(1);
    expect(meterOrders[0]!.items[0]).toMatchObject({ amount: 150, product_price_id: plan.metered });
    const second = await subscriptionOf(s, subscriptionId);
    expect(second).toMatchObject({
      status: "active",
      current_period_start: start,
      current_period_end: sub.current_period_end,
      current_meter_period_start: sub.current_meter_period_end,
    });
    // The credit renewed for month 2: the overdraft was billed, the balance starts at 10 again.
    expect((await balanceOf(customerId, plan.meterId))?.balance).toBe(10);
    const types = (await eventsOf(t, s.organizationId))
      .filter(
        (e) =>
          e.payload.data.id === meterOrders[0]!.id ||
          e.payload.data.subscription_id === subscriptionId,
      )
      .map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(["order.created", "order.paid"]));
    expect(types.filter((x) => x === "benefit_grant.cycled").length).toBeGreaterThanOrEqual(1);

    // Month 2: 5 calls, within the credit: nothing to bill, no order.
    await use(plan.event, customerId, second.current_meter_period_start, 5);
    await advance(s, { to: second.current_meter_period_end });
    orders = await ordersOf(s, subscriptionId);
    expect(orders.filter((o) => o.billing_reason === "subscription_meter_cycle")).toHaveLength(1);

    // The last month's 12 calls (2 beyond the credit) are billed with the yearly renewal.
    const lastMonth = new Date(Date.parse(sub.current_period_end));
    lastMonth.setUTCMonth(lastMonth.getUTCMonth() - 1);
    await advance(s, { to: plus(lastMonth.toISOString(), 1000) });
    const beforeRenewal = await subscriptionOf(s, subscriptionId);
    expect(beforeRenewal.current_meter_period_start).toBe(lastMonth.toISOString());
    expect(beforeRenewal.current_meter_period_end).toBe(sub.current_period_end);
    await use(plan.event, customerId, lastMonth.toISOString(), 12);
    await advance(s, { to: sub.current_period_end });
    orders = await ordersOf(s, subscriptionId);
    expect(orders.filter((o) => o.billing_reason === "subscription_meter_cycle")).toHaveLength(1);
    const cycles = orders.filter((o) => o.billing_reason === "subscription_cycle");
    expect(cycles).toHaveLength(1);
    expect(cycles[0]).toMatchObject({ status: "paid", subtotal_amount: 10_020 });
    const renewed = await subscriptionOf(s, subscriptionId);
    expect(renewed.current_period_start).toBe(sub.current_period_end);
    expect(renewed.current_meter_period_start).toBe(sub.current_period_end);
    expect(Date.parse(renewed.current_meter_period_end)).toBeLessThan(
      Date.parse(renewed.current_period_end),
    );
  });

  it("a declined settlement is retried on its own: the subscription stays active, then the order is voided", async () => {
    const plan = await meteredPlan({
      name: "declined",
      interval: "year",
      meterInterval: "month",
      credit: 5,
    });
    const { subscriptionId, customerId } = await subscribed(
      plan.product.id,
      plan.meterId,
      "sandbox_token_renewal_declined",
    );
    const sub = await subscriptionOf(s, subscriptionId);
    await use(plan.event, customerId, sub.current_period_start, 12);
    const cycleEnd = sub.current_meter_period_end as string;
    await advance(s, { to: cycleEnd });
    const settlement = async () =>
      (await ordersOf(s, subscriptionId)).find(
        (o) => o.billing_reason === "subscription_meter_cycle",
      )!;
    const attempts = async (orderId: string) =>
      (await s.call(`/v1/payments/?order_id=${orderId}`)).body.items as { status: string }[];
    const order = await settlement();
    expect(order).toMatchObject({
      status: "pending",
      total_amount: 70,
      next_payment_attempt_at: plus(cycleEnd, 3 * 24 * HOUR),
    });
    expect(await attempts(order.id)).toEqual([expect.objectContaining({ status: "failed" })]);
    // As Polar: the overage does not touch the plan; the credit renews with the cycle.
    const after = await subscriptionOf(s, subscriptionId);
    expect(after).toMatchObject({ status: "active", past_due_at: null });
    expect(after.current_meter_period_start).toBe(cycleEnd);
    expect((await balanceOf(customerId, plan.meterId))?.balance).toBe(5);
    const grants = await s.call(`/v1/benefit-grants/?customer_id=${customerId}`);
    expect(grants.body.items.map((g: { is_revoked: boolean }) => g.is_revoked)).toEqual([false]);

    // The retries follow the dunning days (3, 5, 7), each one attempt, the order still owed.
    await advance(s, { to: plus(cycleEnd, 3 * 24 * HOUR) });
    expect(await attempts(order.id)).toHaveLength(2);
    expect(await settlement()).toMatchObject({
      status: "pending",
      next_payment_attempt_at: plus(cycleEnd, 8 * 24 * HOUR),
    });
    await advance(s, { to: plus(cycleEnd, 8 * 24 * HOUR) });
    expect(await attempts(order.id)).toHaveLength(3);
    // The last one declines too: the order is voided, the subscription goes on.
    await advance(s, { to: plus(cycleEnd, 15 * 24 * HOUR) });
    expect(await attempts(order.id)).toHaveLength(4);
    expect(await settlement()).toMatchObject({ status: "void", next_payment_attempt_at: null });
    const last = await subscriptionOf(s, subscriptionId);
    expect(last).toMatchObject({ status: "active", current_period_end: sub.current_period_end });
    const types = (await eventsOf(t, s.organizationId))
      .filter((e) => e.payload.data.id === order.id || e.payload.data.id === subscriptionId)
      .map((e) => e.type);
    expect(types).not.toContain("subscription.past_due");
    expect(types.filter((x) => x === "order.updated")).toHaveLength(3);
    // The next month settles as usual (nothing used: no order), the subscription due its boundary.
    await advance(s, { to: last.current_meter_period_end });
    expect((await subscriptionOf(s, subscriptionId)).current_meter_period_start).toBe(
      last.current_meter_period_end,
    );
  });
});

describe("a declined settlement paid later", () => {
  /** A month of 30 calls settled with a card that declines it: the order owed, a portal session. */
  async function declined(name: string) {
    const plan = await meteredPlan({ name, interval: "year", meterInterval: "month", credit: 0 });
    const { subscriptionId, customerId } = await subscribe(
      s,
      plan.product.id,
      "sandbox_token_renewal_declined",
    );
    const sub = await subscriptionOf(s, subscriptionId);
    await use(plan.event, customerId, sub.current_period_start, 30);
    await advance(s, { to: sub.current_meter_period_end });
    const settlements = async () =>
      (await ordersOf(s, subscriptionId)).filter(
        (o) => o.billing_reason === "subscription_meter_cycle",
      );
    const [owed] = await settlements();
    expect(owed).toMatchObject({ status: "pending", total_amount: 300 });
    const session = await s.call("/v1/customer-sessions/", { body: { customer_id: customerId } });
    const cardToken = await sandboxCard(t.url, "4242424242424242");
    return {
      sub,
      subscriptionId,
      owed: owed!,
      settlements,
      portalToken: session.body.token as string,
      cardToken,
    };
  }

  async function eventsOfOrder(orderId: string) {
    return (await eventsOf(t, s.organizationId))
      .filter((e) => e.payload.data.id === orderId)
      .map((e) => e.type);
  }

  it("a new default card pays the order at the next attempt", async () => {
    const d = await declined("repaid");
    const added = await api(t.url, "/v1/customer-portal/customers/me/payment-methods", {
      token: d.portalToken,
      body: {
        confirmation_token_id: d.cardToken,
        set_default: true,
        return_url: "https://shop.example.com/account",
      },
    });
    expect(added.status).toBe(201);
    await advance(s, { to: d.owed.next_payment_attempt_at });
    const [paid] = await d.settlements();
    expect(paid).toMatchObject({ status: "paid", next_payment_attempt_at: null });
    expect(await eventsOfOrder(d.owed.id)).toEqual([
      "order.created",
      "order.updated",
      "order.paid",
    ]);
    expect(await subscriptionOf(s, d.subscriptionId)).toMatchObject({
      status: "active",
      current_meter_period_start: d.sub.current_meter_period_end,
    });
  });

  it("the customer pays it from the portal at once, and no retry follows", async () => {
    const d = await declined("paid_now");
    const res = await api(t.url, `/v1/customer-portal/orders/${d.owed.id}/confirm-payment`, {
      token: d.portalToken,
      body: { confirmation_token_id: d.cardToken },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.status).toBe("succeeded");
    const [paid] = await d.settlements();
    expect(paid).toMatchObject({ status: "paid", next_payment_attempt_at: null });
    expect(await eventsOfOrder(d.owed.id)).toEqual([
      "order.created",
      "order.updated",
      "order.paid",
    ]);
    // The retry's time passes with nothing to do.
    await advance(s, { to: d.owed.next_payment_attempt_at });
    const payments = await s.call(`/v1/payments/?order_id=${d.owed.id}`);
    expect(payments.body.items.map((p: { status: string }) => p.status).sort()).toEqual([
      "failed",
      "succeeded",
    ]);
  });
});

describe("credits at the renewal", () => {
  it("bills usage beyond the credit, and an overdrawn credit starts the next period at its units", async () => {
    const plan = await meteredPlan({ name: "monthly", interval: "month", credit: 10 });
    expect(plan.body).toMatchObject({ meter_interval: null });
    const { subscriptionId, customerId } = await subscribed(plan.product.id, plan.meterId);
    const sub = await subscriptionOf(s, subscriptionId);
    expect(sub.current_meter_period_start).toBeNull();
    await use(plan.event, customerId, sub.current_period_start, 25);
    expect((await subscriptionOf(s, subscriptionId)).meters).toEqual([
      expect.objectContaining({ consumed_units: 25, credited_units: 10, amount: 150 }),
    ]);
    await advance(s, { to: sub.current_period_end });
    let cycles = (await ordersOf(s, subscriptionId)).filter(
      (o) => o.billing_reason === "subscription_cycle",
    );
    expect(cycles).toHaveLength(1);
    expect(cycles[0]).toMatchObject({ subtotal_amount: 10_000 + 150 });
    expect((await balanceOf(customerId, plan.meterId))?.balance).toBe(10);
    const next = await subscriptionOf(s, subscriptionId);
    await use(plan.event, customerId, next.current_period_start, 4);
    await advance(s, { to: next.current_period_end });
    cycles = (await ordersOf(s, subscriptionId)).filter(
      (o) => o.billing_reason === "subscription_cycle",
    );
    expect(cycles).toHaveLength(2);
    expect(cycles.map((o) => o.subtotal_amount).sort()).toEqual([10_000, 10_150]);
  });
  it("usage recorded ahead is billed per period beyond each period's credit, in one advance", async () => {
    const plan = await meteredPlan({ name: "ahead", interval: "month", credit: 10 });
    const { subscriptionId, customerId } = await subscribed(plan.product.id, plan.meterId);
    const sub = await subscriptionOf(s, subscriptionId);
    // 4 calls in the first month and 20 in the second, sent before either renewal: the renewal
    // that credits the second month counts none of its 20 as the first month's.
    await use(plan.event, customerId, sub.current_period_start, 4);
    await use(plan.event, customerId, sub.current_period_end, 20);
    await advance(s, { seconds: 62 * 24 * 3600 });
    const usageLines = (await ordersOf(s, subscriptionId))
      .filter((o) => o.billing_reason === "subscription_cycle")
      .map((o) => o.items.find((i: { label: string }) => i.label.endsWith("units)"))?.amount);
    expect(usageLines).toEqual([0, 100]);
    expect((await balanceOf(customerId, plan.meterId))?.balance).toBe(10);
  });

  it("calls made before the purchase on a clock moved ahead take nothing from the credit", async () => {
    const ahead = await billingSeller(t);
    await advance(ahead, { seconds: 40 * 24 * 3600 });
    const plan = await meteredPlanOf(ahead, { name: "later", interval: "month", credit: 10 });
    const email = "later@example.com";
    const customer = await ahead.polar.customers.create({ email });
    const now = (await ahead.call("/v1/sandbox/clock")).body.now as string;
    await ingestHourly(ahead, plan.event, customer.id, plus(now, -10 * HOUR), 8);
    const { subscriptionId } = await subscribe(ahead, plan.product.id, undefined, email);
    const sub = await subscriptionOf(ahead, subscriptionId);
    await waitFor(
      async () => {
        const res = await ahead.call(`/v1/customer-meters/?customer_id=${customer.id}`);
        return res.body.items.length > 0;
      },
      10_000,
      "credit granted",
    );
    await ingestHourly(ahead, plan.event, customer.id, sub.current_period_start, 10);
    await advance(ahead, { to: sub.current_period_end });
    const [cycle] = (await ordersOf(ahead, subscriptionId)).filter(
      (o) => o.billing_reason === "subscription_cycle",
    );
    // The 10 calls of the month are all credited.
    expect(cycle).toMatchObject({ subtotal_amount: 10_000 });
  });
});

describe("meter cycles and the customer balance", () => {
  it("a month's usage is paid from the customer's balance before the card", async () => {
    const plan = await meteredPlan({
      name: "walleted",
      interval: "year",
      meterInterval: "month",
      credit: 0,
    });
    const big = await s.polar.products.create({
      name: "Walleted big",
      recurringInterval: "year",
      prices: [{ amountType: "fixed", priceAmount: 20_000, priceCurrency: "usd" }],
    });
    const { subscriptionId, customerId } = await subscribe(s, big.id);
    const sub = await subscriptionOf(s, subscriptionId);
    // A downgrade an hour in credits about 10000 (a year of 20000 − 10000) to the balance.
    await advance(s, { to: plus(sub.current_period_start, HOUR) });
    const changed = await s.call(`/v1/subscriptions/${subscriptionId}`, {
      method: "PATCH",
      body: { product_id: plan.product.id, proration_behavior: "invoice" },
    });
    expect(changed.status).toBe(200);
    await use(plan.event, customerId, plus(sub.current_period_start, HOUR), 7);
    await advance(s, { to: changed.body.current_meter_period_end });
    const [settled] = (await ordersOf(s, subscriptionId)).filter(
      (o) => o.billing_reason === "subscription_meter_cycle",
    );
    expect(settled).toMatchObject({
      status: "paid",
      total_amount: 70,
      applied_balance_amount: -70,
      due_amount: 0,
    });
    const payments = await s.call(`/v1/payments/?order_id=${settled!.id}`);
    expect(payments.body.items).toEqual([]);
  });
});
