// Renewals driven by the sandbox clock, through the public API only: a monthly subscription renews
// once per period (advancing twice to the same time bills nothing twice), the clock only moves
// forward, one advance at a time, and only in sandbox mode. One advance over boundaries at
// different times (plans bought hours apart, a daily plan, a card declined at renewal) renews the
// rows due close together in one batch, yet each as of its own boundary: each cycle order, its
// payment and its events carry that time, one order per boundary, each subscription's events in
// its time order.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  advance,
  billingSeller,
  ordersOf,
  subscribe,
  subscriptionOf,
  type BillingSeller,
} from "../../../test/helpers/billing.ts";
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

async function monthly(amount = 1500, name = "Pro") {
  return s.polar.products.create({
    name,
    recurringInterval: "month",
    prices: [{ amountType: "fixed", priceAmount: amount, priceCurrency: "usd" }],
  });
}

describe("sandbox clock", () => {
  it("shows the organization's clock, advances by seconds or to a time, refuses going back", async () => {
    const shown = await s.call(`/v1/sandbox/clock?organization_id=${s.organizationId}`);
    expect(shown.status).toBe(200);
    expect(shown.body.organization_id).toBe(s.organizationId);
    const before = Date.parse(shown.body.now);
    const moved = await advance(s, { seconds: 3600 });
    expect(Date.parse(moved.now) - before).toBeGreaterThanOrEqual(3600_000);
    const back = await s.call("/v1/sandbox/clock/advance", {
      body: { to: new Date(before).toISOString() },
    });
    expect(back.status).toBe(422);
    expect(back.body.error).toBe("RequestValidationError");
    expect(back.body.detail[0].loc).toEqual(["body", "to"]);
    const both = await s.call("/v1/sandbox/clock/advance", { body: { seconds: 1, to: moved.now } });
    expect(both.status).toBe(422);
    const negative = await s.call("/v1/sandbox/clock/advance", { body: { seconds: -5 } });
    expect(negative.status).toBe(422);
    // Not a date-time: that one error, not also one about its year.
    const month13 = await s.call("/v1/sandbox/clock/advance", {
      body: { to: "2027-13-01T00:00:00Z" },
    });
    expect(month13.body.detail).toMatchObject([{ loc: ["body", "to"], type: "datetime_parsing" }]);
    expect(month13.body.detail).toHaveLength(1);
    // One call moves at most 20 years, whether by seconds or to a time: it runs all due work.
    const far = await s.call("/v1/sandbox/clock/advance", { body: { to: "9999-12-31T23:59:59Z" } });
    expect(far.status).toBe(422);
    expect(far.body.detail[0].loc).toEqual(["body", "to"]);
    const tooMany = await s.call("/v1/sandbox/clock/advance", {
      body: { seconds: 20 * 366 * 86_400 + 1 },
    });
    expect(tooMany.status).toBe(422);
    // Said as the bound on `to` says it, not as a bare number.
    expect(tooMany.body.detail[0]).toMatchObject({
      loc: ["body", "seconds"],
      msg: "The sandbox clock moves at most 7320 days (632448000 seconds) in one call.",
    });
    expect((await s.call("/v1/sandbox/clock")).body.now).not.toMatch(/^9999/);
    const after = await s.call("/v1/sandbox/clock");
    expect(Date.parse(after.body.now)).toBeGreaterThanOrEqual(Date.parse(moved.now));
    expect(after.body.offset_seconds).toBeGreaterThanOrEqual(3599);
  });

  it("never shows a clock behind real time after an advance by nothing", async () => {
    const other = await billingSeller(t);
    for (let i = 0; i < 5; i++) {
      const still = await advance(other, { seconds: 0 });
      expect(still.offset_seconds).toBe(0);
      expect(Date.parse(still.now)).toBeGreaterThanOrEqual(Date.now() - 1000);
    }
    expect((await other.call("/v1/sandbox/clock")).body.offset_seconds).toBe(0);
  });

  it("advances at once either each move the clock or are refused with 409, never both lost", async () => {
    const other = await billingSeller(t);
    // Renewals due on the way make each advance take a while, so the requests overlap.
    const product = await other.polar.products.create({
      name: "Overlap",
      recurringInterval: "day",
      prices: [{ amountType: "fixed", priceAmount: 500, priceCurrency: "usd" }],
    });
    for (let i = 0; i < 3; i++) await subscribe(other, product.id);
    // The organization's time, not the offset: an advance ends at its target, so the real time it
    // took is not added to the offset, and a busy machine makes that seconds.
    const before = Date.parse((await other.call("/v1/sandbox/clock")).body.now);
    const real = Date.now();
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        other.call("/v1/sandbox/clock/advance", { body: { seconds: 86_400 } }),
      ),
    );
    const moved = results.filter((r) => r.status === 200).length;
    const refused = results.filter((r) => r.status === 409);
    expect(moved + refused.length).toBe(5);
    expect(moved).toBeGreaterThanOrEqual(1);
    for (const r of refused) expect(r.body).toMatchObject({ error: "ClockAdvancing" });
    const clock = await other.call("/v1/sandbox/clock");
    // Each advance that answered 200 moved a day from where the last one left it: none was lost
    // (two from the same time would be a day short) and none counted twice.
    const gone = Date.parse(clock.body.now) - before;
    expect(gone).toBeGreaterThanOrEqual(moved * 86_400_000);
    expect(gone).toBeLessThanOrEqual(moved * 86_400_000 + (Date.now() - real) + 1000);
    // The lease is given back: the next advance moves it again.
    const next = await advance(other, { seconds: 60 });
    expect(Date.parse(next.now) - Date.parse(clock.body.now)).toBeGreaterThanOrEqual(59_000);
  });

  it("a reset while an advance runs is refused with 409, and the advance's time stands", async () => {
    const other = await billingSeller(t);
    const product = await other.polar.products.create({
      name: "Reset during advance",
      recurringInterval: "day",
      prices: [{ amountType: "fixed", priceAmount: 500, priceCurrency: "usd" }],
    });
    for (let i = 0; i < 3; i++) await subscribe(other, product.id);
    // Ten daily renewals of three subscriptions: the advance holds its lease a while.
    const advancing = other.call("/v1/sandbox/clock/advance", { body: { seconds: 10 * 86_400 } });
    let reset = await other.call("/v1/sandbox/clock/reset", { body: {} });
    for (let i = 0; i < 50 && reset.status === 200; i++) {
      await new Promise((r) => setTimeout(r, 10));
      reset = await other.call("/v1/sandbox/clock/reset", { body: {} });
    }
    const moved = await advancing;
    expect(moved.status).toBe(200);
    expect(reset.status).toBe(409);
    expect(reset.body).toMatchObject({ error: "ClockAdvancing" });
    const clock = (await other.call("/v1/sandbox/clock")).body;
    // The offset is the target less the real time the advance took.
    expect(clock.offset_seconds).toBeGreaterThanOrEqual(10 * 86_400 - 120);
    // Once the advance is done, a reset resets.
    const after = await other.call("/v1/sandbox/clock/reset", { body: {} });
    expect(after.status).toBe(200);
    expect((await other.call("/v1/sandbox/clock")).body.offset_seconds).toBe(0);
  });

  it("a purchase after the clock moved is dated on it, its order with its subscription", async () => {
    const other = await billingSeller(t);
    const moved = await advance(other, { seconds: 40 * 86_400 });
    const product = await other.polar.products.create({
      name: "Later",
      recurringInterval: "month",
      prices: [{ amountType: "fixed", priceAmount: 900, priceCurrency: "usd" }],
    });
    const { subscriptionId } = await subscribe(other, product.id);
    const sub = await subscriptionOf(other, subscriptionId);
    const [order] = await ordersOf(other, subscriptionId);
    expect(Date.parse(sub.started_at)).toBeGreaterThanOrEqual(Date.parse(moved.now));
    expect(Math.abs(Date.parse(order!.created_at) - Date.parse(sub.started_at))).toBeLessThan(5000);
    // Its payment with it.
    const payments = await other.call(`/v1/payments/?order_id=${order!.id}`);
    expect(payments.body.items).toHaveLength(1);
    expect(payments.body.items[0].created_at).toBe(order!.created_at);
  });

  it("expires the organization's open checkouts it moves past, with checkout.expired, not another's", async () => {
    const other = await billingSeller(t);
    const product = await monthly(900, "Expiring");
    const theirs = await other.polar.products.create({
      name: "Theirs",
      prices: [{ amountType: "fixed", priceAmount: 500, priceCurrency: "usd" }],
    });
    const mine = await s.polar.checkouts.create({ products: [product.id] });
    const notMine = await other.polar.checkouts.create({ products: [theirs.id] });
    // Less than a day ahead: the session (24 h) is still open.
    await advance(s, { seconds: 3600 });
    expect((await s.call(`/v1/checkouts/${mine.id}`)).body.status).toBe("open");
    await advance(s, { seconds: 2 * 86_400 });
    expect((await s.call(`/v1/checkouts/${mine.id}`)).body.status).toBe("expired");
    expect((await other.call(`/v1/checkouts/${notMine.id}`)).body.status).toBe("open");
    const types = (await eventsOf(t, s.organizationId))
      .filter((e) => e.payload.data.id === mine.id)
      .map((e) => e.type);
    expect(types).toContain("checkout.expired");
    expect((await eventsOf(t, other.organizationId)).map((e) => e.type)).not.toContain(
      "checkout.expired",
    );
  });
});

