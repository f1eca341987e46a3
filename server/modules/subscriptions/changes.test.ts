// Cancellation, pause/resume and usage billed at the cycle, through the public API and the sandbox
// clock. A revoke bills the usage up to it, as Polar settles the meter cycle before ending.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  advance,
  billingSeller,
  meteredPlan,
  monthlyProduct,
  ordersOf,
  subscribe,
  subscriptionOf,
  type BillingSeller,
} from "../../../test/helpers/billing.ts";
import { api } from "../../../test/helpers/auth.ts";
import { eventsOf } from "../../../test/helpers/catalog.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

let t: TestServer;
let s: BillingSeller;

beforeAll(async () => {
  t = await startTestServer();
  s = await billingSeller(t);
});
afterAll(() => t.stop());

const DAY = 86_400_000;
const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();
const monthly = (name: string, amount: number) => monthlyProduct(s, name, amount);
const patch = (id: string, body: unknown) =>
  s.call(`/v1/subscriptions/${id}`, { method: "PATCH", body });

describe("cancellation", () => {
  it("cancel at period end ends it there with no cycle order; uncancel before restores renewals", async () => {
    const product = await monthly("Cancelable", 1000);
    const { subscriptionId, customerId } = await subscribe(s, product.id);
    const canceled = await patch(subscriptionId, { cancel_at_period_end: true });
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({ cancel_at_period_end: true, status: "active" });
    const end = canceled.body.current_period_end as string;
    expect(canceled.body.ends_at).toBe(end);
    await advance(s, { to: end });
    const sub = await subscriptionOf(s, subscriptionId);
    expect(sub).toMatchObject({ status: "canceled", ended_at: end });
    expect(
      (await ordersOf(s, subscriptionId)).filter((o) => o.billing_reason === "subscription_cycle"),
    ).toHaveLength(0);
    // Once it has ended there is nothing to uncancel: Polar's ResourceUnavailable, also in the portal.
    const gone = { status: 410, body: { error: "ResourceUnavailable", detail: "Unavailable" } };
    const late = await patch(subscriptionId, { cancel_at_period_end: false });
    expect({ status: late.status, body: late.body }).toEqual(gone);
    const session = await s.call("/v1/customer-sessions/", { body: { customer_id: customerId } });
    const portal = await api(t.url, `/v1/customer-portal/subscriptions/${subscriptionId}`, {
      token: session.body.token,
      method: "PATCH",
      body: { cancel_at_period_end: false },
    });
    expect({ status: portal.status, body: portal.body }).toEqual(gone);

    const other = await subscribe(s, product.id);
    // Nothing to uncancel on one not set to cancel: Polar's BadRequest, and nothing changes.
    const notCanceling = await patch(other.subscriptionId, { cancel_at_period_end: false });
    expect({ status: notCanceling.status, body: notCanceling.body }).toEqual({
      status: 400,
      body: { error: "BadRequest", detail: "Bad request" },
    });
    await patch(other.subscriptionId, { cancel_at_period_end: true });
    const restored = await patch(other.subscriptionId, { cancel_at_period_end: false });
    expect(restored.body).toMatchObject({ cancel_at_period_end: false, ends_at: null });
    await advance(s, { to: restored.body.current_period_end });
    expect((await subscriptionOf(s, other.subscriptionId)).status).toBe("active");
    expect(
      (await ordersOf(s, other.subscriptionId)).filter(
        (o) => o.billing_reason === "subscription_cycle",
      ),
    ).toHaveLength(1);
  });
});

