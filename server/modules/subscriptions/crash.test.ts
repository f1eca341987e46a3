// Fault test with real processes on PostgreSQL: `till serve` is SIGKILLed while its worker renews
// 500 subscriptions due at the same instant, then started again on the same database. Every
// subscription ends with exactly one cycle order for that period and one charge: the order's
// unique billing key and the charge's idempotency key make the re-run after the crash safe.
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { openTestDatabase, usingPostgres, type TestDatabase } from "../../../test/helpers/db.ts";
import { spawnTillServer, tempDir, type SpawnedServer } from "../../../test/helpers/process.ts";
import { seedDueSubscriptions } from "../../../test/helpers/renewal-seed.ts";
import { sellerWithSubscription, serveEnv } from "../../../test/helpers/spawned-seller.ts";
import { waitFor } from "../../../test/helpers/webhook-receiver.ts";

let testDb: TestDatabase | null = null;
const children: SpawnedServer[] = [];
afterAll(async () => {
  for (const c of children) c.child.kill("SIGKILL");
  await testDb?.dispose();
});

const N = 500;

describe.skipIf(!usingPostgres())("till serve killed while renewing (PostgreSQL)", () => {
  it("SIGKILL mid-renewal of 500 due subscriptions, restart: one cycle order and one charge each", {
    timeout: 240_000,
  }, async () => {
    testDb = await openTestDatabase();
    const db = testDb.database;
    const cwd = tempDir("till-renewal-crash-");
    const env = await serveEnv(cwd, testDb.url!);
    const first = await spawnTillServer("serve", env, cwd);
    children.push(first);
    const seller = await sellerWithSubscription(db, first.url, "month");
    const org = { id: seller.organizationId };
    first.child.kill("SIGTERM");
    await first.child;

    const dueAt = new Date(Date.now() - 60_000);
    await seedDueSubscriptions(db, {
      organizationId: org.id,
      subscriptionId: seller.subscriptionId,
      clones: N - 1,
      dueAt,
    });
    const cycleOrders = async () =>
      Number(
        (
          await db.rows<{ n: string }>(
            sql`select count(*) as n from orders where organization_id = ${org.id} and billing_reason = 'subscription_cycle'`,
          )
        )[0]!.n,
      );

    // The worker wakes the 500 overdue subscriptions at start; it is killed part-way through.
    const second = await spawnTillServer("serve", env, cwd);
    children.push(second);
    await waitFor(async () => (await cycleOrders()) >= 40, 60_000, "renewals under way");
    second.child.kill("SIGKILL");
    await second.child;
    const atKill = await cycleOrders();
    expect(atKill).toBeLessThan(N);

    const third = await spawnTillServer("serve", env, cwd);
    children.push(third);
    await waitFor(async () => (await cycleOrders()) >= N, 180_000, "all renewals after restart");
    // A little longer: anything still running must not add a second order or charge.
    await new Promise((r) => setTimeout(r, 2000));
    console.log(`cycle orders at the kill: ${atKill} of ${N}`);

    const perSubscription = await db.rows<{ orders: string; charges: string; moved: boolean }>(sql`
      select
        (select count(*) from orders o where o.subscription_id = s.id
           and o.billing_reason = 'subscription_cycle') as orders,
        (select count(*) from sandbox_charges c
           where c.idempotency_key like 'renewal:' || s.id || ':%') as charges,
        s.current_period_start = ${dueAt.toISOString()}::timestamptz as moved
      from subscriptions s where s.organization_id = ${org.id}`);
    expect(perSubscription).toHaveLength(N);
    for (const row of perSubscription) {
      expect(Number(row.orders)).toBe(1);
      expect(Number(row.charges)).toBe(1);
      expect(row.moved).toBe(true);
    }
    const paid = await db.rows<{ n: string }>(
      sql`select count(*) as n from orders where organization_id = ${org.id} and billing_reason = 'subscription_cycle' and status = 'paid' and total_amount = 1000`,
    );
    expect(Number(paid[0]!.n)).toBe(N);
    third.child.kill("SIGTERM");
    await third.child;
  });
});
