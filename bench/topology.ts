// One load, three deployments, one Markdown row each: events/s ingested, meter read p50/p99 (one
// customer and organization-wide), renewals/s and webhooks/s, for
//   pglite    one `till serve` on embedded PGlite
//   postgres  one `till serve` on a fresh database of the PostgreSQL server (--pg)
//   scaled    2 `till serve --no-worker` + 1 `till worker`, DATABASE_URL through PgBouncer
//             (transaction mode), DATABASE_DIRECT_URL the primary, DATABASE_READ_URL a streaming
//             replica: the clusters and pooler .ci/replica.sh and .ci/pgbouncer.sh build (as root)
// Every figure is measured over HTTP against real processes (bench/topology-cluster.ts):
//   ingest    --seconds of POST /v1/events/ingest, --batch events per request, --connections
//             spread over the API processes
//   reads     after topping the events up to --events and one rollup tick (the worker's job, run
//             on the primary), --reads sequential GET /v1/meters/{id}/quantities alternating over
//             the API processes: one customer (external_customer_id) and the whole organization
//   webhooks  --webhooks ~2 KB outbox events committed at once while the worker is stopped, then
//             delivered to 8 endpoints of a local receiver that verifies every signature
//   renewals  --renewals subscriptions due at one instant (one bought through the API, cloned as
//             bench/renewals.ts does), renewed by the worker started after the seed
// Rates of the drains count from the first delivery/renewal seen to the last (worker start-up
// excluded).
//
//   node bench/topology.ts [--seconds 10] [--events 200000] [--reads 300] [--renewals 5000]
//     [--webhooks 5000] [--connections 50] [--batch 100] [--only pglite,postgres,scaled]
//     [--pg postgres://postgres@127.0.0.1:5432/postgres] [--async-replica]
import { execFileSync } from "node:child_process";
import os from "node:os";
import { parseArgs } from "node:util";
import { Polar } from "@polar-sh/sdk";
import autocannon from "autocannon";
import { sql } from "drizzle-orm";
import { inTransaction } from "../db/client.ts";
import { systemClock } from "../server/lib/clock.ts";
import { refreshRollups } from "../server/modules/meters/rollups.ts";
import { recordEvents } from "../server/modules/webhooks/outbox.ts";
import { WEBHOOK_EVENT_TYPES } from "../server/modules/webhooks/events.ts";
import { api, createSeller } from "../test/helpers/auth.ts";
import { subscribe } from "../test/helpers/billing.ts";
import { seedDueSubscriptions } from "../test/helpers/renewal-seed.ts";
import { startReceiver } from "../test/helpers/webhook-receiver.ts";
import {
  cleanup,
  runCleanups,
  startPglite,
  startPostgres,
  startScaled,
  type Topology,
  type TopologyName,
} from "./topology-cluster.ts";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "10" },
    events: { type: "string", default: "200000" },
    reads: { type: "string", default: "300" },
    renewals: { type: "string", default: "5000" },
    webhooks: { type: "string", default: "5000" },
    connections: { type: "string", default: "50" },
    batch: { type: "string", default: "100" },
    only: { type: "string", default: "pglite,postgres,scaled" },
    pg: { type: "string", default: "postgres://postgres@127.0.0.1:5432/postgres" },
    "async-replica": { type: "boolean", default: false },
  },
});
const SECONDS = Number(values.seconds);
const EVENTS = Number(values.events);
const READS = Number(values.reads);
const RENEWALS = Number(values.renewals);
const WEBHOOKS = Number(values.webhooks);
const CONNECTIONS = Number(values.connections);
const BATCH = Number(values.batch);
const log = (s: string) => process.stderr.write(`${s}\n`);

interface Row {
  eventsPerSecond: number;
  /** Events stored when the meters were read. */
  eventsRead: number;
  ingestErrors: number;
  customer: { p50: number; p99: number };
  org: { p50: number; p99: number };
  webhooksPerSecond: number;
  renewalsPerSecond: number;
}

