// Plan changes from a monthly to a yearly plan, through the public API and the sandbox clock: at
// once, over a proration still waiting, during a trial (recomputed from the new product's, as
// Polar), and at the next period.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  advance,
  billingSeller,
  monthlyProduct,
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
});
afterAll(() => t.stop());

const DAY = 86_400_000;
const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();
const monthly = (
  name: string,
  amount: number,
  interval: "month" | "year" = "month",
  trialDays?: number,
) => monthlyProduct(s, name, amount, trialDays, interval);
const patch = (id: string, body: unknown) =>
  s.call(`/v1/subscriptions/${id}`, { method: "PATCH", body });

describe("plan changes", () => {
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

    // As Polar's update_product: a trial is recomputed from its start with the new product's
    // trial, and ends now, billing the new product at once, when that has none.
    it("a trial moved to a yearly plan without one ends now and bills the year", async () => {
      const trialPlan = await monthly("Trial monthly", 1000, "month", 14);
      const yearly = await monthly("Trial to yearly", 10000, "year");
      const { subscriptionId } = await subscribe(s, trialPlan.id);
      const trial = await subscriptionOf(s, subscriptionId);
      const now = plus(trial.current_period_start, 7 * DAY);
      await advance(s, { to: now });
      const changed = await patch(subscriptionId, {
        product_id: yearly.id,
        proration_behavior: "invoice",
      });
      expect(changed.status).toBe(200);
      // Ended at the change (the sandbox clock runs on from `now`), where the year starts.
      const ended = changed.body.trial_end as string;
      expect(Date.parse(ended) - Date.parse(now)).toBeGreaterThanOrEqual(0);
      expect(Date.parse(ended) - Date.parse(now)).toBeLessThan(60_000);
      const nextYear = new Date(ended);
      nextYear.setUTCFullYear(nextYear.getUTCFullYear() + 1);
      expect(changed.body).toMatchObject({
        status: "active",
        product_id: yearly.id,
        recurring_interval: "year",
        current_period_start: ended,
        current_period_end: nextYear.toISOString(),
      });
      const charged = (await ordersOf(s, subscriptionId)).filter((o) => o.total_amount);
      expect(charged).toMatchObject([
        { billing_reason: "subscription_cycle", total_amount: 10000 },
      ]);
    });

    it("a trial moved to a plan with a longer trial ends that long after it started", async () => {
      const short = await monthly("Short trial", 1000, "month", 7);
      const long = await monthly("Long trial", 2000, "month", 30);
      const { subscriptionId } = await subscribe(s, short.id);
      const trial = await subscriptionOf(s, subscriptionId);
      await advance(s, { to: plus(trial.current_period_start, 3 * DAY) });
      const changed = await patch(subscriptionId, {
        product_id: long.id,
        proration_behavior: "prorate",
      });
      const end = plus(trial.trial_start, 30 * DAY);
      expect(changed.body).toMatchObject({
        status: "trialing",
        product_id: long.id,
        trial_start: trial.trial_start,
        trial_end: end,
        current_period_end: end,
      });
      expect((await ordersOf(s, subscriptionId)).filter((o) => o.total_amount)).toEqual([]);
      await advance(s, { to: end });
      expect((await ordersOf(s, subscriptionId)).filter((o) => o.total_amount)).toMatchObject([
        { billing_reason: "subscription_cycle", total_amount: 2000 },
      ]);
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
});