describe("renewals", () => {
  it("renews a monthly subscription three times: exactly three cycle orders, none extra when moved twice to the same time", async () => {
    const product = await monthly(1500);
    const { subscriptionId } = await subscribe(s, product.id);
    const first = await subscriptionOf(s, subscriptionId);
    let end = first.current_period_end as string;
    for (let i = 0; i < 3; i++) {
      await advance(s, { to: end });
      await advance(s, { to: end });
      const sub = await subscriptionOf(s, subscriptionId);
      expect(sub.status).toBe("active");
      expect(sub.current_period_start).toBe(end);
      expect(Date.parse(sub.current_period_end)).toBeGreaterThan(Date.parse(end));
      end = sub.current_period_end;
    }
    const orders = await ordersOf(s, subscriptionId);
    const cycles = orders.filter((o) => o.billing_reason === "subscription_cycle");
    expect(orders.filter((o) => o.billing_reason === "subscription_create")).toHaveLength(1);
    expect(cycles).toHaveLength(3);
    for (const o of cycles) {
      expect(o).toMatchObject({ status: "paid", total_amount: 1500, subtotal_amount: 1500 });
      expect(o.items[0]).toMatchObject({ amount: 1500, product_price_id: product.prices[0]!.id });
    }
  });
});

describe("renewals by the worker", () => {
  it("renews at the period end in real time through its pg-boss job, with no clock advance", async () => {
    const fresh = await billingSeller(t);
    const product = await fresh.polar.products.create({
      name: "Soon",
      recurringInterval: "month",
      prices: [{ amountType: "fixed", priceAmount: 800, priceCurrency: "usd" }],
    });
    const { subscriptionId } = await subscribe(fresh, product.id);
    const before = await subscriptionOf(fresh, subscriptionId);
    // A date no processor takes (a typo of a year) is refused and changes nothing.
    for (const key of ["current_billing_period_end", "trial_end"]) {
      const far = await fresh.call(`/v1/subscriptions/${subscriptionId}`, {
        method: "PATCH",
        body: { [key]: "9999-01-01T00:00:00Z" },
      });
      expect(far.status, key).toBe(422);
      expect(far.body.detail[0]).toMatchObject({
        loc: ["body", key],
        msg: "Must be at most 730 days from now.",
      });
    }
    expect(await subscriptionOf(fresh, subscriptionId)).toEqual(before);
    const soon = new Date(Date.now() + 2000).toISOString();
    const moved = await fresh.call(`/v1/subscriptions/${subscriptionId}`, {
      method: "PATCH",
      body: { current_billing_period_end: soon },
    });
    expect(moved.status).toBe(200);
    expect(moved.body.current_period_end).toBe(soon);
    await waitFor(
      async () => (await subscriptionOf(fresh, subscriptionId)).current_period_start === soon,
      20_000,
      "renewed by the worker",
    );
    const cycles = (await ordersOf(fresh, subscriptionId)).filter(
      (o) => o.billing_reason === "subscription_cycle",
    );
    expect(cycles).toHaveLength(1);
    expect(cycles[0]).toMatchObject({ status: "paid", total_amount: 800 });
  });
});

