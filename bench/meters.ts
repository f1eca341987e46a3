// Meter reads over a large events table (generated in SQL with generate_series, not over HTTP):
// 1. one customer, one month, daily buckets, for each aggregation: till's meter read (the service
//    call the route makes: the quantities statement, which also checks in its own snapshot that the
//    meter definition it already read is unchanged) and the same read over HTTP,
//    beside a hand-written raw SQL aggregate for that customer and month. Goal: p99 ≤ 2× raw and
//    ≤ 10 ms, with EXPLAIN showing an index scan (no sequential scan of events).
// 2. organization-wide: a meter whose filter is name=api_call and metadata region=us, sum of tokens,
//    daily buckets, February: till's read (hourly rollups for whole hours, raw events for the rest)
//    beside the raw path's statement run directly. Goals: p99 ≤ 50 ms at 10 M events, and the
//    10 M / 1 M ratio of till's read ≤ 1.5× (cost independent of the event count).
// Every till answer is compared with the raw path's answer. Before reading, the meters' rollups are
// built by one rollup tick (timed), and the disk used by events and rollups is printed.
//
//   node bench/meters.ts [--events 1000000,10000000] [--iterations 1000] [--only postgres|pglite]
//                        [--raw-iterations 20] [--aggregations count,sum,max,min,avg,unique] [--pg postgres://postgres@127.0.0.1:5432/postgres]
//                        [--pglite-events 200000] [--keep] [--rebuild-chunk-events 50000]
//                        [--reuse till_bench_meters_xxxxxxxx]
// --keep keeps the PostgreSQL database; --reuse reads a kept one again (its events and meters as
// generated, migrated to the current schema, rollups brought up to date by one tick), so a large
// run's reads can be repeated without generating it again. Reads over HTTP need the seller's token
// and are left out then.
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { isDeepStrictEqual } from "node:util";
import { sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { Database } from "../db/client.ts";
import type { MeterAggregation } from "../db/schema/index.ts";
import { loadConfig } from "../server/config.ts";
import type { AuthContext } from "../server/lib/auth-context.ts";
import { systemClock } from "../server/lib/clock.ts";
import { start } from "../server/main.ts";
import {
  quantitiesSql,
  rawQuantities,
  type QuantitiesInput,
} from "../server/modules/meters/quantities.ts";
import { rollupSql } from "../server/modules/meters/rollup-read.ts";
import { createEventPartition } from "../server/modules/events/partition-repository.ts";
import { refreshRollups } from "../server/modules/meters/rollups.ts";
import * as meters from "../server/modules/meters/service.ts";
import { createDatabase, dropDatabase } from "../test/helpers/db.ts";
import { databaseUrl } from "../test/helpers/template.ts";
import { createSeller } from "../test/helpers/auth.ts";

const { values } = parseArgs({
  options: {
    events: { type: "string", default: "1000000" },
    "pglite-events": { type: "string", default: "200000" },
    iterations: { type: "string", default: "1000" },
    "raw-iterations": { type: "string", default: "20" },
    aggregations: { type: "string", default: "count,sum,max,min,avg,unique" },
    only: { type: "string" },
    pg: { type: "string", default: "postgres://postgres@127.0.0.1:5432/postgres" },
    // Keeps the PostgreSQL database (its name is printed) to examine plans afterwards.
    keep: { type: "boolean", default: false },
    // Events per rebuild transaction (the job's default when unset); a huge value builds each
    // meter in one statement, which is faster for a bulk-loaded table nobody else writes to.
    "rebuild-chunk-events": { type: "string" },
    reuse: { type: "string" },
  },
});

const CUSTOMERS = 1000;
const DAYS = 90;
const FEB = { start: "2026-02-01T00:00:00Z", end: "2026-02-28T23:59:59Z" };
const AGGREGATIONS: MeterAggregation[] = values
  .aggregations!.split(",")
  .map((func) =>
    func === "count"
      ? { func: "count" }
      : func === "unique"
        ? { func: "unique", property: "model" }
        : { func: func as "sum" | "max" | "min" | "avg", property: "tokens" },
  );
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
  // Bulk load: the events indexes are dropped and built again after the insert (much faster than
  // maintaining them row by row at 10 M events); the table ends up as ingest would leave it.
  // The 90 days get their monthly partitions first, as the partition job would have made them
  // while the events came in; the primary key stays (it backs a constraint).
  for (let m = 0; m < 4; m++)
    await createEventPartition(database.db, new Date(Date.UTC(2026, m, 1)));
  const indexes = await database.rows<{ name: string; def: string }>(sql`
    select indexname as name, indexdef as def from pg_indexes
    where tablename = 'events'
      and not exists (select 1 from pg_constraint c where c.conname = indexname)`);
  for (const i of indexes) await database.rows(sql.raw(`drop index "${i.name}"`));
  await database.rows(sql`
    insert into customers (organization_id, email, external_id)
    select ${organizationId}, 'c' || g || '@example.com', 'usr_' || g from generate_series(1, ${CUSTOMERS}) g`);
  // A multiplicative hash spreads each customer's events over all 90 days (a multiplier m with
  // m * CUSTOMERS close to a multiple of the 90 days would crowd one customer's events into a week).
  await database.rows(sql`
    insert into events (organization_id, name, source, timestamp, customer_id, external_customer_id, metadata)
    select ${organizationId}, case when g % 5 = 0 then 'login' else 'api_call' end, 'user',
           timestamptz '2026-01-01 00:00:00+00' + ((g::bigint * 2654435761) % (${DAYS} * 86400)) * interval '1 second',
           c.id, c.external_id,
           jsonb_build_object('tokens', (g::bigint * 7919) % 1000 + 1, 'model', (array['small', 'medium', 'large'])[g % 3 + 1],
                              'region', case when g % 4 = 0 then 'us' else 'eu' end)
    from generate_series(1, ${count}) g
    join customers c on c.organization_id = ${organizationId} and c.external_id = 'usr_' || (g % ${CUSTOMERS} + 1)`);
  // pg_indexes shows a partitioned table's index as `ON ONLY events`, which would build it on the
  // parent alone: rebuilt here on every partition.
  for (const i of indexes) await database.rows(sql.raw(i.def.replace(" ON ONLY ", " ON ")));
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

/** A kept run's organization and customer usr_42. */
async function generated(
  database: Database,
): Promise<{ organizationId: string; customerId: string }> {
  const [c] = await database.rows<{ id: string; organization_id: string }>(
    sql`select id, organization_id from customers where external_id = 'usr_42'`,
  );
  if (!c) throw new Error("--reuse: this database holds no generated run");
  return { organizationId: c.organization_id, customerId: c.id };
}

/** The meter of that name, created unless a kept run has it already. */
async function meterNamed(
  database: Database,
  deps: Parameters<typeof meters.createMeter>[0],
  ctx: AuthContext,
  input: Parameters<typeof meters.createMeter>[2],
): ReturnType<typeof meters.createMeter> {
  const [found] = await database.rows<{ id: string }>(
    sql`select id from meters where name = ${input.name} and organization_id = ${ctx.organizationIds[0]!}`,
  );
  return found ? meters.getMeter(deps, ctx, found.id) : meters.createMeter(deps, ctx, input);
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

interface RunResult {
  lines: string[];
  org: Stats;
  customer: Stats[];
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

async function runOn(
  kind: "postgres" | "pglite",
  count: number,
  iterations: number,
  rawIterations: number,
): Promise<RunResult> {
  let env: Record<string, string>;
  let drop: (() => Promise<void>) | null = null;
  const dir = mkdtempSync(path.join(os.tmpdir(), "till-bench-meters-"));
  const reuse = kind === "postgres" ? values.reuse : undefined;
  if (kind === "postgres") {
    const name = reuse ?? `till_bench_meters_${randomBytes(4).toString("hex")}`;
    if (!reuse) await createDatabase(values.pg!, name);
    drop =
      values.keep || reuse
        ? async () => void process.stdout.write(`kept database ${name}\n`)
        : () => dropDatabase(values.pg!, name);
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
      // The bulk load of millions of events is one statement.
      DATABASE_STATEMENT_TIMEOUT_MS: "0",
      AUTH_REQUIRE_EMAIL_VERIFICATION: "false",
    },
    cwd: dir,
  });
  const server = await start(config, { worker: false });
  const lines: string[] = [];
  const customerStats: Stats[] = [];
  let orgStats: Stats;
  try {
    const seller = reuse
      ? null
      : await createSeller(server.url, ["meters:write", "events:write", "customers:write"]);
    const { organizationId, customerId } = seller
      ? {
          organizationId: seller.organization.id,
          customerId: await generate(server.database, seller.organization.id, count),
        }
      : await generated(server.database);
    const { db, read } = server.database;
    const deps = { db, read, clock: systemClock };
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
    const usCalls = {
      conjunction: "and" as const,
      clauses: [
        { property: "name", operator: "eq" as const, value: "api_call" },
        { property: "metadata.region", operator: "eq" as const, value: "us" },
      ],
    };
    const month = {
      start_timestamp: FEB.start,
      end_timestamp: FEB.end,
      interval: "day" as const,
      timezone: "UTC",
    };
    const perAggregation = [];
    for (const aggregation of AGGREGATIONS) {
      perAggregation.push({
        aggregation,
        meter: await meterNamed(server.database, deps, ctx, {
          name: `bench ${aggregation.func}`,
          unit: "scalar",
          filter: apiCalls,
          aggregation,
        }),
      });
    }
    const orgMeter = await meterNamed(server.database, deps, ctx, {
      name: "bench org-wide",
      unit: "scalar",
      filter: usCalls,
      aggregation: { func: "sum", property: "tokens" },
    });
    // The distinct count organization-wide, from the hours' kept values.
    const orgUniqueMeter = AGGREGATIONS.some((a) => a.func === "unique")
      ? await meterNamed(server.database, deps, ctx, {
          name: "bench org-wide unique",
          unit: "scalar",
          filter: usCalls,
          aggregation: { func: "unique", property: "model" },
        })
      : null;
    const b0 = performance.now();
    const built = await refreshRollups(server.database.db, {
      rebuildBudgetMs: Number.POSITIVE_INFINITY,
      ...(values["rebuild-chunk-events"]
        ? { rebuildChunkEvents: Number(values["rebuild-chunk-events"]) }
        : {}),
    });
    const buildSeconds = (performance.now() - b0) / 1000;
    // As autovacuum leaves a table after a bulk of inserts: statistics, and the visibility map that
    // lets a customer's read be an index-only scan.
    await server.database.rows(sql`vacuum analyze meter_hourly`);
    await server.database.rows(sql`vacuum analyze meter_customer_hourly`);
    // The build wrote gigabytes at once; flushed now, so the timed reads do not share the disk
    // with the checkpointer writing them out (an hourly tick of a live system writes megabytes).
    if (kind === "postgres") await server.database.rows(sql`checkpoint`);
    const [disk] = await server.database.rows<Record<string, string>>(sql`
      select (select sum(pg_total_relation_size(relid)) from pg_partition_tree('events')) as events, pg_total_relation_size('meter_hourly') as hourly,
             pg_total_relation_size('meter_customer_hourly') as customer_hourly,
             (select count(*) from meter_customer_hourly) as customer_rows, (select count(*) from meter_hourly) as hourly_rows`);
    lines.push(
      `\n${kind}: ${count} events. Rollups of ${built.advanced} meters built in ${buildSeconds.toFixed(1)} s (one tick). ` +
        `Disk: events ${mb(Number(disk!.events))} (table and indexes), meter_hourly ${mb(Number(disk!.hourly))} (${disk!.hourly_rows} rows), ` +
        `meter_customer_hourly ${mb(Number(disk!.customer_hourly))} (${disk!.customer_rows} rows)`,
    );

    lines.push(
      `One customer (usr_42), February, daily buckets; ${iterations} sequential reads each`,
    );
    lines.push(
      `${"aggregation".padEnd(12)}${"hand p99".padStart(10)}${"raw p50".padStart(10)}${"raw p99".padStart(10)}${"till p50".padStart(10)}${"till p99".padStart(10)}${"http p50".padStart(10)}${"http p99".padStart(10)}  till/raw p99  answer`,
    );
    for (const { aggregation, meter } of perAggregation) {
      const query = {
        ...month,
        customer_id: [customerId],
        external_customer_id: undefined,
        customer_aggregation_function: undefined,
      };
      const input: QuantitiesInput = {
        organizationId,
        filter: apiCalls,
        aggregation,
        start: new Date(FEB.start),
        end: new Date(FEB.end),
        interval: "day",
        timezone: "UTC",
        customerIds: [customerId],
        metadata: {},
      };
      const same = dialect.sqlToQuery(quantitiesSql(input));
      const url = `${server.url}/v1/meters/${meter.id}/quantities?start_timestamp=${FEB.start}&end_timestamp=${FEB.end}&interval=day&timezone=UTC&customer_id=${customerId}`;
      const answer = isDeepStrictEqual(
        await meters.getQuantities(deps, ctx, meter.id, query, {}),
        await rawQuantities(server.database.db, input),
      )
        ? "same as raw"
        : "!! DIFFERS from raw";
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
          if (!seller) return;
          const res = await fetch(url, { headers: { authorization: `Bearer ${seller.token}` } });
          if (res.status !== 200)
            throw new Error(`quantities answered ${res.status}: ${await res.text()}`);
          await res.arrayBuffer();
        },
      ]);
      customerStats.push(till!);
      lines.push(
        `${aggregation.func.padEnd(12)}${ms(hand!.p99)}${ms(direct!.p50)}${ms(direct!.p99)}${ms(till!.p50)}${ms(till!.p99)}${seller ? ms(http!.p50) + ms(http!.p99) : `${"-".padStart(10)}${"-".padStart(10)}`}` +
          `  ${(till!.p99 / direct!.p99).toFixed(2).padStart(10)}x  ${answer}`,
      );
    }
    lines.push(
      "till = the meter read the route makes (rollups for whole hours + raw edges, definition checked in the same statement);",
    );
    lines.push(
      "raw = the raw path's statement run directly; hand = a minimal hand-written aggregate; http = GET /v1/meters/{id}/quantities end to end",
    );
    lines.push("goal: till p99 <= 10 ms");

    const orgWide = async (meterId: string, aggregation: MeterAggregation, label: string) => {
      const orgQuery = {
        ...month,
        customer_id: undefined,
        external_customer_id: undefined,
        customer_aggregation_function: undefined,
      };
      const orgInput: QuantitiesInput = {
        meterId,
        organizationId,
        filter: usCalls,
        aggregation,
        start: new Date(FEB.start),
        end: new Date(FEB.end),
        interval: "day",
        timezone: "UTC",
        metadata: {},
      };
      const direct = dialect.sqlToQuery(quantitiesSql(orgInput));
      const tillAnswer = await meters.getQuantities(deps, ctx, meterId, orgQuery, {});
      const rawAnswer = await rawQuantities(server.database.db, orgInput);
      const [tillOrg] = await timeInterleaved(iterations, [
        () => meters.getQuantities(deps, ctx, meterId, orgQuery, {}),
      ]);
      const [directStats] = await timeInterleaved(rawIterations, [
        () => raw(server.database, direct.sql, direct.params),
      ]);
      const [state] = await server.database.rows<{ through: string }>(
        sql`select through from meter_rollup_state where meter_id = ${meterId}`,
      );
      const hlo = new Date(FEB.start);
      const hhi = new Date(Math.floor(Date.parse(FEB.end) / 3_600_000) * 3_600_000);
      const plan = dialect.sqlToQuery(
        rollupSql(orgInput, meterId, hlo, hhi, Number(state!.through)),
      );
      const explained = (
        (await raw(server.database, `explain analyze ${plan.sql}`, plan.params)) as Record<
          string,
          string
        >[]
      )
        .map((r) => Object.values(r)[0])
        .join("\n");
      lines.push(
        `\n${kind}: ${count} events. Organization-wide ${label}, meter filter name=api_call and region=us, February, daily buckets`,
      );
      lines.push(
        `raw path statement run directly  p50 ${ms(directStats!.p50)} p99 ${ms(directStats!.p99)}  (${rawIterations} reads)`,
      );
      lines.push(
        `till meter read (rollups)        p50 ${ms(tillOrg!.p50)} p99 ${ms(tillOrg!.p99)}  (${iterations} reads; goal p99 <= 50 ms)  ` +
          `answer ${isDeepStrictEqual(tillAnswer, rawAnswer) ? "same as raw" : "!! DIFFERS from raw"} (total ${tillAnswer.total})`,
      );
      lines.push(
        `rollups / raw                    p50 ${(tillOrg!.p50 / directStats!.p50).toFixed(3)}x p99 ${(tillOrg!.p99 / directStats!.p99).toFixed(3)}x`,
      );
      lines.push(
        // Empty months' partitions may plan a sequential scan that never runs.
        /^.*Seq Scan on events(?!.*never executed).*$/m.test(explained)
          ? `!! till's organization-wide statement plans a sequential scan of events:\n${explained}`
          : "-> till's organization-wide statement: no sequential scan of events",
      );
      return tillOrg!;
    };
    orgStats = await orgWide(orgMeter.id, { func: "sum", property: "tokens" }, "sum of tokens");
    if (orgUniqueMeter)
      await orgWide(orgUniqueMeter.id, { func: "unique", property: "model" }, "distinct models");
  } finally {
    await server.stop();
    await drop?.();
  }
  return { lines, org: orgStats!, customer: customerStats };
}

