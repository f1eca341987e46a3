// Renewals at scale on PostgreSQL: N subscriptions (default 10,000) due at the same instant,
// renewed by one worker process through the engine (wake-up jobs handled in batches of 200: one
// read of the products, customers, discounts and cards, the off-session sandbox charges in one
// call, then one transaction of multi-row statements for the cycle orders, payments, period moves,
// webhook events, customer states and next wake-ups), beside a hand-written reference in the same
// run on the same rows: one INSERT … SELECT of the orders and one UPDATE of the periods (no charge,
// no events; rolled back so the engine sees the rows untouched; the median of three runs). Then the floor (renewals-floor.ts):
// the rows the engine wrote, webhook payloads included, written again with no logic at all; then
// again with each event's payload `{}`, and with no event at all.
//
//   node bench/renewals.ts [--pg postgres://postgres@127.0.0.1:5432/postgres] [--n 10000]
// Prints renewals/s and statements per renewal for each, and the engine's and the floor's ratio to
// the reference. Each timed part starts after a CHECKPOINT, so none pays for another's writes.
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { migrate, openDb } from "../db/client.ts";
import { loadConfig } from "../server/config.ts";
import { migrateQueue } from "../server/jobs/queue.ts";
import { start } from "../server/main.ts";
import { RENEWAL_BATCH_SIZE, RENEWAL_LANES } from "../server/modules/subscriptions/due.ts";
import { SUBSCRIPTION_DUE_JOB } from "../server/modules/subscriptions/jobs.ts";
import { api, createAccessToken, createOrganization, signUp } from "../test/helpers/auth.ts";
import { seedDueSubscriptions } from "../test/helpers/renewal-seed.ts";
import { freePort } from "../test/helpers/server.ts";
import { writeFloor } from "./renewals-floor.ts";
import { US_ADDRESS } from "../test/helpers/addresses.ts";

const { values } = parseArgs({
  options: {
    pg: { type: "string", default: "postgres://postgres@127.0.0.1:5432/postgres" },
    n: { type: "string", default: "10000" },
  },
});
const N = Number(values.n);
const REFERENCE_RUNS = 3;
const admin = postgres(values.pg!, { max: 1, onnotice: () => {} });
const name = `till_bench_renewals_${randomBytes(4).toString("hex")}`;
await admin.unsafe(`create database "${name}"`);
const url = new URL(values.pg!);
url.pathname = `/${name}`;
const dbUrl = url.toString();

