// Meter reads over a large events table (generated in SQL with generate_series, not over HTTP):
// 1. one customer, one month, daily buckets, for each aggregation: till's meter read (the service
//    call the route makes: the quantities statement, which also checks in its own snapshot that the
//    meter definition it already read is unchanged) and the same read over HTTP,
//    beside a hand-written raw SQL aggregate for that customer and month. Goal: p99 ≤ 2× raw and
//    ≤ 10 ms, with EXPLAIN showing an index scan (no sequential scan of events).
// 2. organization-wide, a metadata[region]=us filter, daily buckets: till's read beside the very
//    statement it generates, run directly. Goal: ≤ 1.5×.
//
//   node bench/meters.ts [--events 1000000] [--iterations 1000] [--only postgres|pglite]
//                        [--pg postgres://postgres@127.0.0.1:5432/postgres] [--pglite-events 200000]
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { Database } from "../db/client.ts";
import type { MeterAggregation } from "../db/schema/index.ts";
import { loadConfig } from "../server/config.ts";
import type { AuthContext } from "../server/lib/auth-context.ts";
import { systemClock } from "../server/lib/clock.ts";
import { start } from "../server/main.ts";
import { quantitiesSql } from "../server/modules/meters/quantities.ts";
import * as meters from "../server/modules/meters/service.ts";
import { createDatabase, dropDatabase } from "../test/helpers/db.ts";
import { databaseUrl } from "../test/helpers/template.ts";
import { createSeller } from "../test/helpers/auth.ts";

const { values } = parseArgs({
  options: {
    events: { type: "string", default: "1000000" },
    "pglite-events": { type: "string", default: "200000" },
    iterations: { type: "string", default: "1000" },
    only: { type: "string" },
    pg: { type: "string", default: "postgres://postgres@127.0.0.1:5432/postgres" },
  },
});

const CUSTOMERS = 1000;
const DAYS = 90;
const FEB = { start: "2026-02-01T00:00:00Z", end: "2026-02-28T23:59:59Z" };
const AGGREGATIONS: MeterAggregation[] = [
  { func: "count" },
  { func: "sum", property: "tokens" },
  { func: "max", property: "tokens" },
  { func: "min", property: "tokens" },
  { func: "avg", property: "tokens" },
  { func: "unique", property: "model" },
];
const dialect = new PgDialect({ casing: "snake_case" });

async function raw(database: Database, text: string, params: unknown[]): Promise<unknown[]> {
  if (database.client) return database.client.unsafe(text, params as never[]);
  return (await database.pglite!.query(text, params)).rows;
}