/** One body per request: autocannon replaces [<id>] with a fresh id, so no event is a duplicate. */
function batchBody(): string {
  const events = Array.from({ length: BATCH }, (_, i) => ({
    name: i % 5 === 0 ? "login" : "api_call",
    external_customer_id: `usr_${i % 37}`,
    external_id: `[<id>]-${i}`,
    metadata: { tokens: (i * 7) % 100, region: i % 4 === 0 ? "us" : "eu" },
  }));
  return JSON.stringify({ events });
}

/** Ingest from every API process at once, for `seconds` or until `requests` in all; events/s. */
async function ingest(
  t: Topology,
  token: string,
  o: { seconds: number } | { requests: number },
): Promise<{ eventsPerSecond: number; events: number; errors: number }> {
  const body = batchBody();
  const headers = { "content-type": "application/json", authorization: `Bearer ${token}` };
  const connections = Math.max(1, Math.round(CONNECTIONS / t.apis.length));
  const amount = "seconds" in o ? 0 : Math.ceil(o.requests / t.apis.length);
  const results = await Promise.all(
    t.apis.map((base) =>
      autocannon({
        url: `${base}/v1/events/ingest`,
        method: "POST",
        ...(amount
          ? { amount, connections: Math.min(connections, amount) }
          : { duration: (o as { seconds: number }).seconds, connections }),
        idReplacement: true,
        // 50 queued batches take PGlite about 10 s: a timeout would resend them as more load.
        timeout: 120,
        headers,
        body,
      }),
    ),
  );
  if (results.some((r) => r["2xx"] === 0 && r.non2xx > 0)) {
    const res = await fetch(`${t.apis[0]}/v1/events/ingest`, { method: "POST", headers, body });
    throw new Error(`ingest answered ${res.status}: ${(await res.text()).slice(0, 500)}`);
  }
  return {
    eventsPerSecond: results.reduce((n, r) => n + (r["2xx"] * BATCH) / r.duration, 0),
    events: results.reduce((n, r) => n + r["2xx"] * BATCH, 0),
    errors: results.reduce((n, r) => n + r.errors + r.non2xx, 0),
  };
}

