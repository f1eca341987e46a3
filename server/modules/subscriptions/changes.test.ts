// Cancellation, pause/resume, usage billed at the cycle and plan changes, through the public API and
// the sandbox clock.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  advance,
  billingSeller,
  meteredPlan,
  ordersOf,
  subscribe,
  subscriptionOf,
  type BillingSeller,
} from "../../../test/helpers/billing.ts";
import { eventsOf } from "../../../test/helpers/catalog.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

let t: TestServer;
let s: BillingSeller;

beforeAll(async () => {
  // German VAT for the customers a test places there; everyone else buys from the US, untaxed.
  t = await startTestServer({ env: { TAX_RATES: "DE:1900" } });
  s = await billingSeller(t);
});
afterAll(() => t.stop());

const DAY = 86_400_000;
const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();

async function monthly(
  name: string,
  amount: number,
  interval: "month" | "year" = "month",
  trialDays?: number,
) {
  return s.polar.products.create({
    name,
    recurringInterval: interval,
    ...(trialDays ? { trialInterval: "day" as const, trialIntervalCount: trialDays } : {}),
    prices: [{ amountType: "fixed", priceAmount: amount, priceCurrency: "usd" }],
  });
}

const patch = (id: string, body: unknown) =>
  s.call(`/v1/subscriptions/${id}`, { method: "PATCH", body });