describe("sandbox clock in production mode", () => {
  it("does not exist (404) and leaves time alone", async () => {
    const prod = await startTestServer({
      env: { TILL_MODE: "production", AUTH_REQUIRE_EMAIL_VERIFICATION: "false" },
    });
    try {
      const seller = await billingSeller(prod);
      for (const [path, body] of [
        ["/v1/sandbox/clock", undefined],
        ["/v1/sandbox/clock/advance", { seconds: 60 }],
        ["/v1/sandbox/clock/reset", {}],
      ] as const) {
        const res = await seller.call(path, body ? { body } : {});
        expect(res.status, path).toBe(404);
        expect(res.body.error).toBe("ResourceNotFound");
      }
    } finally {
      await prod.stop();
    }
  });
});

describe("billing day", () => {
  it("a subscription started on the 31st ends its periods on the 31st, or the month's last day", async () => {
    const fresh = await billingSeller(t);
    await advance(fresh, { to: "2027-01-31T12:00:00.000Z" });
    const product = await fresh.polar.products.create({
      name: "Month end",
      recurringInterval: "month",
      prices: [{ amountType: "fixed", priceAmount: 700, priceCurrency: "usd" }],
    });
    const { subscriptionId } = await subscribe(fresh, product.id);
    const ends: string[] = [];
    for (let i = 0; i < 4; i++) {
      const sub = await subscriptionOf(fresh, subscriptionId);
      ends.push(sub.current_period_end.slice(0, 10));
      await advance(fresh, { to: sub.current_period_end });
    }
    // Polar's anchor day: February is short, March is not.
    expect(ends).toEqual(["2027-02-28", "2027-03-31", "2027-04-30", "2027-05-31"]);
  });
});