/** Sequential GETs alternating over the API processes, after a warm-up; p50 and p99 in ms. */
async function readLatency(apis: string[], token: string, pathAndQuery: string) {
  const one = async (i: number) => {
    const res = await fetch(`${apis[i % apis.length]}${pathAndQuery}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (res.status !== 200) throw new Error(`quantities: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  };
  for (let i = 0; i < 10; i++) await one(i);
  const xs: number[] = [];
  for (let i = 0; i < READS; i++) {
    const t0 = performance.now();
    await one(i);
    xs.push(performance.now() - t0);
  }
  xs.sort((a, b) => a - b);
  const at = (p: number) => xs[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
  return { p50: at(0.5), p99: at(0.99) };
}

/**
 * Polls `count` until it reaches `target`; the rate from the first progress seen to the end, so a
 * worker's start-up is not counted.
 */
async function drainRate(count: () => Promise<number>, target: number, pollMs: number) {
  const deadline = performance.now() + 600_000;
  let first: { at: number; n: number } | null = null;
  const started = performance.now();
  for (;;) {
    const n = await count();
    const now = performance.now();
    if (n > 0 && !first) first = { at: now, n };
    if (n >= target) {
      // Everything arrived before the first look: count from the start.
      if (!first || first.n >= target) return (target / (now - started)) * 1000;
      return ((target - first.n) / (now - first.at)) * 1000;
    }
    if (now > deadline) throw new Error(`drain: ${n} of ${target} after 600 s`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

// Eight endpoints, one event type each: every event is delivered once.
const WEBHOOK_TYPES = WEBHOOK_EVENT_TYPES.slice(0, 8);

async function webhooks(t: Topology, base: string, token: string, organizationId: string) {
  const secrets = new Map<string, string>();
  const receiver = await startReceiver({ secretFor: (p) => secrets.get(p), skipParse: true });
  cleanup(() => receiver.close());
  for (const [i, type] of WEBHOOK_TYPES.entries()) {
    const res = await api(base, "/v1/webhooks/endpoints", {
      token,
      body: { url: `${receiver.url}/w${i}`, format: "raw", events: [type] },
    });
    if (res.status !== 201) throw new Error(`endpoint: ${res.status} ${JSON.stringify(res.body)}`);
    secrets.set(`/w${i}`, res.body.secret);
  }
  const pad = "x".repeat(1_850);
  await t.withWorkerStopped((db) =>
    inTransaction(db.db, (tx) =>
      recordEvents(
        tx,
        systemClock,
        Array.from({ length: WEBHOOKS }, (_, n) => ({
          organizationId,
          type: WEBHOOK_TYPES[n % WEBHOOK_TYPES.length]!,
          data: { n, pad },
        })),
      ),
    ),
  );
  const ids = new Set<string>();
  let seen = 0;
  const rate = await drainRate(
    async () => {
      for (; seen < receiver.receipts.length; seen++) {
        const r = receiver.receipts[seen]!;
        if (!r.standardOk) throw new Error(`a delivery failed its signature check: ${r.path}`);
        ids.add(r.id);
      }
      return ids.size;
    },
    WEBHOOKS,
    20,
  );
  await receiver.close();
  return rate;
}

async function renewals(t: Topology, base: string, token: string, organizationId: string) {
  const polar = new Polar({ accessToken: token, serverURL: base });
  const product = await polar.products.create({
    name: "Bench plan",
    recurringInterval: "month",
    prices: [{ amountType: "fixed", priceAmount: 1000, priceCurrency: "usd" }],
  });
  // Bought through the checkout client endpoints, the customer's saved card included.
  const seller = { token, organizationId, polar, call: (p: string) => api(base, p, { token }) };
  const { subscriptionId } = await subscribe(seller, product.id);
  const orders = async () =>
    (await api(base, "/v1/orders/?limit=1", { token })).body.pagination.total_count as number;
  // Seeded through the primary while no worker runs; the worker wakes them all when it starts.
  await t.withWorkerStopped(async (db) => {
    await seedDueSubscriptions(db, {
      organizationId,
      subscriptionId,
      clones: RENEWALS - 1,
      dueAt: new Date(Date.now() - 60_000),
    });
    await db.rows(sql`analyze`);
  });
  // Every subscription starts with one order; each renewal adds its cycle order.
  return drainRate(async () => Math.max(0, (await orders()) - RENEWALS), RENEWALS, 200);
}

async function measure(t: Topology): Promise<Row> {
  const [base] = t.apis as [string];
  const seller = await createSeller(base, [
    "events:write",
    "meters:read",
    "meters:write",
    "products:write",
    "checkouts:write",
    "orders:read",
    "webhooks:write",
  ]);
  const { token } = seller;
  const meter = await api(base, "/v1/meters/", {
    token,
    body: {
      name: "tokens",
      filter: {
        conjunction: "and",
        clauses: [{ property: "name", operator: "eq", value: "api_call" }],
      },
      aggregation: { func: "sum", property: "tokens" },
    },
  });
  if (meter.status !== 201) throw new Error(`meter: ${meter.status} ${JSON.stringify(meter.body)}`);

  // A warm-up of whole requests: one cut off by a duration would still be worked on, by PGlite
  // for seconds, inside the measured window.
  const warm = await ingest(t, token, { requests: CONNECTIONS });
  const ingested = await ingest(t, token, { seconds: SECONDS });
  log(`${t.name}: ingest ${ingested.eventsPerSecond.toFixed(0)} events/s`);
  const n = warm.events + ingested.events;
  if (n < EVENTS) await ingest(t, token, { requests: Math.ceil((EVENTS - n) / BATCH) });
  // The worker's rollup job, once, so reads see what a steady state would.
  await t.onPrimary((db) => refreshRollups(db.db, { rebuildBudgetMs: Number.POSITIVE_INFINITY }));
  await t.replicaCaughtUp();

  const day = 86_400_000;
  const period = `start_timestamp=${new Date(Date.now() - day).toISOString()}&end_timestamp=${new Date(Date.now() + day).toISOString()}&interval=hour&timezone=UTC`;
  const quantities = `/v1/meters/${meter.body.id}/quantities?${period}`;
  const customer = await readLatency(t.apis, token, `${quantities}&external_customer_id=usr_7`);
  const org = await readLatency(t.apis, token, quantities);
  const eventsRead = Math.max(n, EVENTS);
  log(`${t.name}: reads over ${eventsRead} events done`);

  const webhooksPerSecond = await webhooks(t, base, token, seller.organization.id);
  log(`${t.name}: webhooks ${webhooksPerSecond.toFixed(0)}/s`);
  const renewalsPerSecond = await renewals(t, base, token, seller.organization.id);
  log(`${t.name}: renewals ${renewalsPerSecond.toFixed(0)}/s`);
  return {
    eventsPerSecond: ingested.eventsPerSecond,
    eventsRead,
    ingestErrors: ingested.errors,
    customer,
    org,
    webhooksPerSecond,
    renewalsPerSecond,
  };
}

const STARTERS: Record<TopologyName, () => Promise<Topology>> = {
  pglite: startPglite,
  postgres: () => startPostgres(values.pg!),
  scaled: () => startScaled(values["async-replica"]!),
};

// Ctrl-C, a kill, or an error thrown outside the awaited chain (autocannon throws from a
// callback) still stops what was started.
// Listeners stay registered (`on`, not `once`): execa's exit hook re-raises a signal nobody else
// listens to, which would end the process before the cleanup has run.
let bailing = false;
const bail = (why: string, code: number) => {
  if (bailing) return;
  bailing = true;
  log(`${why}: stopping every process and cluster started`);
  void runCleanups().finally(() => process.exit(code));
};
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => bail(signal, 130));
process.on("uncaughtException", (err) => bail(String(err.stack ?? err), 1));

const ms = (s: { p50: number; p99: number }) => `${s.p50.toFixed(1)} / ${s.p99.toFixed(1)} ms`;
const int = (x: number) => Math.round(x).toLocaleString("en-US");
const rows: string[] = [];
try {
  for (const name of values.only!.split(",") as TopologyName[]) {
    const starter = STARTERS[name];
    if (!starter) throw new Error(`unknown topology ${name}`);
    try {
      log(`${name}: starting`);
      const t = await starter();
      const r = await measure(t);
      rows.push(
        `| ${t.name} | ${t.processes} | ${int(r.eventsPerSecond)}${r.ingestErrors ? ` (${r.ingestErrors} errors)` : ""} | ${int(r.eventsRead)} | ${ms(r.customer)} | ${ms(r.org)} | ${int(r.renewalsPerSecond)} | ${int(r.webhooksPerSecond)} |`,
      );
    } finally {
      await runCleanups();
    }
  }
} finally {
  await runCleanups();
}
const load = execFileSync("uptime", { encoding: "utf8" }).trim();
process.stdout.write(
  `\n${SECONDS} s of ingest (${BATCH}-event batches, ${CONNECTIONS} connections); reads after topping up to ${EVENTS} events (${READS} each); ${RENEWALS} renewals; ${WEBHOOKS} webhooks. ${os.cpus().length} cores; ${load}\n\n` +
    "| topology | processes | events/s ingested | events at read | meter read, one customer p50 / p99 | meter read, organization-wide p50 / p99 | renewals/s | webhooks/s |\n" +
    "|---|---|---|---|---|---|---|---|\n" +
    `${rows.join("\n")}\n`,
);
