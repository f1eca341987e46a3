// Metered usage across a plan change, through the public API and the sandbox clock: as Polar
// settles the old product's overage before a switch, the usage up to an immediate change is billed
// at the old plan's unit price in a subscription_meter_cycle order, and the usage after it at the
// new plan's in the cycle order; none is lost when the new plan has no meter. A reset bills the new
// plan's period in a subscription_update order and starts that period, with no usage, at the change.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  advance,
  billingSeller,
  enableResetProration,
  ingestHourly,
  ordersOf,
  subscribe,
  subscriptionOf,
  type BillingSeller,
} from "../../../test/helpers/billing.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

let t: TestServer;
let s: BillingSeller;

beforeAll(async () => {
  t = await startTestServer();
  s = await billingSeller(t);
  await enableResetProration(t.url, s);
});
afterAll(() => t.stop());

const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();

/** A meter of `<name>_call` events and plans of $10 a month plus each unit price given. */
async function plans(name: string, unitAmounts: (string | null)[]) {
  const meter = await s.polar.meters.create({
    name: `${name} calls`,
    filter: {
      conjunction: "and",
      clauses: [{ property: "name", operator: "eq", value: `${name}_call` }],
    },
    aggregation: { func: "count" },
  });
  const products = [];
  for (const [i, unit] of unitAmounts.entries())
    products.push(
      await s.polar.products.create({
        name: `${name} plan ${i}`,
        recurringInterval: "month",
        prices: [
          { amountType: "fixed", priceAmount: 1000, priceCurrency: "usd" },
          ...(unit
            ? [
                {
                  amountType: "metered_unit" as const,
                  meterId: meter.id,
                  unitAmount: unit,
                  priceCurrency: "usd" as const,
                },
              ]
            : []),
        ],
      }),
    );
  return { event: `${name}_call`, products };
}

/** 100 events, then the change at mid-period, then 100 more, then the period's end. */
async function changeMidPeriod(
  event: string,
  from: string,
  to: string,
  behavior: "invoice" | "prorate" | "reset",
) {
  const { subscriptionId, customerId } = await subscribe(s, from);
  const sub = await subscriptionOf(s, subscriptionId);
  const start = sub.current_period_start as string;
  const half = (Date.parse(sub.current_period_end) - Date.parse(start)) / 2;
  await ingestHourly(s, event, customerId, start, 100);
  await advance(s, { to: plus(start, half) });
  const res = await s.call(`/v1/subscriptions/${subscriptionId}`, {
    method: "PATCH",
    body: { product_id: to, proration_behavior: behavior },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  await ingestHourly(s, event, customerId, plus(start, half), 100);
  const changed = await subscriptionOf(s, subscriptionId);
  await advance(s, { to: changed.current_period_end });
  const orders = await ordersOf(s, subscriptionId);
  const of = (reason: string) => orders.filter((o) => o.billing_reason === reason);
  return {
    settled: of("subscription_meter_cycle"),
    cycles: of("subscription_cycle"),
    updates: of("subscription_update"),
  };
}

const meteredLines = (o: Record<string, any>) =>
  (o.items as { label: string; amount: number }[]).filter((i) => i.label.includes("units"));

describe("usage across a plan change", () => {
  it("prorate: the usage before the change at the old unit price, after it at the new", async () => {
    const { event, products } = await plans("swap", ["10", "5"]);
    const { settled, cycles } = await changeMidPeriod(
      event,
      products[0]!.id,
      products[1]!.id,
      "prorate",
    );
    expect(settled).toHaveLength(1);
    expect(settled[0]).toMatchObject({
      status: "paid",
      subtotal_amount: 1000,
      product_id: products[0]!.id,
    });
    expect(cycles).toHaveLength(1);
    expect(meteredLines(cycles[0]!).map((l) => [l.label, l.amount])).toEqual([
      [`${products[1]!.name} (100 units)`, 500],
    ]);
  });

  it("invoice to a plan without a meter: the usage before the change is still billed", async () => {
    const { event, products } = await plans("drop", ["10", null]);
    const { settled, cycles } = await changeMidPeriod(
      event,
      products[0]!.id,
      products[1]!.id,
      "invoice",
    );
    expect(settled.map((o) => o.subtotal_amount)).toEqual([1000]);
    expect(cycles).toHaveLength(1);
    expect(meteredLines(cycles[0]!)).toEqual([]);
  });

  it("reset: the old usage is settled, the new period starts with none", async () => {
    const { event, products } = await plans("restart", ["10", "5"]);
    const { settled, cycles, updates } = await changeMidPeriod(
      event,
      products[0]!.id,
      products[1]!.id,
      "reset",
    );
    expect(settled.map((o) => o.subtotal_amount)).toEqual([1000]);
    // The reset's own order bills the new plan's fixed price for its period, no usage; the renewal
    // a month after the change bills the 100 later events at 5.
    expect(updates.map((o) => [o.status, o.subtotal_amount, meteredLines(o)])).toEqual([
      ["paid", 1000, []],
    ]);
    expect(cycles).toHaveLength(1);
    expect(meteredLines(cycles[0]!).map((l) => l.amount)).toEqual([500]);
  });
});
