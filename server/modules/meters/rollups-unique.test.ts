// Rollups of `unique` meters: each hour keeps its distinct values, a read unions them with the raw
// parts and counts each value once per bucket and once in the total; an hour with more values than
// the rollups keep stores none, and a read touching it answers from raw events.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows, type Db } from "../../../db/client.ts";
import type { MeterFilter } from "../../../db/schema/index.ts";
import { createSeller } from "../../../test/helpers/auth.ts";
import { organizationCaller } from "../../../test/helpers/org-scope.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import type { AuthContext } from "../../lib/auth-context.ts";
import { systemClock } from "../../lib/clock.ts";
import { ingestEvents } from "../events/service.ts";
import { rawQuantities, type QuantitiesInput } from "./quantities.ts";
import { meterQuantities, rollupQuantities } from "./rollup-read.ts";
import { DISTINCT_VALUES_KEPT, refreshRollups } from "./rollups.ts";
import { createMeter } from "./service.ts";

let t: TestServer;
let db: Db;
let ctx: AuthContext;
const deps = () => ({ db, read: db, clock: systemClock });

beforeAll(async () => {
  t = await startTestServer({ worker: false });
  db = t.testDb.database.db;
  const seller = await createSeller(t.url, ["meters:write", "events:write"]);
  ctx = organizationCaller(seller, ["meters:write", "events:write"]);
});
afterAll(() => t.stop());

const apiCalls: MeterFilter = {
  conjunction: "and",
  clauses: [{ property: "name", operator: "eq", value: "api_call" }],
};
const ev = (at: string, user: string | number, customer = "usr_a") =>
  ({
    name: "api_call",
    timestamp: at,
    external_customer_id: customer,
    metadata: { user },
  }) as Parameters<typeof ingestEvents>[2][number];

async function uniqueMeter(name: string) {
  return createMeter(deps(), ctx, {
    name,
    unit: "scalar",
    filter: apiCalls,
    aggregation: { func: "unique", property: "user" },
  });
}

const input = (meterId: string, over: Partial<QuantitiesInput> = {}): QuantitiesInput => ({
  meterId,
  organizationId: ctx.organizationIds[0]!,
  filter: apiCalls,
  aggregation: { func: "unique", property: "user" },
  start: new Date("2026-06-01T00:00:00Z"),
  end: new Date("2026-06-02T23:59:59Z"),
  interval: "day",
  timezone: "UTC",
  metadata: {},
  ...over,
});

describe("unique meter rollups", () => {
  it("count each value once per bucket and in the total, as the raw path does", async () => {
    const meter = await uniqueMeter("distinct users");
    await ingestEvents(deps(), ctx, [
      ev("2026-06-01T01:10:00Z", "ann"),
      ev("2026-06-01T01:20:00Z", "ann"),
      ev("2026-06-01T05:00:00Z", "bob", "usr_b"),
      ev("2026-06-01T05:30:00Z", 7),
      ev("2026-06-02T09:00:00Z", "ann"),
      ev("2026-06-02T23:59:30Z", "cy"),
    ]);
    await refreshRollups(db);
    // After the tick: one more event for a rolled-up hour and one in an edge hour.
    await ingestEvents(deps(), ctx, [ev("2026-06-01T05:45:00Z", "bob")]);
    for (const q of [
      input(meter.id),
      input(meter.id, { interval: "hour", start: new Date("2026-06-01T00:30:00Z") }),
      input(meter.id, { externalCustomerIds: ["usr_a"] }),
    ]) {
      const viaRollups = await rollupQuantities(db, q);
      expect(viaRollups).toBeDefined();
      expect(viaRollups).toEqual(await rawQuantities(db, q));
    }
    const days = (await rollupQuantities(db, input(meter.id)))!;
    expect(days.quantities.map((d) => d.quantity)).toEqual([3, 2]);
    expect(days.total).toBe(4);
  });

  it("keep no values for an hour past the bound, and read such a period raw", async () => {
    const meter = await uniqueMeter("distinct users, crowded hour");
    const crowded = Array.from({ length: DISTINCT_VALUES_KEPT + 1 }, (_, i) =>
      ev(`2026-07-01T03:${String(i % 60).padStart(2, "0")}:00Z`, `u${i}`),
    );
    for (let i = 0; i < crowded.length; i += 500)
      await ingestEvents(deps(), ctx, crowded.slice(i, i + 500));
    await ingestEvents(deps(), ctx, [ev("2026-07-01T04:00:00Z", "u1")]);
    await refreshRollups(db);
    const rows = await queryRows<{ hour: string; kept: number | null }>(
      db,
      sql`select to_char(hour at time zone 'UTC', 'HH24') as hour, cardinality(distinct_values) as kept
          from meter_hourly where meter_id = ${meter.id} and hour >= '2026-07-01' order by hour`,
    );
    expect(rows).toEqual([
      { hour: "03", kept: null },
      { hour: "04", kept: 1 },
    ]);
    const july = { start: new Date("2026-07-01T00:00:00Z"), end: new Date("2026-07-02T23:59:59Z") };
    const q = input(meter.id, july);
    expect(await rollupQuantities(db, q)).toBeUndefined();
    const answer = await meterQuantities(db, q);
    expect(answer).toEqual(await rawQuantities(db, q));
    expect(answer!.total).toBe(DISTINCT_VALUES_KEPT + 1);
    // A period without the crowded hour is still read from rollups.
    const later = input(meter.id, { ...july, start: new Date("2026-07-01T04:00:00Z") });
    expect(await rollupQuantities(db, later)).toEqual(await rawQuantities(db, later));
  });
});
