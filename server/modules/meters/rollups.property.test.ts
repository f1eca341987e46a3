// Property: for random events (late ones, duplicates, customers linked afterwards), random meter
// filters and aggregations, random periods, intervals and time zones, and a definition changed
// afterwards (read before and after the rebuild), the rollup read answers exactly what the raw read
// answers. The seed is printed; ROLLUP_PROPERTY_SEED replays a run.
import fc from "fast-check";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Db } from "../../../db/client.ts";
import type { MeterAggregation, MeterFilter, MeterFilterClause } from "../../../db/schema/index.ts";
import { createSeller } from "../../../test/helpers/auth.ts";
import { organizationCaller } from "../../../test/helpers/org-scope.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import type { AuthContext } from "../../lib/auth-context.ts";
import { systemClock } from "../../lib/clock.ts";
import { createCustomer } from "../customers/service.ts";
import { ingestEvents } from "../events/service.ts";
import type { EventCreate } from "../events/schemas.ts";
import { rawQuantities, type QuantitiesInput } from "./quantities.ts";
import { meterQuantities, rollupQuantities } from "./rollup-read.ts";
import { refreshRollups } from "./rollups.ts";
import { createMeter, updateMeter } from "./service.ts";

const SEED = Number(process.env.ROLLUP_PROPERTY_SEED ?? Math.floor(Math.random() * 2 ** 31));
const RUNS = 100;
/** Rebuilds read few events per transaction, so once the table has grown they span several. */
const SMALL_CHUNKS = { rebuildChunkEvents: 500 };

let t: TestServer;
let db: Db;
let ctx: AuthContext;
const deps = () => ({ db, read: db, clock: systemClock });

beforeAll(async () => {
  t = await startTestServer({ worker: false });
  db = t.testDb.database.db;
  const seller = await createSeller(t.url, ["meters:write", "events:write", "customers:write"]);
  ctx = organizationCaller(seller, ["meters:write", "events:write", "customers:write"]);
});
afterAll(() => t.stop());

// Five days across Europe's DST change (2026-03-29) and into April (a month boundary).
const WINDOW_START = Date.parse("2026-03-27T00:00:00Z");
const WINDOW_MS = 5 * 86_400_000;
const ZONES = [
  "UTC",
  "Europe/Paris",
  "America/New_York",
  "Asia/Kolkata",
  "Asia/Kathmandu",
  "Australia/Lord_Howe",
  "Pacific/Chatham",
];

/** Instants biased to whole hours, half hours and exact seconds, where edges are decided. */
const instant = fc.oneof(
  fc.integer({ min: 0, max: 5 * 24 }).map((h) => WINDOW_START + h * 3_600_000),
  fc.integer({ min: 0, max: 10 * 24 }).map((h) => WINDOW_START + h * 1_800_000 + 15 * 60_000),
  fc.integer({ min: 0, max: WINDOW_MS }).map((ms) => WINDOW_START + ms),
);

const eventArb = fc.record({
  name: fc.constantFrom("api_call", "login"),
  at: instant,
  customer: fc.constantFrom("c1", "c2", "c3", null),
  externalId: fc.option(fc.constantFrom("d1", "d2", "d3", "d4"), { nil: null }),
  tokens: fc.oneof(
    fc.integer({ min: -50, max: 1000 }),
    fc.double({ min: -10, max: 10, noNaN: true, noDefaultInfinity: true }),
    fc.constant("many"),
    fc.constant(undefined),
  ),
  model: fc.constantFrom("small", "large"),
  region: fc.constantFrom("us", "eu"),
});

type EventArb = typeof eventArb extends fc.Arbitrary<infer T> ? T : never;

const clauseArb: fc.Arbitrary<MeterFilterClause> = fc.oneof(
  fc.record({
    property: fc.constant("name"),
    operator: fc.constantFrom("eq", "ne"),
    value: fc.constantFrom("api_call", "login"),
  }),
  fc.record({
    property: fc.constant("region"),
    operator: fc.constantFrom("eq", "ne"),
    value: fc.constantFrom("us", "eu"),
  }),
  fc.record({
    property: fc.constant("tokens"),
    operator: fc.constantFrom("gt", "lte"),
    value: fc.integer({ min: -10, max: 500 }),
  }),
  fc.record({
    property: fc.constant("metadata.model"),
    operator: fc.constantFrom("like", "not_like"),
    value: fc.constantFrom("sma", "arg"),
  }),
) as fc.Arbitrary<MeterFilterClause>;

const filterArb: fc.Arbitrary<MeterFilter> = fc.record({
  conjunction: fc.constantFrom("and", "or"),
  clauses: fc.array(
    fc.oneof(
      { weight: 3, arbitrary: clauseArb },
      {
        weight: 1,
        arbitrary: fc.record({
          conjunction: fc.constantFrom("and", "or"),
          clauses: fc.array(clauseArb, { maxLength: 2 }),
        }),
      },
    ),
    { maxLength: 3 },
  ),
}) as fc.Arbitrary<MeterFilter>;

