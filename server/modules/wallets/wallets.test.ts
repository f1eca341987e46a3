// Customer balance through the public API: an invoice downgrade's credit funds the customer's
// wallet (read in the portal), the next cycle order spends it (applied_balance_amount) and charges
// the remainder, a credit larger than an order carries to the next ones, a prorated credit larger
// than its cycle order lands on the balance, a voided renewal or a revoked subscription gives its
// spend back, orders renewing at once never spend the same credit (on PostgreSQL, two connection
// pools racing), and another customer cannot read the wallet.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb, type Db } from "../../../db/client.ts";
import { api } from "../../../test/helpers/auth.ts";
import {
  advance,
  billingDepsOn,
  billingSeller,
  ordersOf,
  subscribe,
  subscriptionOf,
  type BillingSeller,
  setSubscriptionSettings,
} from "../../../test/helpers/billing.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import { runDueMany } from "../subscriptions/due.ts";
import { cycleBillingKey, renewSubscription } from "../subscriptions/renewal.ts";
import { subscriptionsByIds } from "../subscriptions/service.ts";
import { holdBalance } from "./service.ts";

let t: TestServer;
let s: BillingSeller;

beforeAll(async () => {
  t = await startTestServer({ worker: false });
  s = await billingSeller(t);
});
afterAll(() => t.stop());

const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();

const monthly = (name: string, amount: number) =>
  s.polar.products.create({
    name,
    recurringInterval: "month",
    prices: [{ amountType: "fixed", priceAmount: amount, priceCurrency: "usd" }],
  });

async function portal(customerId: string) {
  const session = await s.polar.customerSessions.create({ customerId });
  return (path: string) => api(t.url, `/v1/customer-portal/${path}`, { token: session.token });
}

/** Subscribes to `from`, moves to mid-period and downgrades to `to` (with `invoice` unless told). */
async function downgradeAtHalf(
  fromAmount: number,
  toAmount: number,
  o: { email?: string; card?: string; behavior?: "invoice" | "prorate" } = {},
) {
  const from = await monthly(`From ${fromAmount}`, fromAmount);
  const to = await monthly(`To ${toAmount}`, toAmount);
  const bought = await subscribe(s, from.id, o.card ?? "sandbox_token_success", o.email);
  const sub = await subscriptionOf(s, bought.subscriptionId);
  const half = (Date.parse(sub.current_period_end) - Date.parse(sub.current_period_start)) / 2;
  await advance(s, { to: plus(sub.current_period_start, half) });
  const changed = await s.call(`/v1/subscriptions/${bought.subscriptionId}`, {
    method: "PATCH",
    body: { product_id: to.id, proration_behavior: o.behavior ?? "invoice" },
  });
  expect(changed.status).toBe(200);
  const update = (await ordersOf(s, bought.subscriptionId)).find(
    (o) => o.billing_reason === "subscription_update",
  );
  return {
    ...bought,
    end: sub.current_period_end as string,
    update,
    credit: -update?.total_amount,
  };
}

const cycles = async (subscriptionId: string) =>
  (await ordersOf(s, subscriptionId)).filter((o) => o.billing_reason === "subscription_cycle");

const refund = (orderId: string, amount: number) =>
  s.call("/v1/refunds/", { body: { order_id: orderId, reason: "customer_request", amount } });

const paymentsOf = async (orderId: string) =>
  (await s.call(`/v1/payments/?order_id=${orderId}`)).body.items as { amount: number }[];

