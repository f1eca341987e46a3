// GET /v1/metrics/ against hand-computed figures: purchases placed at known times with the test
// clock (a one-time product, a monthly and a yearly subscription, an unpaid checkout), a partial
// refund and a cancellation, bucketed by month, by day in another timezone, filtered by product;
// the limits; bad queries answered 422.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestClock } from "../../lib/clock.ts";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { US_ADDRESS } from "../../../test/helpers/addresses.ts";

let t: TestServer;
let token: string;
const clock = new TestClock();
const ids: Record<string, string> = {};
let orgCreated: string;

async function product(name: string, amount: number, interval: string | null) {
  const res = await api(t.url, "/v1/products/", {
    token,
    body: {
      name,
      ...(interval ? { recurring_interval: interval } : {}),
      prices: [{ amount_type: "fixed", price_amount: amount, price_currency: "usd" }],
    },
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

/** A paid purchase at the given instant; returns the order. */
async function buy(productId: string, at: string, email: string) {
  clock.set(new Date(at));
  const checkout = await api(t.url, "/v1/checkouts/", { token, body: { products: [productId] } });
  const secret = checkout.body.client_secret as string;
  await api(t.url, `/v1/checkouts/client/${secret}`, {
    method: "PATCH",
    body: { customer_email: email, customer_billing_address: US_ADDRESS },
  });
  const confirmed = await api(t.url, `/v1/checkouts/client/${secret}/confirm`, {
    body: { confirmation_token_id: "sandbox_token_success" },
  });
  expect(confirmed.status).toBe(200);
  const orders = await api(t.url, `/v1/orders/?checkout_id=${checkout.body.id}`, { token });
  return orders.body.items[0] as {
    id: string;
    subscription_id: string | null;
    customer_id: string;
  };
}

const metrics = (query: string) => api(t.url, `/v1/metrics/?${query}`, { token });

beforeAll(async () => {
  clock.set(new Date("2026-02-15T12:00:00Z"));
  t = await startTestServer({ clock, worker: false });
  const seller = await createSeller(t.url, [
    "products:write",
    "checkouts:write",
    "orders:read",
    "refunds:write",
    "subscriptions:write",
    "metrics:read",
    "events:write",
  ]);
  token = seller.token;
  orgCreated = (seller.organization as unknown as { created_at: string }).created_at;
  ids.app = await product("Desktop app", 4900, null);
  ids.monthly = await product("Monthly plan", 1900, "month");
  ids.yearly = await product("Yearly plan", 12000, "year");
  const app = await buy(ids.app, "2026-03-02T10:00:00Z", "ada@example.com");
  // 23:30 UTC on March 3 is already March 4 in Paris.
  const bob = await buy(ids.monthly, "2026-03-03T23:30:00Z", "bob@example.com");
  clock.set(new Date("2026-03-20T09:00:00Z"));
  await api(t.url, "/v1/checkouts/", { token, body: { products: [ids.app] } }); // never paid
  const yearly = await buy(ids.yearly, "2026-04-10T08:00:00Z", "cy@example.com");
  clock.set(new Date("2026-04-15T08:00:00Z"));
  const refund = await api(t.url, "/v1/refunds/", {
    token,
    body: { order_id: app.id, reason: "customer_request", amount: 2000 },
  });
  expect(refund.status).toBe(201);
  clock.set(new Date("2026-04-20T08:00:00Z"));
  const cancel = await api(t.url, `/v1/subscriptions/${yearly.subscription_id}`, {
    token,
    method: "PATCH",
    body: { cancel_at_period_end: true, customer_cancellation_reason: "too_expensive" },
  });
  expect(cancel.status).toBe(200);
  // Usage in April that cost $1.20 and $0.30 (Polar's _cost metadata, in cents).
  const usage = await api(t.url, "/v1/events/ingest", {
    token,
    body: {
      events: [120, 30].map((amount, i) => ({
        name: "completion",
        customer_id: bob.customer_id,
        timestamp: `2026-04-2${i + 1}T10:00:00Z`,
        metadata: { _cost: { amount, currency: "usd" } },
      })),
    },
  });
  expect(usage.status).toBe(200);
});
afterAll(() => t?.stop());

describe("GET /v1/metrics/", () => {
  it("by month: orders, revenue net of refunds, subscriptions, MRR, cancellations and checkouts as computed by hand", async () => {
    const res = await metrics("start_date=2026-03-01&end_date=2026-04-30&interval=month");
    expect(res.status).toBe(200);
    const [march, april] = res.body.periods;
    expect(res.body.periods).toHaveLength(2);
    expect(march).toMatchObject({
      timestamp: "2026-03-01T00:00:00.000Z",
      orders: 2,
      revenue: 6800,
      // The April refund of $20 comes off the March order it refunds.
      net_revenue: 4800,
      average_order_value: 3400,
      one_time_products: 1,
      one_time_products_revenue: 4900,
      one_time_products_net_revenue: 2900,
      new_subscriptions: 1,
      new_subscriptions_revenue: 1900,
      renewed_subscriptions: 0,
      active_subscriptions: 1,
      monthly_recurring_revenue: 1900,
      canceled_subscriptions: 0,
      checkouts: 3,
      succeeded_checkouts: 2,
      cumulative_revenue: 6800,
    });
    expect(march.checkouts_conversion).toBeCloseTo(2 / 3, 6);
    expect(april).toMatchObject({
      timestamp: "2026-04-01T00:00:00.000Z",
      orders: 1,
      revenue: 12000,
      net_revenue: 12000,
      new_subscriptions: 1,
      new_subscriptions_revenue: 12000,
      // Canceled at period end: still active (and still counted in MRR) until the year is over.
      active_subscriptions: 2,
      monthly_recurring_revenue: 1900 + 1000,
      annual_recurring_revenue: 2900 * 12,
      average_revenue_per_user: 1450,
      canceled_subscriptions: 1,
      canceled_subscriptions_too_expensive: 1,
      canceled_subscriptions_other: 0,
      churned_subscriptions: 0,
      checkouts: 1,
      succeeded_checkouts: 1,
      cumulative_revenue: 18800,
      net_cumulative_revenue: 16800,
      // The yearly plan will not renew: only the monthly one is committed.
      committed_subscriptions: 1,
      committed_monthly_recurring_revenue: 1900,
      committed_annual_recurring_revenue: 1900 * 12,
      trial_monthly_recurring_revenue: 0,
      churn_rate: 0,
      ltv: 0,
      costs: 150,
      cumulative_costs: 150,
      active_user_by_event: 1,
      cost_per_user: 150,
      gross_margin: 12000 - 150,
      cashflow: 12000 - 150,
      seats_total: 0,
    });
    expect(april.gross_margin_percentage).toBeCloseTo(11850 / 12000, 6);
    expect(march).toMatchObject({ costs: 0, active_user_by_event: 0, committed_subscriptions: 1 });
    expect(res.body.totals).toMatchObject({
      orders: 3,
      revenue: 18800,
      net_revenue: 16800,
      average_order_value: 6267,
      active_subscriptions: 2,
      monthly_recurring_revenue: 2900,
      checkouts: 4,
      succeeded_checkouts: 3,
      checkouts_conversion: 0.75,
      canceled_subscriptions: 1,
    });
    expect(res.body.metrics.revenue).toEqual({
      slug: "revenue",
      display_name: "Revenue",
      type: "currency",
    });
  });

  it("churn rate and lifetime value: a subscription ended in June out of three active when it began", async () => {
    await buy(ids.monthly!, "2026-05-05T10:00:00Z", "dan@example.com");
    const dan = (await api(t.url, "/v1/subscriptions/?limit=100", { token })).body.items.find(
      (x: { customer: { email: string } }) => x.customer.email === "dan@example.com",
    );
    clock.set(new Date("2026-06-10T10:00:00Z"));
    const revoked = await api(t.url, `/v1/subscriptions/${dan.id}`, {
      token,
      method: "PATCH",
      body: { revoke: true },
    });
    expect(revoked.status).toBe(200);
    const res = await metrics("start_date=2026-05-01&end_date=2026-06-30&interval=month");
    const [may, june] = res.body.periods;
    expect(may).toMatchObject({ churned_subscriptions: 0, churn_rate: 0, new_subscriptions: 1 });
    expect(june).toMatchObject({ churned_subscriptions: 1, active_subscriptions: 2 });
    expect(june.churn_rate).toBeCloseTo(1 / 3, 6);
    // MRR per customer at the end of June (2,900 / 2) over the churn rate.
    expect(june.average_revenue_per_user).toBe(1450);
    expect(june.ltv).toBe(4350);
    // Over the range: one churned out of the two active when May began.
    expect(res.body.totals.churn_rate).toBeCloseTo(1 / 2, 6);
  });

  it("by day in the requested timezone: a purchase at 23:30 UTC falls on the next day in Paris", async () => {
    const utc = await metrics(
      "start_date=2026-03-03&end_date=2026-03-04&interval=day&metrics=orders",
    );
    expect(utc.body.periods).toEqual([
      { timestamp: "2026-03-03T00:00:00.000Z", orders: 1 },
      { timestamp: "2026-03-04T00:00:00.000Z", orders: 0 },
    ]);
    expect(Object.keys(utc.body.metrics)).toEqual(["orders"]);
    const paris = await metrics(
      "start_date=2026-03-03&end_date=2026-03-04&interval=day&metrics=orders&timezone=Europe/Paris",
    );
    expect(paris.body.periods).toEqual([
      { timestamp: "2026-03-02T23:00:00.000Z", orders: 0 },
      { timestamp: "2026-03-03T23:00:00.000Z", orders: 1 },
    ]);
  });

  it("filters by product and by billing type", async () => {
    const yearly = await metrics(
      `start_date=2026-03-01&end_date=2026-04-30&interval=month&product_id=${ids.yearly}`,
    );
    expect(yearly.body.totals).toMatchObject({
      orders: 1,
      revenue: 12000,
      active_subscriptions: 1,
    });
    const oneTime = await metrics(
      "start_date=2026-03-01&end_date=2026-04-30&interval=month&billing_type=one_time",
    );
    expect(oneTime.body.totals).toMatchObject({
      orders: 1,
      revenue: 4900,
      net_revenue: 2900,
      active_subscriptions: 0,
    });
  });

  it("exports the same periods as CSV", async () => {
    const res = await fetch(
      `${t.url}/v1/metrics/export?start_date=2026-03-01&end_date=2026-04-30&interval=month&metrics=orders&metrics=revenue&metrics=net_revenue`,
      { headers: { authorization: `Bearer ${token}` } },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/csv");
    expect(await res.text()).toBe(
      "timestamp,orders,revenue,net_revenue\n" +
        "2026-03-01T00:00:00.000Z,2,6800,4800\n" +
        "2026-04-01T00:00:00.000Z,1,12000,12000\n",
    );
  });

  it("limits, and bad queries answered 422 with the parameter's loc", async () => {
    const limits = await api(t.url, "/v1/metrics/limits", { token });
    expect(limits.status).toBe(200);
    expect(limits.body.min_date).toBe(new Date(orgCreated).toISOString().slice(0, 10));
    expect(limits.body.intervals.hour).toEqual({ min_days: 0, max_days: 7 });
    const cases: [string, string][] = [
      ["start_date=2026-03-01&end_date=2026-04-30&interval=fortnight", "interval"],
      ["start_date=2026-04-01&end_date=2026-03-01&interval=day", "end_date"],
      ["start_date=2026-03-01&end_date=2026-04-30&interval=hour", "interval"],
      ["start_date=2026-03-01&end_date=2026-03-02&interval=day&timezone=Mars/Base", "timezone"],
      // An offset, not a zone: PostgreSQL would read it as five hours west of UTC.
      ["start_date=2026-03-01&end_date=2026-03-02&interval=day&timezone=%2B05:00", "timezone"],
      ["start_date=2026-03-01&end_date=2026-03-02&interval=day&metrics=vibes", "metrics"],
      ["end_date=2026-03-02&interval=day", "start_date"],
    ];
    for (const [query, loc] of cases) {
      const res = await metrics(query);
      expect(res.status, query).toBe(422);
      expect(res.body.detail[0].loc, query).toEqual(["query", loc]);
    }
  });
});