describe("the end of a subscription canceled at its period end", () => {
  it("bills the last period's usage and a waiting proration in a final order, and nothing more", async () => {
    const meter = await s.polar.meters.create({
      name: "Final calls",
      filter: {
        conjunction: "and",
        clauses: [{ property: "name", operator: "eq", value: "final_call" }],
      },
      aggregation: { func: "count" },
    });
    const metered = await s.polar.products.create({
      name: "Metered to the end",
      recurringInterval: "month",
      prices: [
        { amountType: "fixed", priceAmount: 500, priceCurrency: "usd" },
        { amountType: "metered_unit", meterId: meter.id, unitAmount: "10", priceCurrency: "usd" },
      ],
    });
    const { subscriptionId, customerId } = await subscribe(s, metered.id);
    const sub = await subscriptionOf(s, subscriptionId);
    const events = Array.from({ length: 37 }, (_, i) => ({
      name: "final_call",
      customer_id: customerId,
      timestamp: plus(sub.current_period_start, (i + 1) * 3600_000),
    }));
    expect((await s.call("/v1/events/ingest", { body: { events } })).status).toBe(200);
    expect((await patch(subscriptionId, { cancel_at_period_end: true })).status).toBe(200);
    await advance(s, { to: sub.current_period_end });
    await advance(s, { to: sub.current_period_end });
    expect((await subscriptionOf(s, subscriptionId)).status).toBe("canceled");
    const after = (await ordersOf(s, subscriptionId)).filter(
      (o) => o.billing_reason !== "subscription_create",
    );
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({
      billing_reason: "subscription_cycle",
      status: "paid",
      subtotal_amount: 370,
      total_amount: 370,
    });
    expect(after[0]!.items.map((i: { amount: number }) => i.amount)).toEqual([370]);

    // A prorate upgrade waiting for the next cycle is billed at the end instead.
    const basic = await monthly("Basic to the end", 1000);
    const pro = await monthly("Pro to the end", 3000);
    const second = await subscribe(s, basic.id);
    const period = await subscriptionOf(s, second.subscriptionId);
    const half =
      (Date.parse(period.current_period_end) - Date.parse(period.current_period_start)) / 2;
    await advance(s, { to: plus(period.current_period_start, half) });
    const upgraded = await patch(second.subscriptionId, {
      product_id: pro.id,
      proration_behavior: "prorate",
    });
    expect(upgraded.status).toBe(200);
    expect((await patch(second.subscriptionId, { cancel_at_period_end: true })).status).toBe(200);
    await advance(s, { to: period.current_period_end });
    const [final, ...more] = (await ordersOf(s, second.subscriptionId)).filter(
      (o) => o.billing_reason !== "subscription_create",
    );
    expect(more).toEqual([]);
    expect(final!.items).toEqual([expect.objectContaining({ proration: true })]);
    expect(final!.total_amount).toBeGreaterThanOrEqual(990);
    expect(final!.total_amount).toBeLessThanOrEqual(1010);
  });
});

describe("a subscription revoked now", () => {
  it("bills the usage up to the revoke, as a meter cycle settles it, and nothing after", async () => {
    const plan = await meteredPlan(s, { name: "revoked", interval: "month", credit: 0 });
    const { subscriptionId, customerId } = await subscribe(s, plan.product.id);
    const sub = await subscriptionOf(s, subscriptionId);
    const use = (from: string, count: number) =>
      s.call("/v1/events/ingest", {
        body: {
          events: Array.from({ length: count }, (_, i) => ({
            name: plan.event,
            customer_id: customerId,
            timestamp: plus(from, (i + 1) * 3600_000),
          })),
        },
      });
    await use(sub.current_period_start, 12);
    await advance(s, { to: plus(sub.current_period_start, 10 * DAY) });
    const revoked = await patch(subscriptionId, { revoke: true });
    expect(revoked.body).toMatchObject({ status: "canceled" });
    await use(plus(sub.current_period_start, 10 * DAY), 5);
    await advance(s, { to: plus(sub.current_period_end, DAY) });
    const after = (await ordersOf(s, subscriptionId)).filter(
      (o) => o.billing_reason !== "subscription_create",
    );
    expect(after).toEqual([
      expect.objectContaining({
        billing_reason: "subscription_meter_cycle",
        status: "paid",
        total_amount: 120,
        created_at: revoked.body.ended_at,
      }),
    ]);
  });
});

describe("pause and resume", () => {
  it("pauses at period end without an order, resumes at resumes_at with a new period charged then", async () => {
    const product = await monthly("Pausable", 1200);
    const { subscriptionId } = await subscribe(s, product.id);
    const sub = await subscriptionOf(s, subscriptionId);
    const end = sub.current_period_end as string;
    const resumesAt = plus(end, 10 * DAY);
    const early = await patch(subscriptionId, { pause_at_period_end: true, resumes_at: end });
    expect(early.status).toBe(422);
    const paused = await patch(subscriptionId, {
      pause_at_period_end: true,
      resumes_at: resumesAt,
    });
    expect(paused.body).toMatchObject({ pause_at_period_end: true, resumes_at: resumesAt });
    await advance(s, { to: plus(end, DAY) });
    expect(await subscriptionOf(s, subscriptionId)).toMatchObject({
      status: "paused",
      paused_at: end,
    });
    expect(await ordersOf(s, subscriptionId)).toHaveLength(1);
    await advance(s, { to: resumesAt });
    const resumed = await subscriptionOf(s, subscriptionId);
    expect(resumed).toMatchObject({ status: "active", current_period_start: resumesAt });
    const cycles = (await ordersOf(s, subscriptionId)).filter(
      (o) => o.billing_reason === "subscription_cycle",
    );
    expect(cycles).toHaveLength(1);
    expect(cycles[0]).toMatchObject({ status: "paid", total_amount: 1200 });
    // subscription.resumed shows the period the resume starts, as the renewal then sets it.
    const [event] = (await eventsOf(t, s.organizationId)).filter(
      (e) => e.type === "subscription.resumed" && e.payload.data.id === subscriptionId,
    );
    expect(event!.payload.data).toMatchObject({
      status: "active",
      current_period_start: resumesAt,
      current_period_end: resumed.current_period_end,
    });

    // Paused again by hand, then resumed through the API.
    await patch(subscriptionId, { pause_at_period_end: true });
    await advance(s, { to: resumed.current_period_end });
    expect((await subscriptionOf(s, subscriptionId)).status).toBe("paused");
    const back = await patch(subscriptionId, { resume: true });
    expect(back.status).toBe(200);
    expect(back.body.status).toBe("active");
    expect(
      (await ordersOf(s, subscriptionId)).filter((o) => o.billing_reason === "subscription_cycle"),
    ).toHaveLength(2);
    const again = await patch(subscriptionId, { resume: true });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe("NotPausedSubscription");
  });
});

