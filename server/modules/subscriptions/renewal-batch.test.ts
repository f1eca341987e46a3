// The set-based renewal path: subscriptions bought through the API are made due at one instant
// and renewed by the wake-up job's handler (runDueMany) as one batch: a declined card makes only
// its own subscription past_due; a batch re-run after charges were made but not all written
// neither charges nor bills twice; two workers handed the same due set renew each subscription
// once (on PostgreSQL, two connection pools racing for the rows).
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb, type Db } from "../../../db/client.ts";
import {
  billingDepsOn,
  billingSeller,
  subscribe,
  type BillingSeller,
} from "../../../test/helpers/billing.ts";
import { eventsOf } from "../../../test/helpers/catalog.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import { chargeKey } from "./charge.ts";
import type { BillingDeps } from "./deps.ts";
import { runDueMany, runDueWindow } from "./due.ts";
import { SubscriptionLocked } from "./lease.ts";
import { renewBatch } from "./renewal-batch.ts";
import * as repo from "./repository.ts";
import { dueJobKey, windowOf } from "./schedule.ts";

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ worker: false });
});
afterAll(() => t.stop());

const depsOn = (db: Db): BillingDeps => billingDepsOn(t, db);

/** A seller with `tokens.length` subscriptions of one monthly product, all due a minute ago. */
async function dueSet(tokens: string[]) {
  const s = await billingSeller(t);
  const product = await s.polar.products.create({
    name: "Batch plan",
    recurringInterval: "month",
    prices: [{ amountType: "fixed", priceAmount: 1200, priceCurrency: "usd" }],
  });
  const ids: string[] = [];
  for (const token of tokens) ids.push((await subscribe(s, product.id, token)).subscriptionId);
  const due = new Date(Date.now() - 60_000).toISOString();
  await t.server.database.rows(sql`
    update subscriptions set current_period_start = ${due}::timestamptz - interval '1 month',
      current_period_end = ${due}::timestamptz, next_action_at = ${due}::timestamptz
    where organization_id = ${s.organizationId}`);
  return { s, ids, due };
}

/** Per subscription: its cycle orders, renewal charges and payment rows. */
async function counts(s: BillingSeller) {
  return t.server.database.rows<{
    id: string;
    status: string;
    moved: boolean;
    orders: number;
    charges: number;
    payments: number;
  }>(sql`
    select s.id, s.status, s.current_period_start > now() - interval '2 minutes' as moved,
      (select count(*)::int from orders o where o.subscription_id = s.id
         and o.billing_reason = 'subscription_cycle') as orders,
      (select count(*)::int from sandbox_charges c
         where c.idempotency_key like 'renewal:' || s.id || ':%') as charges,
      (select count(*)::int from payments p join orders o on o.id = p.order_id
         where o.subscription_id = s.id and o.billing_reason = 'subscription_cycle') as payments
    from subscriptions s where s.organization_id = ${s.organizationId}`);
}

/** The event types of one subscription's renewal, in outbox order. */
async function renewalEvents(s: BillingSeller, subscriptionId: string) {
  const all = await eventsOf(t, s.organizationId);
  const cycleOrder = all.find(
    (e) =>
      e.type === "order.created" &&
      e.payload.data.subscription_id === subscriptionId &&
      e.payload.data.billing_reason === "subscription_cycle",
  );
  return all
    .slice(all.indexOf(cycleOrder!))
    .filter(
      (e) =>
        e.payload.data.subscription_id === subscriptionId ||
        (e.type.startsWith("subscription.") && e.payload.data.id === subscriptionId),
    )
    .map((e) => e.type);
}

/**
 * Runs the workers' jobs at once, as pg-boss would: a job that found rows the other worker held
 * (SubscriptionLocked) fails and is run again once, as its retry, which must find nothing left.
 */
async function asJobs(jobs: (() => Promise<unknown>)[]): Promise<void> {
  const results = await Promise.allSettled(jobs.map((job) => job()));
  for (const [i, r] of results.entries()) {
    if (r.status === "fulfilled") continue;
    expect(r.reason).toBeInstanceOf(SubscriptionLocked);
    await jobs[i]!();
  }
}