describe("customer balance", () => {
  it("a downgrade funds the wallet; the next cycle order spends it and charges the remainder", async () => {
    const d = await downgradeAtHalf(3000, 2000);
    // Half of (2000 − 3000): the update order totals the credit and collects nothing.
    expect(d.credit).toBeGreaterThanOrEqual(495);
    expect(d.credit).toBeLessThanOrEqual(505);
    expect(d.update!).toMatchObject({ status: "paid", applied_balance_amount: 0, due_amount: 0 });
    expect(await paymentsOf(d.update!.id)).toEqual([]);

    const read = await portal(d.customerId);
    const list = await read("wallets/");
    expect(list.status).toBe(200);
    expect(list.body.pagination).toEqual({ total_count: 1, max_page: 1 });
    const [wallet] = list.body.items;
    expect(wallet).toMatchObject({ customer_id: d.customerId, balance: d.credit, currency: "usd" });
    expect((await read(`wallets/${wallet.id}`)).body).toEqual(wallet);

    await advance(s, { to: d.end });
    const [cycle] = await cycles(d.subscriptionId);
    expect(cycle).toMatchObject({
      status: "paid",
      total_amount: 2000,
      applied_balance_amount: -d.credit,
      due_amount: 2000 - d.credit,
    });
    // No line item for the credit any more: it was paid from the balance.
    expect(cycle!.items.map((i: { amount: number }) => i.amount)).toEqual([2000]);
    expect((await paymentsOf(cycle!.id)).map((p) => p.amount)).toEqual([2000 - d.credit]);
    expect((await read(`wallets/${wallet.id}`)).body.balance).toBe(0);

    // A refund gives back what the card was charged, never what the balance paid.
    const over = await refund(cycle!.id, 2000 - d.credit + 1);
    expect(over.status).toBe(422);
    expect(over.body.detail[0]).toMatchObject({ loc: ["body", "amount"], type: "less_than_equal" });
    // What the card was charged, said as money: the rest was paid from the balance.
    expect(over.body.detail[0].msg).toContain(`($${((2000 - d.credit) / 100).toFixed(2)})`);
    expect(over.body.detail[0].msg).toContain("paid from the customer's balance");
    const whole = await refund(cycle!.id, 2000 - d.credit);
    expect(whole.body).toMatchObject({ status: "succeeded", amount: 2000 - d.credit });
    expect((await refund(cycle!.id, 1)).status).toBe(422);
    // The update order charged nothing: no refund, and none recorded.
    const none = await refund(d.update!.id, 1);
    expect(none.status).toBe(404);
    expect(none.body).toMatchObject({ error: "ResourceNotFound" });
    expect(none.body.detail).toContain("nothing was charged");
    const listed = await s.call(`/v1/refunds/?order_id=${d.update!.id}`);
    expect(listed.body.items).toEqual([]);
  });

  it("a balance larger than an order pays it whole and carries the rest to the next ones", async () => {
    const d = await downgradeAtHalf(3000, 500);
    expect(d.credit).toBeGreaterThanOrEqual(1245);
    expect(d.credit).toBeLessThanOrEqual(1255);
    const read = await portal(d.customerId);
    const first = await subscriptionOf(s, d.subscriptionId);
    await advance(s, { to: d.end });
    await advance(s, { to: (await subscriptionOf(s, d.subscriptionId)).current_period_end });
    await advance(s, { to: (await subscriptionOf(s, d.subscriptionId)).current_period_end });
    const orders = await cycles(d.subscriptionId);
    expect(orders.map((o) => [o.total_amount, o.applied_balance_amount, o.status])).toEqual([
      [500, -500, "paid"],
      [500, -500, "paid"],
      [500, -(d.credit - 1000), "paid"],
    ]);
    expect(await paymentsOf(orders[0]!.id)).toEqual([]);
    expect((await paymentsOf(orders[2]!.id)).map((p) => p.amount)).toEqual([
      500 - (d.credit - 1000),
    ]);
    expect((await read("wallets/")).body.items[0].balance).toBe(0);
    expect(first.status).toBe("active");
  });

  it("a renewal that cannot be collected owes the remainder only, and gives the credit back when voided", async () => {
    const d = await downgradeAtHalf(3000, 2000, { card: "sandbox_token_renewal_declined" });
    await advance(s, { to: d.end });
    const [pending] = await cycles(d.subscriptionId);
    expect(pending).toMatchObject({
      status: "pending",
      applied_balance_amount: -d.credit,
      due_amount: 2000 - d.credit,
    });
    const read = await portal(d.customerId);
    expect((await read("wallets/")).body.items[0].balance).toBe(0);
    // Dunning gives up: the order is void and the balance it spent is the customer's again.
    await advance(s, { to: plus(d.end, 40 * 86_400_000) });
    expect((await cycles(d.subscriptionId))[0]!.status).toBe("void");
    // Every attempt, the first and the retries, asked for the remainder only.
    const attempts = await paymentsOf(pending!.id);
    expect(attempts.length).toBeGreaterThan(1);
    expect(new Set(attempts.map((p) => p.amount))).toEqual(new Set([2000 - d.credit]));
    expect((await read("wallets/")).body.items[0].balance).toBe(d.credit);
  });

  it("a prorated credit larger than the next cycle order leaves the rest on the balance", async () => {
    const d = await downgradeAtHalf(3000, 500, { behavior: "prorate" });
    expect(d.update).toBeUndefined();
    await advance(s, { to: d.end });
    const [cycle] = await cycles(d.subscriptionId);
    // 500 − about 1250 of unused time: the order is settled and the rest is credited.
    expect(cycle!.total_amount).toBeLessThanOrEqual(-745);
    expect(cycle!.total_amount).toBeGreaterThanOrEqual(-755);
    expect(cycle).toMatchObject({ status: "paid", due_amount: 0, applied_balance_amount: 0 });
    expect(await paymentsOf(cycle!.id)).toEqual([]);
    const read = await portal(d.customerId);
    expect((await read("wallets/")).body.items[0].balance).toBe(-cycle!.total_amount);
  });

  it("a renewal's hold left open by a charge without an answer goes back when the subscription is revoked", async () => {
    const d = await downgradeAtHalf(3000, 2000);
    const owner = { organizationId: s.organizationId, customerId: d.customerId, currency: "usd" };
    const reference = cycleBillingKey(d.subscriptionId, new Date(d.end));
    const hold = { total: 2000, reference, subscriptionId: d.subscriptionId, now: new Date() };
    expect(await holdBalance(t.server.database.db, owner, hold)).toBe(d.credit);
    // Asked again (a retried job), the same hold answers: nothing more is taken.
    expect(await holdBalance(t.server.database.db, owner, hold)).toBe(d.credit);
    const read = await portal(d.customerId);
    expect((await read("wallets/")).body.items[0].balance).toBe(0);
    const revoked = await s.call(`/v1/subscriptions/${d.subscriptionId}`, {
      method: "PATCH",
      body: { revoke: true },
    });
    expect(revoked.status).toBe(200);
    expect((await read("wallets/")).body.items[0].balance).toBe(d.credit);
  });

  it("another customer reads neither the wallet nor its balance", async () => {
    const d = await downgradeAtHalf(2000, 1000);
    const [wallet] = (await (await portal(d.customerId))("wallets/")).body.items;
    const stranger = await subscribe(s, (await monthly("Other", 900)).id);
    const read = await portal(stranger.customerId);
    const got = await read(`wallets/${wallet.id}`);
    expect(got.status).toBe(404);
    expect(got.body.error).toBe("ResourceNotFound");
    expect((await read("wallets/")).body).toEqual({
      items: [],
      pagination: { total_count: 0, max_page: 0 },
    });
    expect((await read("wallets/?sorting=-nope")).status).toBe(422);
  });
});

