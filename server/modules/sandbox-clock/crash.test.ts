// Fault test with real processes on PostgreSQL: `till serve` is SIGKILLed while a sandbox clock
// advance renews 200 daily subscriptions over 180 days. The dead advance's lease on the clock
// lapses within ADVANCE_LEASE_MS (it is no longer renewed) and its batch's leases on subscriptions
// within LEASE_SECONDS, so after a restart the same advance is refused with 409 only until then,
// and running it again bills every boundary exactly once.
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { api } from "../../../test/helpers/auth.ts";
import { openTestDatabase, usingPostgres, type TestDatabase } from "../../../test/helpers/db.ts";
import { spawnTillServer, tempDir, type SpawnedServer } from "../../../test/helpers/process.ts";
import { seedDueSubscriptions } from "../../../test/helpers/renewal-seed.ts";
import { sellerWithSubscription, serveEnv } from "../../../test/helpers/spawned-seller.ts";
import { waitFor } from "../../../test/helpers/webhook-receiver.ts";
import { LEASE_SECONDS } from "../subscriptions/lease.ts";
import { ADVANCE_LEASE_MS } from "./service.ts";

let testDb: TestDatabase | null = null;
const children: SpawnedServer[] = [];
afterAll(async () => {
  for (const c of children) c.child.kill("SIGKILL");
  await testDb?.dispose();
});

const N = 200;
// Enough work (36,000 renewals) that the advance outlives its first heartbeat on a fast machine.
const DAYS = 180;
const DAY_MS = 86_400_000;

describe.skipIf(!usingPostgres())("till serve killed while the sandbox clock advances", () => {
  it("SIGKILL mid-advance: the clock is free once the lease lapses, each boundary billed once", {
    timeout: 400_000,
  }, async () => {
    testDb = await openTestDatabase();
    const db = testDb.database;
    const cwd = tempDir("till-clock-crash-");
    const env = await serveEnv(cwd, testDb.url!);
    const first = await spawnTillServer("serve", env, cwd);
    children.push(first);
    const seller = await sellerWithSubscription(db, first.url, "day");
    const { organizationId, token } = seller;
    // Due an hour from now: the worker leaves them alone, the clock's advance renews them.
    const dueAt = new Date(Date.now() + 3_600_000);
    await seedDueSubscriptions(db, { ...seller, clones: N - 1, dueAt });
    const target = new Date(dueAt.getTime() + DAYS * DAY_MS - 60_000).toISOString();
    const cycleOrders = async () =>
      Number(
        (
          await db.rows<{ n: string }>(
            sql`select count(*) as n from orders where organization_id = ${organizationId} and billing_reason = 'subscription_cycle'`,
          )
        )[0]!.n,
      );
    const advance = (url: string) =>
      api(url, "/v1/sandbox/clock/advance", { token, body: { to: target } });

    // The lease's end (ms), or null while no advance holds the clock.
    const leaseEnd = async () => {
      const [row] = await db.rows<{ until: string | null }>(
        sql`select (extract(epoch from advancing_until) * 1000)::bigint::text as until
          from sandbox_clocks where organization_id = ${organizationId}`,
      );
      return row?.until ? Number(row.until) : null;
    };
    const advancing = advance(first.url).catch(() => null);
    await waitFor(async () => (await leaseEnd()) !== null, 60_000, "the advance's lease");
    const taken = (await leaseEnd())!;
    // The advance renews its lease while it works: it outlives the lease it started with.
    await waitFor(
      async () => ((await leaseEnd()) ?? 0) > taken,
      ADVANCE_LEASE_MS,
      "a renewal of the lease",
    );
    expect(await cycleOrders()).toBeLessThan(N * DAYS);
    first.child.kill("SIGKILL");
    await first.child;
    await advancing;
    const killedAt = Date.now();
    const atKill = await cycleOrders();
    expect(atKill).toBeLessThan(N * DAYS);

    const second = await spawnTillServer("serve", env, cwd);
    children.push(second);
    // The dead advance still holds the clock…
    const refused = await advance(second.url);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: "ClockAdvancing" });
    // …until its lease lapses, not the ten minutes an unrenewed lease used to last. Then the
    // subscriptions the dead batch had leased are refused until their own leases lapse.
    let answered = refused;
    while (answered.status === 409) {
      const since = Date.now() - killedAt;
      if (answered.body.error === "ClockAdvancing")
        expect(since).toBeLessThan(ADVANCE_LEASE_MS + 15_000);
      else expect(answered.body.error).toBe("SubscriptionLocked");
      expect(since).toBeLessThan(LEASE_SECONDS * 1000 + 30_000);
      await new Promise((r) => setTimeout(r, 1000));
      answered = await advance(second.url);
    }
    expect(answered.status).toBe(200);
    expect(Date.parse(answered.body.now)).toBeGreaterThanOrEqual(Date.parse(target));
    console.log(`cycle orders at the kill: ${atKill} of ${N * DAYS}`);

    // Boundaries dueAt, dueAt + 1 day, …, up to the target: DAYS of them, each billed once.
    const perSubscription = await db.rows<{
      orders: string;
      keys: string;
      charges: string;
      ahead: boolean;
    }>(sql`
      select
        (select count(*) from orders o where o.subscription_id = s.id
           and o.billing_reason = 'subscription_cycle') as orders,
        (select count(distinct o.billing_key) from orders o where o.subscription_id = s.id
           and o.billing_reason = 'subscription_cycle') as keys,
        (select count(*) from sandbox_charges c
           where c.idempotency_key like 'renewal:' || s.id || ':%') as charges,
        s.current_period_end > ${target}::timestamptz as ahead
      from subscriptions s where s.organization_id = ${organizationId}`);
    expect(perSubscription).toHaveLength(N);
    for (const row of perSubscription) {
      expect(Number(row.orders)).toBe(DAYS);
      expect(Number(row.keys)).toBe(DAYS);
      expect(Number(row.charges)).toBe(DAYS);
      expect(row.ahead).toBe(true);
    }
    // The lease is given back: the clock moves again at once.
    const next = await api(second.url, "/v1/sandbox/clock/advance", {
      token,
      body: { seconds: 60 },
    });
    expect(next.status).toBe(200);
    second.child.kill("SIGTERM");
    await second.child;
  });
});