const aggregationArb: fc.Arbitrary<MeterAggregation> = fc.oneof(
  fc.constant({ func: "count" as const }),
  fc.record({
    func: fc.constantFrom("sum", "min", "max", "avg"),
    property: fc.constant("tokens"),
  }) as fc.Arbitrary<MeterAggregation>,
  // Distinct text, numbers of either kind and strings mixed, and the event name.
  fc.record({
    func: fc.constant("unique"),
    property: fc.constantFrom("model", "tokens", "name"),
  }) as fc.Arbitrary<MeterAggregation>,
);

const readArb = fc.record({
  a: instant,
  b: instant,
  interval: fc.constantFrom("hour", "day", "week", "month", "year"),
  timezone: fc.constantFrom(...ZONES),
  customers: fc.constantFrom("all", "by id", "by external id"),
});

let run = 0;

it(`rollup reads equal raw reads (seed ${SEED})`, { timeout: 300_000 }, async () => {
  process.stdout.write(`rollup property seed ${SEED} (ROLLUP_PROPERTY_SEED replays it)\n`);
  await fc.assert(
    fc.asyncProperty(
      fc.array(eventArb, { maxLength: 30 }),
      fc.array(eventArb, { maxLength: 10 }),
      filterArb,
      aggregationArb,
      fc.array(readArb, { minLength: 1, maxLength: 4 }),
      fc.boolean(),
      fc.option(fc.record({ filter: filterArb, aggregation: aggregationArb, tick: fc.boolean() }), {
        nil: null,
      }),
      async (early, late, filterArg, aggregationArg, reads, tickAfterLate, change) => {
        run++;
        // Plain objects: fast-check builds records without a prototype.
        const filter = JSON.parse(JSON.stringify(filterArg)) as MeterFilter;
        const aggregation = JSON.parse(JSON.stringify(aggregationArg)) as MeterAggregation;
        // Each run has its own customers and dedup keys; other runs' events stay in the table.
        const toEvent = (e: EventArb): EventCreate =>
          ({
            name: e.name,
            timestamp: new Date(e.at).toISOString(),
            ...(e.customer ? { external_customer_id: `${e.customer}_${run}` } : {}),
            ...(e.externalId ? { external_id: `${e.externalId}_${run}` } : {}),
            metadata: {
              model: e.model,
              region: e.region,
              ...(e.tokens === undefined ? {} : { tokens: e.tokens }),
            },
          }) as EventCreate;
        const meter = await createMeter(deps(), ctx, {
          name: `property ${run}`,
          unit: "scalar",
          filter,
          aggregation,
        });
        if (early.length > 0) await ingestEvents(deps(), ctx, early.map(toEvent));
        await refreshRollups(db, SMALL_CHUNKS);
        // A customer created after its events were rolled up, then late events and duplicates.
        const c1 = await createCustomer(deps(), ctx, {
          email: `c1_${run}@example.com`,
          external_id: `c1_${run}`,
        } as Parameters<typeof createCustomer>[2]);
        if (late.length > 0) await ingestEvents(deps(), ctx, late.map(toEvent));
        if (tickAfterLate) await refreshRollups(db, SMALL_CHUNKS);
        const readAll = async (
          filter: MeterFilter,
          aggregation: MeterAggregation,
          built: boolean,
        ): Promise<void> => {
          for (const r of reads) await readOne(r, filter, aggregation, built);
        };
        const readOne = async (
          r: (typeof reads)[number],
          filter: MeterFilter,
          aggregation: MeterAggregation,
          built: boolean,
        ): Promise<void> => {
          const q: QuantitiesInput = {
            meterId: meter.id,
            organizationId: ctx.organizationIds[0]!,
            filter,
            aggregation,
            start: new Date(Math.min(r.a, r.b)),
            end: new Date(Math.max(r.a, r.b)),
            interval: r.interval,
            timezone: r.timezone,
            metadata: {},
            ...(r.customers === "by id" ? { customerIds: [c1.id] } : {}),
            ...(r.customers === "by external id"
              ? { externalCustomerIds: [`c2_${run}`, `c3_${run}`] }
              : {}),
          };
          const viaRollups = await rollupQuantities(db, q);
          const raw = await rawQuantities(db, q);
          const wholeHour =
            Math.ceil(q.start.getTime() / 3_600_000) < Math.floor(q.end.getTime() / 3_600_000);
          // Declined only when the period holds no whole hour, or the rollups are of another definition.
          expect(viaRollups === undefined).toBe(!wholeHour || !built);
          if (viaRollups !== undefined) expect(viaRollups).toEqual(raw);
          expect(await meterQuantities(db, q)).toEqual(raw);
        };
        await readAll(filter, aggregation, true);
        if (!change) return;
        // A changed definition: reads are raw until a tick rebuilds the meter, then from rollups.
        const next = {
          filter: JSON.parse(JSON.stringify(change.filter)) as MeterFilter,
          aggregation: JSON.parse(JSON.stringify(change.aggregation)) as MeterAggregation,
        };
        await updateMeter(deps(), ctx, meter.id, next);
        if (change.tick) await refreshRollups(db, SMALL_CHUNKS);
        const unchanged = JSON.stringify(next) === JSON.stringify({ filter, aggregation });
        await readAll(next.filter, next.aggregation, change.tick || unchanged);
      },
    ),
    { seed: SEED, numRuns: RUNS, endOnFailure: true },
  );
});