async function generate(
  database: Database,
  organizationId: string,
  count: number,
): Promise<string> {
  const t0 = performance.now();
  await database.rows(sql`
    insert into customers (organization_id, email, external_id)
    select ${organizationId}, 'c' || g || '@example.com', 'usr_' || g from generate_series(1, ${CUSTOMERS}) g`);
  await database.rows(sql`
    insert into events (organization_id, name, source, timestamp, customer_id, external_customer_id, metadata)
    select ${organizationId}, case when g % 5 = 0 then 'login' else 'api_call' end, 'user',
           timestamptz '2026-01-01 00:00:00+00' + ((g::bigint * 7777) % (${DAYS} * 86400)) * interval '1 second',
           c.id, c.external_id,
           jsonb_build_object('tokens', (g::bigint * 7919) % 1000 + 1, 'model', (array['small', 'medium', 'large'])[g % 3 + 1],
                              'region', case when g % 4 = 0 then 'us' else 'eu' end)
    from generate_series(1, ${count}) g
    join customers c on c.organization_id = ${organizationId} and c.external_id = 'usr_' || (g % ${CUSTOMERS} + 1)`);
  await database.rows(sql`analyze events`);
  await database.rows(sql`analyze customers`);
  const [c] = await database.rows<{ id: string }>(
    sql`select id from customers where external_id = 'usr_42'`,
  );
  process.stdout.write(
    `generated ${count} events for ${CUSTOMERS} customers over ${DAYS} days in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
  );
  return c!.id;
}

interface Stats {
  p50: number;
  p99: number;
}

/** Runs the readers in turn, iteration by iteration, so noise from a shared machine hits each alike. */
async function timeInterleaved(
  iterations: number,
  fns: (() => Promise<unknown>)[],
): Promise<Stats[]> {
  for (let i = 0; i < Math.min(20, iterations); i++) for (const fn of fns) await fn();
  const xs: number[][] = fns.map(() => []);
  for (let i = 0; i < iterations; i++) {
    for (const [k, fn] of fns.entries()) {
      const t = performance.now();
      await fn();
      xs[k]!.push(performance.now() - t);
    }
  }
  return xs.map((x) => {
    x.sort((a, b) => a - b);
    return {
      p50: x[Math.floor(x.length * 0.5)]!,
      p99: x[Math.min(x.length - 1, Math.floor(x.length * 0.99))]!,
    };
  });
}

const ms = (n: number) => `${n.toFixed(2)} ms`.padStart(10);

/** The query a person would write by hand for one customer's month, per aggregation. */
function handWritten(a: MeterAggregation): string {
  const value =
    a.func === "count"
      ? "count(*)"
      : a.func === "unique"
        ? `count(distinct metadata->>'${a.property}')`
        : `${a.func}((metadata->>'${a.property}')::numeric)`;
  return `select date_trunc('day', timestamp, 'UTC') as day, ${value} as q from events
          where organization_id = $1 and customer_id = $2 and name = 'api_call' and timestamp >= $3 and timestamp <= $4
          group by 1 order by 1`;
}

async function runOn(
  kind: "postgres" | "pglite",
  count: number,
  iterations: number,
): Promise<string[]> {
  let env: Record<string, string>;
  let drop: (() => Promise<void>) | null = null;
  const dir = mkdtempSync(path.join(os.tmpdir(), "till-bench-meters-"));
  if (kind === "postgres") {
    const name = `till_bench_meters_${randomBytes(4).toString("hex")}`;
    await createDatabase(values.pg!, name);
    drop = () => dropDatabase(values.pg!, name);
    env = { DATABASE_URL: databaseUrl(values.pg!, name) };
  } else {
    env = { TILL_DATA_DIR: dir };
  }
  const port = String(40000 + Math.floor(Math.random() * 20000));
  const config = loadConfig({
    command: "serve",
    env: {
      ...env,
      PORT: port,
      HOST: "127.0.0.1",
      BASE_URL: `http://127.0.0.1:${port}`,
      AUTH_SECRET: "b".repeat(40),
      TILL_PAYMENTS: "none",
      LOG_LEVEL: "silent",
      AUTH_REQUIRE_EMAIL_VERIFICATION: "false",
    },
    cwd: dir,
  });
  const server = await start(config, { worker: false });
  const lines: string[] = [];
  try {
    const seller = await createSeller(server.url, [
      "meters:write",
      "events:write",
      "customers:write",
    ]);
    const organizationId = seller.organization.id;
    const customerId = await generate(server.database, organizationId, count);
    const deps = { db: server.database.db, clock: systemClock };
    const ctx: AuthContext = {
      kind: "organization",
      userId: null,
      organizationIds: [organizationId],
      scopes: new Set(["meters:read"]),
      tokenId: null,
    };
    const apiCalls = {
      conjunction: "and" as const,
      clauses: [{ property: "name", operator: "eq" as const, value: "api_call" }],
    };
    const month = {
      start_timestamp: FEB.start,
      end_timestamp: FEB.end,
      interval: "day" as const,
      timezone: "UTC",
    };

    lines.push(
      `\n${kind}: ${count} events. One customer (usr_42), February, daily buckets; ${iterations} sequential reads each`,
    );
    lines.push(
      `${"aggregation".padEnd(12)}${"hand p99".padStart(10)}${"same p50".padStart(10)}${"same p99".padStart(10)}${"till p50".padStart(10)}${"till p99".padStart(10)}${"http p50".padStart(10)}${"http p99".padStart(10)}  till/same p99  till/hand p99`,
    );
    let explained = false;
    for (const aggregation of AGGREGATIONS) {
      const meter = await meters.createMeter(deps, ctx, {
        name: `bench ${aggregation.func}`,
        unit: "scalar",
        filter: apiCalls,
        aggregation,
      });
      const query = {
        ...month,
        customer_id: [customerId],
        external_customer_id: undefined,
        customer_aggregation_function: undefined,
      };
      const same = dialect.sqlToQuery(
        quantitiesSql({
          organizationId,
          filter: apiCalls,
          aggregation,
          start: new Date(FEB.start),
          end: new Date(FEB.end),
          interval: "day",
          timezone: "UTC",
          customerIds: [customerId],
          metadata: {},
        }),
      );
      const url = `${server.url}/v1/meters/${meter.id}/quantities?start_timestamp=${FEB.start}&end_timestamp=${FEB.end}&interval=day&timezone=UTC&customer_id=${customerId}`;
      const [hand, direct, till, http] = await timeInterleaved(iterations, [
        () =>
          raw(server.database, handWritten(aggregation), [
            organizationId,
            customerId,
            FEB.start,
            FEB.end,
          ]),
        () => raw(server.database, same.sql, same.params),
        () => meters.getQuantities(deps, ctx, meter.id, query, {}),
        async () => {
          const res = await fetch(url, { headers: { authorization: `Bearer ${seller.token}` } });
          if (res.status !== 200)
            throw new Error(`quantities answered ${res.status}: ${await res.text()}`);
          await res.arrayBuffer();
        },
      ]);
      lines.push(
        `${aggregation.func.padEnd(12)}${ms(hand!.p99)}${ms(direct!.p50)}${ms(direct!.p99)}${ms(till!.p50)}${ms(till!.p99)}${ms(http!.p50)}${ms(http!.p99)}` +
          `  ${(till!.p99 / direct!.p99).toFixed(2).padStart(12)}x  ${(till!.p99 / hand!.p99).toFixed(2).padStart(12)}x`,
      );
      if (!explained) {
        explained = true;
        const plan = (await raw(server.database, `explain ${same.sql}`, same.params)) as Record<
          string,
          string
        >[];
        const text = plan.map((r) => Object.values(r)[0]).join("\n");
        lines.push(
          `EXPLAIN (till's statement for one customer):\n${text
            .split("\n")
            .map((l) => `    ${l}`)
            .join("\n")}`,
        );
        lines.push(
          /Seq Scan on events/.test(text)
            ? "!! sequential scan of events"
            : "-> no sequential scan of events",
        );
      }
    }
    lines.push(
      "till = the meter read the route makes (statement + check of the known meter definition); same = that statement run directly;",
    );
    lines.push(
      "hand = a minimal hand-written aggregate; http = GET /v1/meters/{id}/quantities end to end (token auth included)",
    );
    lines.push("goal: till p99 <= 2x the raw SQL (same) and <= 10 ms");

    const sum = await meters.createMeter(deps, ctx, {
      name: "bench org-wide",
      unit: "scalar",
      filter: apiCalls,
      aggregation: { func: "sum", property: "tokens" },
    });
    const orgQuery = {
      ...month,
      customer_id: undefined,
      external_customer_id: undefined,
      customer_aggregation_function: undefined,
    };
    const direct = dialect.sqlToQuery(
      quantitiesSql({
        organizationId,
        filter: apiCalls,
        aggregation: { func: "sum", property: "tokens" },
        start: new Date(FEB.start),
        end: new Date(FEB.end),
        interval: "day",
        timezone: "UTC",
        metadata: { region: ["us"] },
      }),
    );
    const orgIterations = Math.max(10, Math.floor(iterations / 10));
    const [directStats, tillOrg] = await timeInterleaved(orgIterations, [
      () => raw(server.database, direct.sql, direct.params),
      () => meters.getQuantities(deps, ctx, sum.id, orgQuery, { region: ["us"] }),
    ]);
    lines.push(
      `\n${kind}: organization-wide sum of tokens, metadata[region]=us, February, daily buckets; ${orgIterations} reads`,
    );
    lines.push(`same SQL run directly p50 ${ms(directStats!.p50)} p99 ${ms(directStats!.p99)}`);
    lines.push(
      `till meter read       p50 ${ms(tillOrg!.p50)} p99 ${ms(tillOrg!.p99)}   ratio p50 ${(tillOrg!.p50 / directStats!.p50).toFixed(2)}x p99 ${(tillOrg!.p99 / directStats!.p99).toFixed(2)}x (goal <= 1.5x)`,
    );
  } finally {
    await server.stop();
    await drop?.();
  }
  return lines;
}

const iterations = Number(values.iterations);
const kinds = (values.only ? [values.only] : ["postgres", "pglite"]) as ("postgres" | "pglite")[];
const out: string[] = [];
for (const kind of kinds) {
  const count = kind === "pglite" ? Number(values["pglite-events"]) : Number(values.events);
  if (kind === "pglite" && count < Number(values.events))
    process.stdout.write(
      `pglite runs with ${count} events (in-process WASM PostgreSQL; pass --pglite-events to change)\n`,
    );
  out.push(...(await runOn(kind, count, iterations)));
}
process.stdout.write(`${out.join("\n")}\n`);
