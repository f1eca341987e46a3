// A year of the sandbox clock over N monthly subscriptions (default 100) on PostgreSQL: one bought
// through the API in each of two organizations, cloned as bench/renewals.ts does. In one their
// boundaries are spread over N different times of a month, as real purchases are; in the other
// (the baseline) they all fall at one instant, the case a batch of renewals serves best. Each
// organization's clock is advanced a year in one call.
//
//   node bench/clock-advance.ts [--pg postgres://postgres@127.0.0.1:5432/postgres] [--n 100]
// Prints renewals/s of each advance and their ratio.
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { Polar } from "@polar-sh/sdk";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { migrate, openDb } from "../db/client.ts";
import { loadConfig } from "../server/config.ts";
import { migrateQueue } from "../server/jobs/queue.ts";
import { start } from "../server/main.ts";
import { api, createSeller } from "../test/helpers/auth.ts";
import { advance, BILLING_SCOPES, subscribe, type BillingSeller } from "../test/helpers/billing.ts";
import { seedDueSubscriptions } from "../test/helpers/renewal-seed.ts";
import { freePort } from "../test/helpers/server.ts";

const { values } = parseArgs({
  options: {
    pg: { type: "string", default: "postgres://postgres@127.0.0.1:5432/postgres" },
    n: { type: "string", default: "100" },
  },
});
const N = Number(values.n);
const DAYS = 365;
const admin = postgres(values.pg!, { max: 1, onnotice: () => {} });
const name = `till_bench_clock_${randomBytes(4).toString("hex")}`;
await admin.unsafe(`create database "${name}"`);
const url = new URL(values.pg!);
url.pathname = `/${name}`;

try {
  const db = await openDb({ kind: "postgres", url: url.toString(), poolSize: 10 });
  await migrate(db);
  await migrateQueue(db, url.toString());
  const port = await freePort();
  const env = {
    PORT: String(port),
    BASE_URL: `http://localhost:${port}`,
    DATABASE_URL: url.toString(),
    LOG_LEVEL: "silent",
    AUTH_SECRET: "c".repeat(40),
    AUTH_RATE_LIMIT: "false",
  };
  const server = await start(loadConfig({ command: "test", env }), { database: db, worker: false });

  /** An organization with N monthly subscriptions; `spread` gives each its own boundary. */
  const organization = async (spread: boolean): Promise<BillingSeller> => {
    const seller = await createSeller(server.url, BILLING_SCOPES);
    const s: BillingSeller = {
      token: seller.token,
      organizationId: seller.organization.id,
      polar: new Polar({ accessToken: seller.token, serverURL: server.url }),
      call: (path, init = {}) => api(server.url, path, { ...init, token: seller.token }),
    };
    const product = await s.polar.products.create({
      name: "Monthly",
      recurringInterval: "month",
      prices: [{ amountType: "fixed", priceAmount: 900, priceCurrency: "usd" }],
    });
    const { subscriptionId } = await subscribe(s, product.id);
    const firstEnd = new Date(Date.now() + 2 * 86_400_000);
    await seedDueSubscriptions(db, {
      organizationId: s.organizationId,
      subscriptionId,
      clones: N - 1,
      dueAt: firstEnd,
    });
    // Spread: the i-th subscription's period ends i/N of a month after the first's.
    const step = spread ? Math.floor((30 * 86_400) / N) : 0;
    await db.rows(sql`
      with ranked as (
        select id, row_number() over (order by id) - 1 as i from subscriptions
        where organization_id = ${s.organizationId})
      update subscriptions set
        current_period_end = ${firstEnd.toISOString()}::timestamptz + ranked.i * ${step} * interval '1 second',
        next_action_at = ${firstEnd.toISOString()}::timestamptz + ranked.i * ${step} * interval '1 second'
      from ranked where subscriptions.id = ranked.id`);
    return s;
  };
  const measure = async (s: BillingSeller) => {
    const t0 = performance.now();
    await advance(s, { seconds: DAYS * 86_400 });
    const ms = performance.now() - t0;
    const [row] = await db.rows<{ n: string }>(
      sql`select count(*) as n from orders where organization_id = ${s.organizationId}
        and billing_reason = 'subscription_cycle'`,
    );
    return { ms, renewals: Number(row!.n) };
  };
  const spread = await organization(true);
  const oneInstant = await organization(false);
  await db.rows(sql`analyze`);
  const base = await measure(oneInstant);
  const spreadRun = await measure(spread);
  await server.stop();

  const rate = (r: { ms: number; renewals: number }) => (r.renewals / r.ms) * 1000;
  const line = (label: string, r: { ms: number; renewals: number }) =>
    `  ${label} ${r.renewals} renewals in ${(r.ms / 1000).toFixed(1)} s: ${rate(r).toFixed(0)} renewals/s`;
  console.log(
    `sandbox clock: one advance of ${DAYS} days over ${N} monthly subscriptions, PostgreSQL`,
  );
  console.log(`${line("spread      ", spreadRun)} (boundaries at N different times)`);
  console.log(`${line("one instant ", base)} (baseline: every boundary shared)`);
  console.log(`  ratio        ${(rate(spreadRun) / rate(base)).toFixed(2)}× the baseline`);
} finally {
  await admin.unsafe(`drop database if exists "${name}" with (force)`);
  await admin.end();
}