describe("renewal batches", () => {
  it("renews several subscriptions in one batch; a declined card makes only its own past_due", async () => {
    const { s, ids } = await dueSet([
      "sandbox_token_success",
      "sandbox_token_renewal_declined",
      "sandbox_token_success",
      "sandbox_token_success",
    ]);
    await runDueMany(depsOn(t.server.database.db), ids);

    const rows = new Map((await counts(s)).map((r) => [r.id, r]));
    for (const [i, id] of ids.entries()) {
      const r = rows.get(id)!;
      expect(r.status).toBe(i === 1 ? "past_due" : "active");
      expect([r.moved, r.orders, r.charges, r.payments]).toEqual([true, 1, 1, 1]);
    }
    const orders = await t.server.database.rows<{
      subscription_id: string;
      status: string;
      total_amount: number;
      invoice_number: string;
    }>(sql`select subscription_id, status, total_amount::int, invoice_number from orders
      where organization_id = ${s.organizationId} and billing_reason = 'subscription_cycle'`);
    expect(orders.map((o) => o.status).sort()).toEqual(["paid", "paid", "paid", "pending"]);
    expect(orders.find((o) => o.status === "pending")!.subscription_id).toBe(ids[1]);
    expect(orders.every((o) => o.total_amount === 1200)).toBe(true);
    // Each customer's invoice numbers continue their own series: the checkout's, then the renewal's.
    const numbers = await t.server.database.rows<{ customer_id: string; invoice_number: string }>(
      sql`select customer_id, invoice_number from orders where organization_id = ${s.organizationId}
        order by customer_id, created_at`,
    );
    expect(numbers).toHaveLength(8);
    const series = new Map<string, typeof numbers>();
    for (const n of numbers) series.set(n.customer_id, [...(series.get(n.customer_id) ?? []), n]);
    expect(series.size).toBe(4);
    for (const own of series.values()) {
      const [first, renewal] = own.map((n) => n.invoice_number);
      expect(first).toMatch(/-[A-Z]{8}-0001$/);
      expect(renewal).toBe(first!.replace(/-0001$/, "-0002"));
    }

    expect(await renewalEvents(s, ids[0]!)).toEqual([
      "order.created",
      "order.paid",
      "subscription.updated",
      "subscription.cycled",
    ]);
    expect(await renewalEvents(s, ids[1]!)).toEqual([
      "order.created",
      "subscription.updated",
      "subscription.past_due",
      "subscription.cycled",
    ]);
    const types = (await eventsOf(t, s.organizationId)).map((e) => e.type);
    expect(types.filter((x) => x === "subscription.cycled")).toHaveLength(4);
    expect(types.filter((x) => x === "customer.state_changed").length).toBeGreaterThanOrEqual(8);
    const next = await repo.subscriptionsByIds(t.server.database.db, scopeOfResource(s), ids);
    // The next wake-up: the new period's end, or the declined one's first retry.
    for (const row of next)
      if (row.status === "active") expect(row.nextActionAt).toEqual(row.currentPeriodEnd);
      else expect(row.nextActionAt!.getTime()).toBeLessThan(row.currentPeriodEnd.getTime());
    // Every lease was given back, with the period moves or after them.
    expect(next.map((row) => row.lockedUntil)).toEqual(ids.map(() => null));
  });

  it("a batch re-run after a crash mid-way makes no second order or charge", async () => {
    const { s, ids } = await dueSet(Array.from({ length: 5 }, () => "sandbox_token_success"));
    const deps = depsOn(t.server.database.db);
    const rows = await repo.subscriptionsByIds(deps.db, scopeOfResource(s), ids);
    const at = new Date();
    // Before the crash: two renewals committed, the other three charged but never written.
    await renewBatch(deps, rows.slice(0, 2), at);
    const methods = await t.server.database.rows<{ customer_id: string; pm: string }>(
      sql`select customer_id, processor_payment_method_id as pm from payment_methods
        where organization_id = ${s.organizationId}`,
    );
    for (const row of rows.slice(2)) {
      const pm = methods.find((m) => m.customer_id === row.customerId)!.pm;
      const charged = await deps.processor.chargeOffSession({
        amount: 1200,
        currency: "usd",
        paymentMethod: { processorPaymentMethodId: pm, processorCustomerId: null },
        idempotencyKey: chargeKey(row.id, row.currentPeriodEnd, 0),
        description: "Batch plan renewal",
        metadata: { subscription_id: row.id },
      });
      expect(charged.status).toBe("succeeded");
    }
    // The job is handed out again with the whole batch.
    await runDueMany(deps, ids);
    await runDueMany(deps, ids);
    for (const r of await counts(s))
      expect([r.status, r.moved, r.orders, r.charges, r.payments]).toEqual([
        "active",
        true,
        1,
        1,
        1,
      ]);
    const cycled = (await eventsOf(t, s.organizationId)).filter(
      (e) => e.type === "subscription.cycled",
    );
    expect(cycled).toHaveLength(5);
  });

  it("two workers on the same due set renew each subscription once", async () => {
    const { s, ids } = await dueSet(Array.from({ length: 6 }, () => "sandbox_token_success"));
    // On PostgreSQL each worker has its own pool, so their transactions really race.
    const second = t.testDb.url
      ? await openDb({ kind: "postgres", url: t.testDb.url, poolSize: 3 })
      : null;
    try {
      const a = depsOn(t.server.database.db);
      const b = depsOn(second?.db ?? t.server.database.db);
      await asJobs([() => runDueMany(a, ids), () => runDueMany(b, [...ids].reverse())]);
    } finally {
      await second?.close();
    }
    for (const r of await counts(s))
      expect([r.status, r.moved, r.orders, r.charges, r.payments]).toEqual([
        "active",
        true,
        1,
        1,
        1,
      ]);
    const types = (await eventsOf(t, s.organizationId)).map((e) => e.type);
    expect(types.filter((x) => x === "subscription.cycled")).toHaveLength(6);
    expect(types.filter((x) => x === "order.paid")).toHaveLength(12);
  });

  it("a window's job renews what falls in its second, page by page, once under two workers", async () => {
    const { s, ids, due } = await dueSet(Array.from({ length: 5 }, () => "sandbox_token_success"));
    // One subscription due two seconds earlier: another window's, left to that window's job.
    const early = new Date(new Date(due).getTime() - 2000).toISOString();
    await t.server.database.rows(sql`
      update subscriptions set current_period_end = ${early}::timestamptz,
        next_action_at = ${early}::timestamptz where id = ${ids[4]!}`);
    const second = t.testDb.url
      ? await openDb({ kind: "postgres", url: t.testDb.url, poolSize: 3 })
      : null;
    try {
      const window = windowOf(new Date(due));
      // Pages of two rows: the four of the window take two pages and a last, empty read.
      await asJobs([
        () => runDueWindow(depsOn(t.server.database.db), s.organizationId, window, 2),
        () => runDueWindow(depsOn(second?.db ?? t.server.database.db), s.organizationId, window, 2),
      ]);
    } finally {
      await second?.close();
    }
    const rows = new Map((await counts(s)).map((r) => [r.id, r]));
    for (const id of ids.slice(0, 4))
      expect(rows.get(id)).toMatchObject({ status: "active", moved: true, orders: 1, charges: 1 });
    expect(rows.get(ids[4]!)).toMatchObject({ moved: false, orders: 0, charges: 0 });
    // The four renewed into the same next window: one wake-up job for all of them.
    const next = await repo.subscriptionsByIds(t.server.database.db, scopeOfResource(s), ids);
    const nextEnd = next.find((r) => r.id === ids[0])!.currentPeriodEnd;
    const jobs = await t.server.database.rows<{ n: number }>(sql`
      select count(*)::int as n from pgboss.job
      where name = 'subscriptions.due'
        and singleton_key = ${dueJobKey(s.organizationId, windowOf(nextEnd))}`);
    expect(jobs[0]!.n).toBe(1);

    // The catch-up's job (no window) takes everything due up to now.
    await runDueWindow(depsOn(t.server.database.db), s.organizationId, null);
    expect((await counts(s)).find((r) => r.id === ids[4])).toMatchObject({
      moved: true,
      orders: 1,
    });
  });
});