const DAY_MS = 86_400_000;

describe("sandbox clock over boundaries at different times", () => {
  it("renews each subscription as of its own boundaries, once per boundary, in its time order", async () => {
    const s = await billingSeller(t);
    const plan = (name: string, interval: "month" | "day", amount: number) =>
      s.polar.products.create({
        name,
        recurringInterval: interval,
        prices: [{ amountType: "fixed", priceAmount: amount, priceCurrency: "usd" }],
      });
    const monthly = await plan("Monthly", "month", 1200);
    const daily = await plan("Daily", "day", 100);
    const subs: string[] = [];
    // Bought five hours apart: their boundaries fall at different times of the same days.
    for (let i = 0; i < 3; i++) {
      subs.push((await subscribe(s, monthly.id)).subscriptionId);
      await advance(s, { seconds: 5 * 3600 });
    }
    subs.push((await subscribe(s, daily.id)).subscriptionId);
    const declined = (await subscribe(s, monthly.id, "sandbox_token_renewal_declined"))
      .subscriptionId;
    const starts = new Map<string, Record<string, any>>();
    for (const id of [...subs, declined]) starts.set(id, await subscriptionOf(s, id));

    const before = Date.parse((await s.call("/v1/sandbox/clock")).body.now);
    await advance(s, { seconds: 70 * 24 * 3600 });
    const target = before + 70 * DAY_MS;

    for (const id of subs) {
      const cycles = (await ordersOf(s, id)).filter(
        (o) => o.billing_reason === "subscription_cycle",
      );
      // The first renewal at the first period's end, then one a period after another.
      expect(cycles[0]?.created_at, id).toBe(starts.get(id)!.current_period_end);
      const gaps = cycles
        .slice(1)
        .map((o, i) => Date.parse(o.created_at) - Date.parse(cycles[i]!.created_at));
      for (const gap of gaps)
        if (id === subs[3]) expect(gap).toBe(DAY_MS);
        else expect(gap / DAY_MS).toBeGreaterThanOrEqual(28);
      const now = await subscriptionOf(s, id);
      expect(now.status).toBe("active");
      // The last renewal started the current period; the next boundary lies past the target.
      expect(now.current_period_start).toBe(cycles.at(-1)!.created_at);
      expect(Date.parse(now.current_period_end)).toBeGreaterThan(target - 60_000);
      for (const o of cycles) {
        const payments = (await s.call(`/v1/payments/?order_id=${o.id}`)).body.items;
        expect(payments).toHaveLength(1);
        expect(payments[0].created_at).toBe(o.created_at);
      }
    }
    // Monthly renewals: two in 70 days; the daily plan's: about 70.
    for (const id of subs.slice(0, 3))
      expect(
        (await ordersOf(s, id)).filter((o) => o.billing_reason === "subscription_cycle"),
      ).toHaveLength(2);
    const dailyCycles = (await ordersOf(s, subs[3]!)).filter(
      (o) => o.billing_reason === "subscription_cycle",
    );
    expect(dailyCycles.length).toBeGreaterThanOrEqual(69);
    expect(dailyCycles.length).toBeLessThanOrEqual(70);

    // The declined card: past_due at its boundary, retried 3, 5 and 7 days apart, then ended.
    const ended = await subscriptionOf(s, declined);
    expect(ended.status).toBe("canceled");
    const boundary = Date.parse(starts.get(declined)!.current_period_end);
    expect(Date.parse(ended.ended_at)).toBe(boundary + 15 * DAY_MS);

    // Every event is stamped with its change's time, and a subscription's events come in order.
    const events = await eventsOf(t, s.organizationId);
    for (const id of [...subs, declined]) {
      const times = events
        .filter((e) => e.payload.data.id === id || e.payload.data.subscription_id === id)
        .map((e) => Date.parse(e.payload.timestamp));
      expect(times.length, id).toBeGreaterThan(0);
      expect(
        [...times].sort((a, b) => a - b),
        id,
      ).toEqual(times);
    }
    for (const e of events.filter((e) => e.type === "order.created"))
      expect(e.payload.timestamp).toBe(e.payload.data.created_at);
    const cycled = events.filter((e) => e.type === "subscription.cycled");
    expect(cycled.length).toBeGreaterThan(70);
    for (const e of cycled)
      if (e.payload.data.status === "active")
        expect(e.payload.timestamp).toBe(e.payload.data.current_period_start);
  });
});
