// One change of a subscription at a time: concurrent plan changes charge once, a change that finds
// the subscription held (by another process's change or renewal) answers 409 SubscriptionLocked
// and changes nothing, and the sandbox clock waits out a held subscription before renewing it.
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  advance,
  billingSeller,
  monthlyProduct,
  ordersOf,
  subscribe,
  subscriptionOf,
  type BillingSeller,
} from "../../../test/helpers/billing.ts";
import { usingPostgres } from "../../../test/helpers/db.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { waitFor } from "../../../test/helpers/webhook-receiver.ts";
import { LEASE_SECONDS, withLease } from "./lease.ts";

let t: TestServer;
let s: BillingSeller;

beforeAll(async () => {
  t = await startTestServer();
  s = await billingSeller(t);
});
afterAll(() => t.stop());

const monthly = (name: string, amount: number) => monthlyProduct(s, name, amount);

const patch = (id: string, body: unknown) =>
  s.call(`/v1/subscriptions/${id}`, { method: "PATCH", body });

/** Holds the subscription as another process's change would, for `ms`. */
const hold = (id: string, ms: number) =>
  t.server.database.rows(
    sql`update subscriptions set locked_until = now() + make_interval(secs => ${ms / 1000})
      where id = ${id}`,
  );

describe("subscription lease", () => {
  it("three upgrades sent at once charge the card once and make one order", async () => {
    const basic = await monthly("Basic", 1000);
    const pro = await monthly("Pro", 3000);
    const { subscriptionId } = await subscribe(s, basic.id);
    const answers = await Promise.all(
      Array.from({ length: 3 }, () =>
        patch(subscriptionId, { product_id: pro.id, proration_behavior: "invoice" }),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((x) => x === 200)).toHaveLength(1);
    // The others found it held (409) or, once the first was done, already on the product (422).
    for (const a of answers.filter((x) => x.status !== 200)) {
      expect([409, 422]).toContain(a.status);
      if (a.status === 409) expect(a.body.error).toBe("SubscriptionLocked");
    }
    const updates = (await ordersOf(s, subscriptionId)).filter(
      (o) => o.billing_reason === "subscription_update",
    );
    expect(updates).toHaveLength(1);
    const charges = await t.server.database.rows<{ n: number }>(
      sql`select count(*)::int as n from sandbox_charges
        where idempotency_key like ${`update:${subscriptionId}:%`} and status = 'succeeded'`,
    );
    expect(charges[0]!.n).toBe(1);
    // Given back: the next change goes through.
    expect((await patch(subscriptionId, { metadata: { plan: "pro" } })).status).toBe(200);
  });

  it("a held subscription refuses changes with 409 and nothing changes; the clock waits it out", async () => {
    const plan = await monthly("Held plan", 1500);
    const { subscriptionId } = await subscribe(s, plan.id);
    const before = await subscriptionOf(s, subscriptionId);
    await hold(subscriptionId, 60_000);
    for (const body of [
      { revoke: true },
      { cancel_at_period_end: true },
      { metadata: { a: "b" } },
    ]) {
      const res = await patch(subscriptionId, body);
      expect(res.status, JSON.stringify(body)).toBe(409);
      expect(res.body).toEqual({
        error: "SubscriptionLocked",
        detail:
          "This subscription is pending an update and cannot be modified at the moment. Try again shortly.",
      });
    }
    expect(await subscriptionOf(s, subscriptionId)).toEqual(before);
    // Held for a moment more: the advance waits for it, then renews it once.
    await hold(subscriptionId, 1500);
    await advance(s, { to: before.current_period_end });
    const cycles = (await ordersOf(s, subscriptionId)).filter(
      (o) => o.billing_reason === "subscription_cycle",
    );
    expect(cycles).toHaveLength(1);
    expect((await subscriptionOf(s, subscriptionId)).current_period_start).toBe(
      before.current_period_end,
    );
  });
});

describe("rows referencing a subscription", () => {
  it.skipIf(!usingPostgres())(
    "a row being inserted that references it (a seat, an order) does not hold it",
    async () => {
      const plan = await monthly("Referenced plan", 1000);
      const { subscriptionId } = await subscribe(s, plan.id);
      const other = postgres(t.testDb.url!, { max: 2, onnotice: () => {} });
      try {
        let release = () => {};
        const released = new Promise<void>((r) => (release = r));
        let locked = () => {};
        const isLocked = new Promise<void>((r) => (locked = r));
        // The lock a foreign key check takes while another transaction inserts such a row.
        const holding = other.begin(async (tx) => {
          await tx`select 1 from subscriptions where id = ${subscriptionId} for key share`;
          locked();
          await released;
        });
        await isLocked;
        let answered = false;
        const patching = patch(subscriptionId, { metadata: { seen: "yes" } }).finally(() => {
          answered = true;
        });
        // Refused at once, or leased and waiting for the row to write it.
        await waitFor(
          async () =>
            answered ||
            (
              await other`select 1 from pg_stat_activity where datname = current_database()
                and wait_event_type = 'Lock'`
            ).length > 0,
          30_000,
          "the change answered or waiting",
        );
        release();
        await holding;
        const res = await patching;
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(res.body.metadata).toEqual({ seen: "yes" });
      } finally {
        await other.end();
      }
    },
  );
});

describe("lease heartbeat", () => {
  /** The lease's end in ms, null when nobody holds it. */
  const leaseEnd = async (id: string) => {
    const [row] = await t.server.database.rows<{ until: string | null }>(
      sql`select (extract(epoch from locked_until) * 1000)::bigint::text as until
        from subscriptions where id = ${id}`,
    );
    return row!.until === null ? null : Number(row!.until);
  };

  it("a holder working past its heartbeat keeps the lease, then gives it back", {
    timeout: 30_000,
  }, async () => {
    const plan = await monthly("Slow holder plan", 1000);
    const { subscriptionId } = await subscribe(s, plan.id);
    const taken = Date.now();
    await withLease(
      t.server.database.db,
      { id: subscriptionId, organizationId: s.organizationId },
      async () => {
        const first = await leaseEnd(subscriptionId);
        expect(first).toBeLessThanOrEqual(taken + LEASE_SECONDS * 1000 + 1000);
        await new Promise((r) => setTimeout(r, (LEASE_SECONDS * 1000) / 3 + 1500));
        // Renewed from the heartbeat's time: it ends later than the lease first taken.
        expect(await leaseEnd(subscriptionId)).toBeGreaterThan(first!);
        expect((await patch(subscriptionId, { metadata: { a: "b" } })).status).toBe(409);
      },
    );
    expect(await leaseEnd(subscriptionId)).toBeNull();
    expect((await patch(subscriptionId, { metadata: { a: "b" } })).status).toBe(200);
  });

  it("a lease that lapsed and was taken by another is not given back by its first holder", async () => {
    const plan = await monthly("Lapsed holder plan", 1000);
    const { subscriptionId } = await subscribe(s, plan.id);
    await withLease(
      t.server.database.db,
      { id: subscriptionId, organizationId: s.organizationId },
      async () => {
        // As if this holder stalled past its lease and another process leased the row anew.
        await hold(subscriptionId, 60_000);
      },
    );
    expect(await leaseEnd(subscriptionId)).toBeGreaterThan(Date.now() + 50_000);
    expect((await patch(subscriptionId, { metadata: { a: "b" } })).status).toBe(409);
  });
});

describe("trial_end now", () => {
  it("ends the trial it set and charges at once, before answering", async () => {
    const plan = await monthly("Trial now plan", 1200);
    const { subscriptionId } = await subscribe(s, plan.id);
    const later = new Date(
      Date.parse((await subscriptionOf(s, subscriptionId)).current_period_end),
    );
    later.setUTCDate(later.getUTCDate() + 10);
    const trial = await patch(subscriptionId, { trial_end: later.toISOString() });
    expect(trial.body.status).toBe("trialing");
    const now = await patch(subscriptionId, { trial_end: "now" });
    expect(now.status).toBe(200);
    expect(now.body.status).toBe("active");
    const cycles = (await ordersOf(s, subscriptionId)).filter(
      (o) => o.billing_reason === "subscription_cycle",
    );
    expect(cycles).toHaveLength(1);
    expect(cycles[0]).toMatchObject({ status: "paid", total_amount: 1200 });
  });
});