const depsOn = (db: Db) => billingDepsOn(t, db);

/** One customer with a credit and `n` subscriptions of 1200 due a minute ago (several allowed). */
async function dueWithCredit(n: number) {
  // A seller of its own: its sandbox clock has not been moved by the tests above.
  s = await billingSeller(t);
  await setSubscriptionSettings(t.url, s, { allow_multiple_subscriptions: true });
  const email = `many-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const d = await downgradeAtHalf(3000, 1000, { email });
  const product = await monthly("Twin", 1200);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const bought = await subscribe(s, product.id, "sandbox_token_success", email);
    expect(bought.customerId).toBe(d.customerId);
    ids.push(bought.subscriptionId);
  }
  const due = new Date(Date.now() - 60_000).toISOString();
  await t.server.database.rows(sql`
    update subscriptions set current_period_start = ${due}::timestamptz - interval '1 month',
      current_period_end = ${due}::timestamptz, next_action_at = ${due}::timestamptz
    where id in ${sql.raw(`('${ids.join("','")}')`)}`);
  return { credit: d.credit, customerId: d.customerId, ids };
}

/** The cycle orders: together they spent the credit once, and each charged its remainder. */
async function expectCreditSpentOnce(c: Awaited<ReturnType<typeof dueWithCredit>>) {
  const orders = (await Promise.all(c.ids.map(cycles))).flat();
  expect(orders).toHaveLength(c.ids.length);
  const spent = orders.reduce((sum, o) => sum - o.applied_balance_amount, 0);
  expect(spent).toBe(c.credit);
  for (const o of orders) {
    expect(o.status).toBe("paid");
    const charged = (await paymentsOf(o.id)).reduce((sum, p) => sum + p.amount, 0);
    expect(charged).toBe(o.total_amount + o.applied_balance_amount);
  }
  const [wallet] = (await (await portal(c.customerId))("wallets/")).body.items;
  expect(wallet.balance).toBe(0);
}

describe("concurrent orders of one customer", () => {
  it("renewals racing for the same credit spend it once", async () => {
    const c = await dueWithCredit(6);
    const second = t.testDb.url
      ? await openDb({ kind: "postgres", url: t.testDb.url, poolSize: 3 })
      : null;
    try {
      const one = depsOn(t.server.database.db);
      const two = depsOn(second?.db ?? t.server.database.db);
      const rows = await subscriptionsByIds(one.db, scopeOfResource(s), c.ids);
      const at = new Date();
      await Promise.all(rows.map((row, i) => renewSubscription(i % 2 ? two : one, row, at)));
    } finally {
      await second?.close();
    }
    await expectCreditSpentOnce(c);
  });

  it("one batch renewing them all spends the credit once", async () => {
    const c = await dueWithCredit(3);
    const deps = depsOn(t.server.database.db);
    await runDueMany(deps, c.ids);
    await runDueMany(deps, c.ids);
    await expectCreditSpentOnce(c);
  });
});