const iterations = Number(values.iterations);
const rawIterations = Number(values["raw-iterations"]);
const kinds = (values.only ? [values.only] : ["postgres", "pglite"]) as ("postgres" | "pglite")[];
const out: string[] = [];
for (const kind of kinds) {
  const counts =
    kind === "pglite"
      ? [Number(values["pglite-events"])]
      : values.events!.split(",").map((n) => Number(n));
  if (kind === "pglite")
    process.stdout.write(
      `pglite runs with ${counts[0]} events (in-process WASM PostgreSQL; pass --pglite-events to change)\n`,
    );
  const results: { count: number; result: RunResult }[] = [];
  for (const count of counts) {
    const result = await runOn(kind, count, iterations, rawIterations);
    process.stdout.write(`${result.lines.join("\n")}\n`);
    out.push(...result.lines);
    results.push({ count, result });
  }
  if (results.length > 1) {
    const small = results[0]!;
    const large = results[results.length - 1]!;
    const line = (what: string, a: Stats, b: Stats) =>
      `${what.padEnd(26)} p50 ${(b.p50 / a.p50).toFixed(2)}x  p99 ${(b.p99 / a.p99).toFixed(2)}x`;
    const summary = [
      `\n${kind}: till's reads at ${large.count} events / at ${small.count} events (goal <= 1.5x)`,
      line("organization-wide", small.result.org, large.result.org),
      ...AGGREGATIONS.map((a, i) =>
        line(`one customer, ${a.func}`, small.result.customer[i]!, large.result.customer[i]!),
      ),
    ];
    out.push(...summary);
  }
}
process.stdout.write(`\n=== summary ===${out.join("\n")}\n`);
