// One advance works at most SANDBOX_CLOCK_ADVANCE_TIMEOUT_SECONDS (1 s here). A longer one stops
// between batches, moves the clock only as far as everything due is done, and answers 503
// ClockAdvanceTimeout naming that time; advancing again to the target goes on from there, and in
// the end every boundary is billed exactly once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { billingSeller, subscribe, type BillingSeller } from "../../../test/helpers/billing.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

let t: TestServer;
let s: BillingSeller;

beforeAll(async () => {
  t = await startTestServer({ env: { SANDBOX_CLOCK_ADVANCE_TIMEOUT_SECONDS: "1" } });
  s = await billingSeller(t);
});
afterAll(() => t.stop());

const DAY_MS = 86_400_000;

describe("sandbox clock time limit", () => {
  it("stops a long advance where all due work is done; advancing again finishes it once", {
    timeout: 180_000,
  }, async () => {
    const product = await s.polar.products.create({
      name: "Daily",
      recurringInterval: "day",
      prices: [{ amountType: "fixed", priceAmount: 100, priceCurrency: "usd" }],
    });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await subscribe(s, product.id)).subscriptionId);
    const before = Date.parse((await s.call("/v1/sandbox/clock")).body.now);
    const target = new Date(before + 120 * DAY_MS).toISOString();

    const subscription = async (id: string) => (await s.call(`/v1/subscriptions/${id}`)).body;
    const started = new Map<string, number>();
    for (const id of ids)
      started.set(id, Date.parse((await subscription(id)).current_period_start));

    let answer = await s.call("/v1/sandbox/clock/advance", { body: { to: target } });
    expect(answer.status).toBe(503);
    let stops = 0;
    let last = before;
    while (answer.status === 503) {
      stops++;
      expect(answer.body.error).toBe("ClockAdvanceTimeout");
      const now = Date.parse((await s.call("/v1/sandbox/clock")).body.now);
      // The clock moved on, short of the target, to the time the answer names…
      expect(now).toBeGreaterThan(last);
      expect(now).toBeLessThan(Date.parse(target));
      const reached = Date.parse(/moved to (\S+), /.exec(answer.body.detail)![1]!);
      expect(reached).toBeLessThanOrEqual(now);
      expect(now - reached).toBeLessThan(5000);
      // …and every subscription was renewed up to that time and not past it.
      for (const id of ids) {
        const sub = await subscription(id);
        expect(Date.parse(sub.current_period_start)).toBeLessThanOrEqual(reached);
        expect(Date.parse(sub.current_period_end)).toBeGreaterThan(reached);
      }
      last = now;
      expect(stops).toBeLessThan(100);
      answer = await s.call("/v1/sandbox/clock/advance", { body: { to: target } });
    }
    expect(answer.status).toBe(200);
    expect(answer.body.now).toBe(target);

    // Each daily boundary up to the target: one cycle order (beside the purchase's own).
    for (const id of ids) {
      const boundaries = Math.floor((Date.parse(target) - started.get(id)!) / DAY_MS);
      const orders = await s.call(`/v1/orders/?subscription_id=${id}&limit=1`);
      expect(orders.body.pagination.total_count).toBe(boundaries + 1);
      const sub = await subscription(id);
      expect(Date.parse(sub.current_period_end)).toBeGreaterThan(Date.parse(target));
    }
    console.log(`stopped ${stops} times on the way`);
  });
});