describe("cancellation", () => {
  it("cancel at period end ends it there with no cycle order; uncancel before restores renewals", async () => {
    const product = await monthly("Cancelable", 1000);
    const { subscriptionId } = await subscribe(s, product.id);
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

    const other = await subscribe(s, product.id);
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
    expect(again.status).toBe(403);
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

describe("plan changes", () => {
  it("an invoice upgrade at mid-period charges about half the difference in a subscription_update order", async () => {
    const basic = await monthly("Basic", 1000);
    const pro = await monthly("Pro plan", 3000);
    const { subscriptionId } = await subscribe(s, basic.id);
    const sub = await subscriptionOf(s, subscriptionId);
    const half = (Date.parse(sub.current_period_end) - Date.parse(sub.current_period_start)) / 2;
    await advance(s, { to: plus(sub.current_period_start, half) });
    const changed = await patch(subscriptionId, {
      product_id: pro.id,
      proration_behavior: "invoice",
    });
    expect(changed.status).toBe(200);
    expect(changed.body.product_id).toBe(pro.id);
    // Its amount is the new plan's from now on (what lists, webhooks, the portal and MRR show).
    expect(changed.body.amount).toBe(3000);
    const update = (await ordersOf(s, subscriptionId)).find(
      (o) => o.billing_reason === "subscription_update",
    );
    expect(update).toMatchObject({ status: "paid" });
    expect(update!.total_amount).toBeGreaterThanOrEqual(990);
    expect(update!.total_amount).toBeLessThanOrEqual(1010);
    await advance(s, { to: sub.current_period_end });
    const [cycle] = (await ordersOf(s, subscriptionId)).filter(
      (o) => o.billing_reason === "subscription_cycle",
    );
    expect(cycle).toMatchObject({ total_amount: 3000, product_id: pro.id });
  });

  it("an invoice change is taxed as the customer's renewals are, and a credit gives the tax back", async () => {
    const basic = await monthly("Basic taxed", 1000);
    const pro = await monthly("Pro taxed", 3000);
    const { subscriptionId } = await subscribe(s, basic.id, undefined, undefined, "DE");
    const sub = await subscriptionOf(s, subscriptionId);
    const half = (Date.parse(sub.current_period_end) - Date.parse(sub.current_period_start)) / 2;
    await advance(s, { to: plus(sub.current_period_start, half) });
    const change = async (productId: string) => {
      const res = await patch(subscriptionId, {
        product_id: productId,
        proration_behavior: "invoice",
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return (await ordersOf(s, subscriptionId))
        .filter((o) => o.billing_reason === "subscription_update")
        .at(-1)!;
    };
    const check = (o: Record<string, any>) => {
      expect(o.tax_amount).toBe(
        o.items.reduce((sum: number, i: { tax_amount: number }) => sum + i.tax_amount, 0),
      );
      expect(Math.abs(o.tax_amount - Math.round(o.subtotal_amount * 0.19))).toBeLessThanOrEqual(1);
      expect(o.total_amount).toBe(o.subtotal_amount + o.tax_amount);
    };
    const up = await change(pro.id);
    expect(up.subtotal_amount).toBeGreaterThan(900);
    check(up);
    const down = await change(basic.id);
    expect(down.subtotal_amount).toBeLessThan(-900);
    check(down);
  });

  it("a prorate downgrade's credit beyond its cycle order gives the tax back too", async () => {
    const pro = await monthly("Pro credit taxed", 3000);
    const basic = await monthly("Basic credit taxed", 500);
    const { subscriptionId } = await subscribe(s, pro.id, undefined, undefined, "DE");
    const sub = await subscriptionOf(s, subscriptionId);
    const half = (Date.parse(sub.current_period_end) - Date.parse(sub.current_period_start)) / 2;
    await advance(s, { to: plus(sub.current_period_start, half) });
    const res = await patch(subscriptionId, {
      product_id: basic.id,
      proration_behavior: "prorate",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await advance(s, { to: sub.current_period_end });
    const cycle = (await ordersOf(s, subscriptionId)).find(
      (o) => o.billing_reason === "subscription_cycle",
    )!;
    // 500 for the new period and half of the 2500 difference credited: about −750 net, and its
    // 19 % back.
    expect(cycle.net_amount).toBeLessThan(-740);
    expect(cycle.tax_amount).toBe(-Math.round(-cycle.net_amount * 0.19));
    expect(cycle.total_amount).toBe(cycle.net_amount + cycle.tax_amount);
  });

  it("an invoice upgrade prorates net of the discount and records its payment", async () => {
    const basic = await monthly("Basic discounted", 1000);
    const pro = await monthly("Pro discounted", 3000);
    const half = await s.polar.discounts.create({
      name: "Half forever",
      type: "percentage",
      basisPoints: 5000,
      duration: "forever",
    });
    const { subscriptionId } = await subscribe(s, basic.id);
    expect((await patch(subscriptionId, { discount_id: half.id })).status).toBe(200);
    const sub = await subscriptionOf(s, subscriptionId);
    const mid = (Date.parse(sub.current_period_end) - Date.parse(sub.current_period_start)) / 2;
    await advance(s, { to: plus(sub.current_period_start, mid) });
    const changed = await patch(subscriptionId, {
      product_id: pro.id,
      proration_behavior: "invoice",
    });
    expect(changed.status).toBe(200);
    expect(changed.body.amount).toBe(1500);
    const update = (await ordersOf(s, subscriptionId)).find(
      (o) => o.billing_reason === "subscription_update",
    )!;
    // Half of (1500 − 500), not half of (3000 − 1000).
    expect(update.total_amount).toBeGreaterThanOrEqual(495);
    expect(update.total_amount).toBeLessThanOrEqual(505);
    const payments = await s.call(`/v1/payments/?order_id=${update.id}`);
    expect(payments.body.items).toMatchObject([
      { status: "succeeded", amount: update.total_amount, order_id: update.id },
    ]);
  });

  it("a declined plan-change charge changes nothing and is recorded as a failed payment", async () => {
    const basic = await monthly("Basic declined", 1000);
    const pro = await monthly("Pro declined", 3000);
    const { subscriptionId, customerId } = await subscribe(
      s,
      basic.id,
      "sandbox_token_renewal_declined",
    );
    const res = await patch(subscriptionId, { product_id: pro.id, proration_behavior: "invoice" });
    expect(res.status).toBe(402);
    expect((await subscriptionOf(s, subscriptionId)).product_id).toBe(basic.id);
    const payments = await s.call(`/v1/payments/?customer_id=${customerId}&status=failed`);
    expect(payments.body.items).toHaveLength(1);
    expect(payments.body.items[0]).toMatchObject({
      order_id: null,
      decline_reason: "card_declined",
    });
  });

  it("next_period records a pending update applied at the renewal; clearing it keeps the plan", async () => {
    const small = await monthly("Small", 2000);
    const large = await monthly("Large", 5000);
    const { subscriptionId } = await subscribe(s, small.id);
    const changed = await patch(subscriptionId, {
      product_id: large.id,
      proration_behavior: "next_period",
    });
    expect(changed.body).toMatchObject({ product_id: small.id, amount: 2000 });
    expect(changed.body.pending_update).toMatchObject({
      product_id: large.id,
      applies_at: changed.body.current_period_end,
    });
    await advance(s, { to: changed.body.current_period_end });
    const after = await subscriptionOf(s, subscriptionId);
    expect(after).toMatchObject({ product_id: large.id, pending_update: null, amount: 5000 });
    const [cycle] = (await ordersOf(s, subscriptionId)).filter(
      (o) => o.billing_reason === "subscription_cycle",
    );
    expect(cycle).toMatchObject({ total_amount: 5000, product_id: large.id });

    const other = await subscribe(s, small.id);
    await patch(other.subscriptionId, { product_id: large.id, proration_behavior: "next_period" });
    const cleared = await patch(other.subscriptionId, { pending_update: null });
    expect(cleared.body.pending_update).toBeNull();
    await advance(s, { to: cleared.body.current_period_end });
    expect((await subscriptionOf(s, other.subscriptionId)).product_id).toBe(small.id);
  });

  it("the portal changes the plan with the organization's prorate: the difference is on the next cycle order", async () => {
    const basic = await monthly("Portal basic", 1000);
    const pro = await monthly("Portal pro", 3000);
    const { subscriptionId, customerId } = await subscribe(s, basic.id);
    const sub = await subscriptionOf(s, subscriptionId);
    const half = (Date.parse(sub.current_period_end) - Date.parse(sub.current_period_start)) / 2;
    await advance(s, { to: plus(sub.current_period_start, half) });
    const session = await s.polar.customerSessions.create({ customerId });
    const res = await fetch(`${t.url}/v1/customer-portal/subscriptions/${subscriptionId}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${session.token}`, "content-type": "application/json" },
      body: JSON.stringify({ product_id: pro.id }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { product_id: string }).product_id).toBe(pro.id);
    expect(
      (await ordersOf(s, subscriptionId)).filter((o) => o.billing_reason === "subscription_update"),
    ).toHaveLength(0);
    await advance(s, { to: sub.current_period_end });
    const [cycle] = (await ordersOf(s, subscriptionId)).filter(
      (o) => o.billing_reason === "subscription_cycle",
    );
    expect(cycle!.items.map((i: { amount: number }) => i.amount)).toContain(3000);
    expect(cycle!.total_amount).toBeGreaterThanOrEqual(3990);
    expect(cycle!.total_amount).toBeLessThanOrEqual(4010);
    expect(cycle!.items.some((i: { proration: boolean }) => i.proration)).toBe(true);
  });

  describe("to another interval", () => {
    // A year on the sandbox clock renews every subscription of the organization month by month:
    // each of these runs in an organization of its own, so its year renews only what it made.
    beforeEach(async () => {
      s = await billingSeller(t);
    });

    it("a move to a yearly plan starts a year now, charged at once less the month's unused part", async () => {
      const basic = await monthly("Monthly to yearly", 1000);
      const yearly = await monthly("Yearly plan", 10000, "year");
      const { subscriptionId } = await subscribe(s, basic.id);
      const sub = await subscriptionOf(s, subscriptionId);
      const half = (Date.parse(sub.current_period_end) - Date.parse(sub.current_period_start)) / 2;
      const at = plus(sub.current_period_start, half);
      await advance(s, { to: at });
      // prorate, the organization's default, would wait for the next cycle order: a new interval
      // is settled now, as Polar does.
      const changed = await patch(subscriptionId, {
        product_id: yearly.id,
        proration_behavior: "prorate",
      });
      expect(changed.status).toBe(200);
      // The period starts at the change (the sandbox clock runs on from `at`) and lasts a year.
      const start = changed.body.current_period_start as string;
      expect(Date.parse(start) - Date.parse(at)).toBeGreaterThanOrEqual(0);
      expect(Date.parse(start) - Date.parse(at)).toBeLessThan(60_000);
      const nextYear = new Date(start);
      nextYear.setUTCFullYear(nextYear.getUTCFullYear() + 1);
      expect(changed.body).toMatchObject({
        recurring_interval: "year",
        recurring_interval_count: 1,
        current_period_end: nextYear.toISOString(),
        amount: 10000,
      });
      const [update] = (await ordersOf(s, subscriptionId)).filter(
        (o) => o.billing_reason === "subscription_update",
      );
      // The year in full, less about half the month.
      expect(update).toMatchObject({ status: "paid", product_id: yearly.id });
      expect(update!.total_amount).toBeGreaterThanOrEqual(9490);
      expect(update!.total_amount).toBeLessThanOrEqual(9510);
      // Nothing is carried to a cycle: the old period's end bills nothing, the year's end the year.
      await advance(s, { to: sub.current_period_end });
      const cycles = async () =>
        (await ordersOf(s, subscriptionId)).filter(
          (o) => o.billing_reason === "subscription_cycle",
        );
      expect(await cycles()).toHaveLength(0);
      await advance(s, { to: nextYear.toISOString() });
      expect(await cycles()).toMatchObject([{ total_amount: 10000, product_id: yearly.id }]);
    });

    it("a prorate change still waiting is settled by a move to a yearly plan, not a year later", async () => {
      const basic = await monthly("Waiting basic", 1000);
      const pro = await monthly("Waiting pro", 2000);
      const yearly = await monthly("Waiting yearly", 10000, "year");
      const { subscriptionId } = await subscribe(s, basic.id);
      const sub = await subscriptionOf(s, subscriptionId);
      const third = (Date.parse(sub.current_period_end) - Date.parse(sub.current_period_start)) / 3;
      await advance(s, { to: plus(sub.current_period_start, third) });
      expect(
        (await patch(subscriptionId, { product_id: pro.id, proration_behavior: "prorate" })).status,
      ).toBe(200);
      await advance(s, { to: plus(sub.current_period_start, 2 * third) });
      expect(
        (await patch(subscriptionId, { product_id: yearly.id, proration_behavior: "invoice" }))
          .status,
      ).toBe(200);
      const [update] = (await ordersOf(s, subscriptionId)).filter(
        (o) => o.billing_reason === "subscription_update",
      );
      // About 2/3 × (20 − 10) waiting, less 1/3 × 20 unused, plus the year.
      const line = (label: string) =>
        update!.items.find((i: { label: string }) => i.label.startsWith(label))?.amount as number;
      // Items come back in the order they were made: the waiting proration, the credit, the debit.
      expect(update!.items.map((i: { label: string }) => i.label)).toEqual([
        "Plan change (prorated)",
        "Unused time on Waiting pro",
        "Remaining time on Waiting yearly",
      ]);
      expect(line("Plan change (prorated)")).toBeGreaterThanOrEqual(660);
      expect(line("Plan change (prorated)")).toBeLessThanOrEqual(672);
      expect(line("Unused time on Waiting pro")).toBeLessThan(-660);
      expect(line("Remaining time on Waiting yearly")).toBe(10000);
      expect(update!.total_amount).toBe(
        line("Plan change (prorated)") +
          line("Unused time on Waiting pro") +
          line("Remaining time on Waiting yearly"),
      );
      const renewed = await subscriptionOf(s, subscriptionId);
      await advance(s, { to: renewed.current_period_end });
      const [cycle] = (await ordersOf(s, subscriptionId)).filter(
        (o) => o.billing_reason === "subscription_cycle",
      );
      expect(cycle).toMatchObject({ total_amount: 10000 });
      expect(cycle!.items.some((i: { proration: boolean }) => i.proration)).toBe(false);
    });

    it("a trial moved to a yearly plan bills nothing until its end, then the year", async () => {
      const trialPlan = await monthly("Trial monthly", 1000, "month", 14);
      const yearly = await monthly("Trial to yearly", 10000, "year");
      const { subscriptionId } = await subscribe(s, trialPlan.id);
      const trial = await subscriptionOf(s, subscriptionId);
      await advance(s, { to: plus(trial.current_period_start, 7 * DAY) });
      const changed = await patch(subscriptionId, {
        product_id: yearly.id,
        proration_behavior: "invoice",
      });
      expect(changed.status).toBe(200);
      expect(changed.body).toMatchObject({
        status: "trialing",
        product_id: yearly.id,
        recurring_interval: "year",
        current_period_end: trial.trial_end,
      });
      const charged = async () => (await ordersOf(s, subscriptionId)).filter((o) => o.total_amount);
      expect(await charged()).toHaveLength(0);
      await advance(s, { to: trial.trial_end });
      expect(await charged()).toMatchObject([
        { billing_reason: "subscription_cycle", total_amount: 10000 },
      ]);
      const nextYear = new Date(trial.trial_end);
      nextYear.setUTCFullYear(nextYear.getUTCFullYear() + 1);
      expect((await subscriptionOf(s, subscriptionId)).current_period_end).toBe(
        nextYear.toISOString(),
      );
    });

    it("a yearly plan scheduled for the next period renews for a year from then", async () => {
      const basic = await monthly("Monthly then yearly", 1000);
      const yearly = await monthly("Yearly later", 10000, "year");
      const { subscriptionId } = await subscribe(s, basic.id);
      const sub = await subscriptionOf(s, subscriptionId);
      expect(
        (await patch(subscriptionId, { product_id: yearly.id, proration_behavior: "next_period" }))
          .status,
      ).toBe(200);
      await advance(s, { to: sub.current_period_end });
      const renewed = await subscriptionOf(s, subscriptionId);
      const nextYear = new Date(sub.current_period_end);
      nextYear.setUTCFullYear(nextYear.getUTCFullYear() + 1);
      expect(renewed).toMatchObject({
        product_id: yearly.id,
        recurring_interval: "year",
        current_period_end: nextYear.toISOString(),
      });
    });
  });

  it("refuses a product of nothing recurring with a 422 and changes nothing", async () => {
    const plan = await monthly("Kept", 1000);
    const oneTime = await s.polar.products.create({
      name: "Ebook",
      prices: [{ amountType: "fixed", priceAmount: 900, priceCurrency: "usd" }],
    });
    const { subscriptionId } = await subscribe(s, plan.id);
    const res = await patch(subscriptionId, {
      product_id: oneTime.id,
      proration_behavior: "invoice",
    });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(["body", "product_id"]);
    expect((await subscriptionOf(s, subscriptionId)).product_id).toBe(plan.id);
  });

  it("refuses a product without a price in the subscription's currency, and a bad rest of the update, before charging", async () => {
    const plan = await monthly("Kept in dollars", 1000);
    const euros = await s.polar.products.create({
      name: "Euro plan",
      recurringInterval: "month",
      prices: [{ amountType: "fixed", priceAmount: 900, priceCurrency: "eur" }],
    });
    const pro = await monthly("Pro kept", 3000);
    const { subscriptionId } = await subscribe(s, plan.id);
    const before = await ordersOf(s, subscriptionId);
    const currency = await patch(subscriptionId, {
      product_id: euros.id,
      proration_behavior: "prorate",
    });
    expect(currency.status).toBe(422);
    expect(currency.body.detail[0].loc).toEqual(["body", "product_id"]);
    expect(currency.body.detail[0].msg).toBe(
      "This product doesn't have a price for the subscription currency.",
    );
    // An unknown discount, or a trial end in the past, with a plan change: nothing is changed or
    // charged, where the plan change used to commit before the rest was refused.
    for (const rest of [
      { discount_id: "00000000-0000-4000-8000-000000000000" },
      { trial_end: "2001-01-01T00:00:00Z" },
    ]) {
      const res = await patch(subscriptionId, {
        product_id: pro.id,
        proration_behavior: "invoice",
        ...rest,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(422);
    }
    const after = await subscriptionOf(s, subscriptionId);
    expect(after).toMatchObject({ product_id: plan.id, amount: 1000, modified_at: null });
    expect(await ordersOf(s, subscriptionId)).toHaveLength(before.length);

    // A product priced in both currencies: only its dollar price is the subscription's.
    const both = await s.polar.products.create({
      name: "Pro in two currencies",
      recurringInterval: "month",
      prices: [
        { amountType: "fixed", priceAmount: 2000, priceCurrency: "usd" },
        { amountType: "fixed", priceAmount: 1800, priceCurrency: "eur" },
      ],
    });
    const sub = await subscriptionOf(s, subscriptionId);
    const half = (Date.parse(sub.current_period_end) - Date.parse(sub.current_period_start)) / 2;
    await advance(s, { to: plus(sub.current_period_start, half) });
    const moved = await patch(subscriptionId, {
      product_id: both.id,
      proration_behavior: "invoice",
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body).toMatchObject({ amount: 2000, currency: "usd" });
    expect(moved.body.prices.map((p: { price_currency: string }) => p.price_currency)).toEqual([
      "usd",
    ]);
    const update = (await ordersOf(s, subscriptionId)).find(
      (o) => o.billing_reason === "subscription_update",
    )!;
    // Half of the 1000 difference, give or take a second's rounding.
    expect(Math.abs(update.subtotal_amount - 500)).toBeLessThanOrEqual(2);
  });

  it("a bad value in an update names its field, whichever of the update's shapes it belongs to", async () => {
    const plan = await monthly("Named", 1000);
    const { subscriptionId } = await subscribe(s, plan.id);
    const cases: [Record<string, unknown>, string, string][] = [
      [{ product_id: plan.id, proration_behavior: "bogus" }, "proration_behavior", "enum"],
      [{ pause_at_period_end: "yes" }, "pause_at_period_end", "boolean_type"],
      [{ seats: "x" }, "seats", "number_type"],
      [{ seats: 10_001, proration_behavior: "invoice" }, "seats", "less_than_equal"],
      [{ seats: 0 }, "seats", "greater_than_equal"],
      [{ resumes_at: "2030-01-01T00:00:00Z" }, "pause_at_period_end", "missing"],
      [{ bogus: 1 }, "", "extra_forbidden"],
      [
        { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) },
        "metadata",
        "value_error",
      ],
    ];
    for (const [body, field, type] of cases) {
      const res = await patch(subscriptionId, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.detail[0], JSON.stringify(body)).toMatchObject({
        loc: field ? ["body", field] : ["body"],
        type,
      });
    }
    expect((await subscriptionOf(s, subscriptionId)).modified_at).toBeNull();
    // A body that is not JSON is refused, not read as no body (which changed nothing, with a 200).
    for (const [type, body] of [
      ["application/x-www-form-urlencoded", "cancel_at_period_end=true"],
      ["text/plain", JSON.stringify({ cancel_at_period_end: true })],
    ]) {
      const res = await fetch(`${t.url}/v1/subscriptions/${subscriptionId}`, {
        method: "PATCH",
        headers: { authorization: `Bearer ${s.token}`, "content-type": type! },
        body,
      });
      expect(res.status, type).toBe(415);
      expect(await res.json()).toMatchObject({ error: "UnsupportedMediaType" });
    }
    expect((await subscriptionOf(s, subscriptionId)).cancel_at_period_end).toBe(false);
  });
});
