// Orders below the smallest charge card networks take (50 cents in USD), through the public API and
// the sandbox clock: such an order is paid without asking the processor (Stripe refuses it with
// amount_too_small, and a refusal that is not about the card would leave the renewal retried for
// ever), its amount is owed on the customer's balance, and the customer's next order adds it to
// its charge, as Polar does. Both the batch path (a monthly renewal) and a meter cycle are shown.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "../../../test/helpers/auth.ts";
import { eventually } from "../../../test/helpers/grants.ts";
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

let t: TestServer;
let s: BillingSeller;

beforeAll(async () => {
  t = await startTestServer();
  s = await billingSeller(t);
});
afterAll(() => t.stop());

async function balanceOf(customerId: string): Promise<number | undefined> {
  const session = await s.polar.customerSessions.create({ customerId });
  const res = await api(t.url, "/v1/customer-portal/wallets/", { token: session.token });
  return res.body.items[0]?.balance;
}

async function paymentsOf(orderId: string) {
  const res = await s.call(`/v1/payments/?order_id=${orderId}`);
  return res.body.items as { amount: number; status: string }[];
}

describe("orders below the minimum charge", () => {
  it("a renewal of 30 cents is paid uncharged and owed; the next renewal charges it with its own", async () => {
    // Usage alone, $0.10 a call.
    const plan = await meteredPlan(s, {
      name: "tiny",
      interval: "month",
      credit: 0,
      fixedAmount: 0,
    });
    const email = `owed-${Math.random().toString(36).slice(2, 8)}@example.com`;
    const { subscriptionId, customerId } = await subscribe(
      s,
      plan.product.id,
      "sandbox_token_success",
      email,
    );
    const sub = await subscriptionOf(s, subscriptionId);
    await ingestHourly(s, plan.event, customerId, sub.current_period_start, 3);
    await advance(s, { to: sub.current_period_end });

    const [first] = (await ordersOf(s, subscriptionId)).filter(
      (o) => o.billing_reason === "subscription_cycle",
    );
    expect(first).toMatchObject({ status: "paid", total_amount: 30, applied_balance_amount: 0 });
    expect(await paymentsOf(first!.id)).toEqual([]);
    expect(await balanceOf(customerId)).toBe(-30);
    expect((await subscriptionOf(s, subscriptionId)).status).toBe("active");
    // Nothing was charged, so there is nothing to refund (as Polar), and the debt stands.
    const refund = await s.call("/v1/refunds/", {
      body: { order_id: first!.id, reason: "customer_request", amount: 30 },
    });
    expect(refund.status).toBe(404);
    expect(await balanceOf(customerId)).toBe(-30);

    // Next month: 40 cents of usage, with the 30 owed: one charge of 70.
    const next = await subscriptionOf(s, subscriptionId);
    await ingestHourly(s, plan.event, customerId, next.current_period_start, 4);
    await advance(s, { to: next.current_period_end });
    const cycles = (await ordersOf(s, subscriptionId)).filter(
      (o) => o.billing_reason === "subscription_cycle",
    );
    expect(cycles).toHaveLength(2);
    expect(cycles[1]).toMatchObject({
      status: "paid",
      total_amount: 40,
      applied_balance_amount: 30,
    });
    expect((await paymentsOf(cycles[1]!.id)).map((p) => [p.amount, p.status])).toEqual([
      [70, "succeeded"],
    ]);
    expect(await balanceOf(customerId)).toBe(0);

    // The receipts say what the card was charged, not only the orders' totals.
    const receipts = await eventually(
      async () => {
        const rows = await t.server.database.rows<{ text: string }>(
          sql`select text from email_outbox where "to" = ${email} and kind = 'receipt' order by created_at`,
        );
        const texts = rows.map((r) => r.text);
        return texts.some((x) => x.includes("$0.40")) ? texts : undefined;
      },
      10_000,
      "the receipts of both renewals",
    );
    const owed = receipts.find((x) => x.includes("$0.30 to "));
    expect(owed).toContain("below the smallest amount a card can be charged");
    expect(owed).not.toContain("paid");
    const collected = receipts.find((x) => x.includes("$0.40 to "));
    expect(collected).toContain("$0.30 owed from earlier orders: $0.70 charged to your card");
  });

  it("a meter cycle's settlement of 20 cents is owed and collected by the next one", async () => {
    const plan = await meteredPlan(s, {
      name: "tinyyear",
      interval: "year",
      meterInterval: "month",
      credit: 0,
    });
    const { subscriptionId, customerId } = await subscribe(s, plan.product.id);
    const sub = await subscriptionOf(s, subscriptionId);
    await ingestHourly(s, plan.event, customerId, sub.current_meter_period_start, 2);
    await advance(s, { to: sub.current_meter_period_end });
    const [first] = (await ordersOf(s, subscriptionId)).filter(
      (o) => o.billing_reason === "subscription_meter_cycle",
    );
    expect(first).toMatchObject({ status: "paid", total_amount: 20 });
    expect(await paymentsOf(first!.id)).toEqual([]);
    expect(await balanceOf(customerId)).toBe(-20);

    const next = await subscriptionOf(s, subscriptionId);
    await ingestHourly(s, plan.event, customerId, next.current_meter_period_start, 6);
    await advance(s, { to: next.current_meter_period_end });
    const settled = (await ordersOf(s, subscriptionId)).filter(
      (o) => o.billing_reason === "subscription_meter_cycle",
    );
    expect(settled).toHaveLength(2);
    expect(settled[1]).toMatchObject({
      status: "paid",
      total_amount: 60,
      applied_balance_amount: 20,
    });
    expect((await paymentsOf(settled[1]!.id)).map((p) => p.amount)).toEqual([80]);
    expect(await balanceOf(customerId)).toBe(0);
  });
});