describe("usage at the cycle", () => {
  it("usage sent without a timestamp happens on the sandbox clock, so it is billed", async () => {
    const plan = await meteredPlan(s, { name: "clocked", interval: "month", credit: 0 });
    const { subscriptionId, customerId } = await subscribe(s, plan.product.id);
    const sub = await subscriptionOf(s, subscriptionId);
    // Halfway through the period on the sandbox clock, days ahead of real time.
    const half = (Date.parse(sub.current_period_end) - Date.parse(sub.current_period_start)) / 2;
    const moved = await advance(s, { to: plus(sub.current_period_start, half) });
    const events = Array.from({ length: 7 }, () => ({
      name: "clocked_call",
      customer_id: customerId,
    }));
    expect((await s.call("/v1/events/ingest", { body: { events } })).status).toBe(200);
    const listed = await s.call(`/v1/events/?customer_id=${customerId}&name=clocked_call`);
    expect(listed.body.items).toHaveLength(7);
    for (const e of listed.body.items)
      expect(Date.parse(e.timestamp)).toBeGreaterThanOrEqual(Date.parse(moved.now));
    await advance(s, { to: sub.current_period_end });
    const [cycle] = (await ordersOf(s, subscriptionId)).filter(
      (o) => o.billing_reason === "subscription_cycle",
    );
    expect(cycle).toMatchObject({ status: "paid", subtotal_amount: 10_000 + 70 });
  });

  it("bills $5 fixed plus $0.10 per unit of the period's usage on the cycle order", async () => {
    const meter = await s.polar.meters.create({
      name: "API calls",
      filter: {
        conjunction: "and",
        clauses: [{ property: "name", operator: "eq", value: "api_call" }],
      },
      aggregation: { func: "count" },
    });
    const product = await s.polar.products.create({
      name: "Metered",
      recurringInterval: "month",
      prices: [
        { amountType: "fixed", priceAmount: 500, priceCurrency: "usd" },
        { amountType: "metered_unit", meterId: meter.id, unitAmount: "10", priceCurrency: "usd" },
      ],
    });
    const { subscriptionId, customerId } = await subscribe(s, product.id);
    const sub = await subscriptionOf(s, subscriptionId);
    const start = sub.current_period_start as string;
    const events = Array.from({ length: 37 }, (_, i) => ({
      name: "api_call",
      customer_id: customerId,
      timestamp: plus(start, (i + 1) * 3600_000),
    }));
    // One event after the period end belongs to the next period.
    events.push({
      name: "api_call",
      customer_id: customerId,
      timestamp: plus(sub.current_period_end, 1000),
    });
    expect((await s.call("/v1/events/ingest", { body: { events } })).status).toBe(200);
    // The period's usage so far, as Polar's SubscriptionMeter (read through Polar's SDK).
    const running = await s.polar.subscriptions.get({ id: subscriptionId });
    expect(running.meters).toEqual([
      expect.objectContaining({
        consumedUnits: 37,
        creditedUnits: 0,
        amount: 370,
        meterId: meter.id,
      }),
    ]);
    expect(running.meters[0]!.meter.name).toBe("API calls");
    await advance(s, { to: sub.current_period_end });
    // The new period has the one later event so far.
    expect((await subscriptionOf(s, subscriptionId)).meters).toEqual([
      expect.objectContaining({ id: running.meters[0]!.id, consumed_units: 1, amount: 10 }),
    ]);
    const [cycle] = (await ordersOf(s, subscriptionId)).filter(
      (o) => o.billing_reason === "subscription_cycle",
    );
    expect(cycle).toMatchObject({ status: "paid", subtotal_amount: 500 + 370, total_amount: 870 });
    const lines = cycle!.items.map((i: { amount: number; product_price_id: string }) => [
      i.product_price_id,
      i.amount,
    ]);
    // In the order the lines were made: the product's prices in turn.
    expect(lines).toEqual([
      [product.prices.find((p) => p.amountType === "fixed")!.id, 500],
      [product.prices.find((p) => p.amountType === "metered_unit")!.id, 370],
    ]);
  });
});