try {
  const setupDb = await openDb({ kind: "postgres", url: dbUrl, poolSize: 10 });
  await migrate(setupDb);
  await migrateQueue(setupDb, dbUrl);
  const port = await freePort();
  const env = {
    PORT: String(port),
    BASE_URL: `http://localhost:${port}`,
    DATABASE_URL: dbUrl,
    LOG_LEVEL: "silent",
    AUTH_SECRET: "b".repeat(40),
    AUTH_RATE_LIMIT: "false",
  };
  // One subscription bought through the API (the customer's saved card included), then cloned.
  const api1 = await start(loadConfig({ command: "test", env }), {
    database: setupDb,
    worker: false,
  });
  const base = api1.url;
  const user = await signUp(base);
  const org = await createOrganization(base, user);
  const token = await createAccessToken(base, user, org.id, ["products:write", "checkouts:write"]);
  const product = await api(base, "/v1/products/", {
    token,
    body: {
      name: "Bench plan",
      recurring_interval: "month",
      prices: [{ amount_type: "fixed", price_amount: 1000, price_currency: "usd" }],
    },
  });
  const checkout = await api(base, "/v1/checkouts/", {
    token,
    body: { products: [product.body.id] },
  });
  await api(base, `/v1/checkouts/client/${checkout.body.client_secret}/confirm`, {
    body: {
      customer_email: "bench@example.com",
      customer_billing_address: US_ADDRESS,
      confirmation_token_id: "sandbox_token_success",
    },
  });
  await api1.stop();

  const db = await openDb({ kind: "postgres", url: dbUrl, poolSize: 10 });
  const [bought] = await db.rows<{ id: string }>(
    sql`select id from subscriptions where organization_id = ${org.id}`,
  );
  const dueAt = new Date(Date.now() - 60_000);
  await seedDueSubscriptions(db, {
    organizationId: org.id,
    subscriptionId: bought!.id,
    clones: N - 1,
    dueAt,
  });
  await db.rows(sql`analyze`);

  // The reference: the whole renewal as two set statements, timed, then rolled back; three runs,
  // each on a vacuumed table after a checkpoint, and the median taken (one run varies by ±25 %).
  const ref = postgres(dbUrl, { max: 1, onnotice: () => {} });
  const refRuns: number[] = [];
  for (let run = 0; run < REFERENCE_RUNS; run++) {
    await ref`vacuum orders, subscriptions`;
    await ref`checkpoint`;
    const r0 = performance.now();
    await ref
      .begin(async (tx) => {
        await tx`
          insert into orders (organization_id, customer_id, product_id, subscription_id, status,
            billing_reason, billing_key, subtotal_amount, discount_amount, net_amount, tax_amount,
            total_amount, currency, payment_attempts, created_at)
          select organization_id, customer_id, product_id, id, 'paid', 'subscription_cycle',
            'cycle:' || id || ':' || current_period_end, amount, 0, amount, 0, amount, currency, 1, now()
          from subscriptions where organization_id = ${org.id} and next_action_at <= now()`;
        await tx`
          update subscriptions set current_period_start = current_period_end,
            current_period_end = current_period_end + interval '1 month',
            next_action_at = current_period_end + interval '1 month'
          where organization_id = ${org.id} and next_action_at <= now()`;
        throw new Error("rollback");
      })
      .catch(() => undefined);
    refRuns.push(performance.now() - r0);
  }
  // The engine starts on tables as clean as the reference's first run had them.
  await ref`vacuum orders, subscriptions`;
  await ref.end();
  const refMs = [...refRuns].sort((a, b) => a - b)[Math.floor(REFERENCE_RUNS / 2)]!;

  await db.rows(sql`checkpoint`);
  // The engine: one worker process (no HTTP) wakes the overdue subscriptions at start.
  let statements = 0;
  const workerDb = await openDb(
    { kind: "postgres", url: dbUrl, poolSize: 10 },
    { onQuery: () => statements++ },
  );
  const cycles = async () =>
    Number(
      (
        await db.rows<{ n: string }>(
          sql`select count(*) as n from orders where organization_id = ${org.id} and billing_reason = 'subscription_cycle'`,
        )
      )[0]!.n,
    );
  // Whether a wake-up job due by now is still queued or running (the renewals queue the next
  // month's, not yet due): a read of pg-boss's small queue, so waiting
  // does not load the database under test with a count of the orders every poll.
  const working = async () =>
    Number(
      (
        await db.rows<{ n: string }>(
          sql`select count(*) as n from pgboss.job where name = ${SUBSCRIPTION_DUE_JOB} and state < 'completed'
            and start_after <= now()`,
        )
      )[0]!.n,
    ) > 0;
  const since = new Date();
  const t0 = performance.now();
  const worker = await start(loadConfig({ command: "test", env: { ...env, PORT: "0" } }), {
    database: workerDb,
    http: false,
    worker: true,
  });
  const deadline = t0 + 600_000;
  let done = 0;
  while (performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    if (await working()) continue;
    // Every job done: all renewed, or a failure left some for the retry the job queued.
    done = await cycles();
    if (done >= N) break;
  }
  const engineMs = performance.now() - t0;
  const until = new Date();
  const engineStatements = statements;
  await worker.stop();
  await db.rows(sql`checkpoint`);
  await db.close();
  const floorOf = async (events: "polar" | "stub" | "none") => {
    const written = await writeFloor(dbUrl, {
      organizationId: org.id,
      since,
      until,
      pageSize: RENEWAL_BATCH_SIZE,
      lanes: RENEWAL_LANES,
      events,
    });
    const ck = postgres(dbUrl, { max: 1, onnotice: () => {} });
    await ck`checkpoint`;
    await ck.end();
    return written;
  };
  const floor = await floorOf("polar");
  const stubFloor = await floorOf("stub");
  const bareFloor = await floorOf("none");

  const engineRate = (done / engineMs) * 1000;
  const refRate = (N / refMs) * 1000;
  console.log(`renewals: ${N} subscriptions due at one instant, PostgreSQL, one worker`);
  console.log(
    `  engine     ${done} renewed in ${(engineMs / 1000).toFixed(1)} s: ${engineRate.toFixed(0)} renewals/s, ${(engineStatements / Math.max(done, 1)).toFixed(2)} statements per renewal (pg-boss's own not counted)`,
  );
  console.log(
    `  reference  ${N} in ${(refMs / 1000).toFixed(2)} s: ${refRate.toFixed(0)} renewals/s, ${(2 / N).toFixed(4)} statements per renewal (INSERT … SELECT + UPDATE; median of ${refRuns.map((ms) => (ms / 1000).toFixed(2)).join(", ")} s)`,
  );
  const floorRate = (floor.renewals / floor.ms) * 1000;
  console.log(
    `  floor      ${floor.renewals} in ${(floor.ms / 1000).toFixed(2)} s: ${floorRate.toFixed(0)} renewals/s (the engine's rows, ${floor.eventsPerRenewal} events of ${(floor.payloadBytes / 1024).toFixed(1)} KB a renewal, no logic)`,
  );
  for (const [what, f] of [
    ["the same, each payload {}", stubFloor],
    ["order, item, payment and period move only, no event", bareFloor],
  ] as const)
    console.log(
      `             ${(f.ms / 1000).toFixed(2)} s: ${((f.renewals / f.ms) * 1000).toFixed(0)} renewals/s, ${(((f.renewals / f.ms) * 1000) / refRate).toFixed(3)}× the reference (${what})`,
    );
  console.log(`  ratio      ${(engineRate / refRate).toFixed(4)}× the reference`);
  console.log(
    `             floor ${(floorRate / refRate).toFixed(4)}× the reference; engine ${(engineRate / floorRate).toFixed(2)}× the floor`,
  );
} finally {
  await admin.unsafe(`drop database if exists "${name}" with (force)`);
  await admin.end();
}
