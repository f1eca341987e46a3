// Meter rollups: reads through rollups answer what the raw path answers, and keep doing so after
// late events, duplicates, definition changes and customers linked to earlier events.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../../db/client.ts";
import type { MeterAggregation, MeterFilter } from "../../../db/schema/index.ts";
import { createSeller } from "../../../test/helpers/auth.ts";
import { usingPostgres } from "../../../test/helpers/db.ts";
import { organizationCaller } from "../../../test/helpers/org-scope.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import type { AuthContext } from "../../lib/auth-context.ts";
import { systemClock } from "../../lib/clock.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import { createCustomer } from "../customers/service.ts";
import { ingestEvents } from "../events/service.ts";
import { rawQuantities, type QuantitiesInput } from "./quantities.ts";
import { rollupQuantities } from "./rollup-read.ts";
import { refreshRollups } from "./rollups.ts";
import { consumedUnits, customerUsage } from "./queries.ts";
import { createMeter, getQuantities, updateMeter } from "./service.ts";

let t: TestServer;
let db: Db;
let ctx: AuthContext;
let organizationId: string;
let token: string;
const deps = () => ({ db, read: db, clock: systemClock });

beforeAll(async () => {
  t = await startTestServer({ worker: false });
  db = t.testDb.database.db;
  const seller = await createSeller(t.url, ["meters:write", "events:write", "customers:write"]);
  organizationId = seller.organization.id;
  token = seller.token;
  ctx = organizationCaller(seller, [
    "meters:read",
    "meters:write",
    "events:write",
    "customers:write",
  ]);
});
afterAll(() => t.stop());

const apiCalls: MeterFilter = {
  conjunction: "and",
  clauses: [{ property: "name", operator: "eq", value: "api_call" }],
};
const sumTokens: MeterAggregation = { func: "sum", property: "tokens" };

function ev(at: string, tokens: number | string, extra: Record<string, unknown> = {}) {
  return {
    name: "api_call",
    timestamp: at,
    external_customer_id: "usr_a",
    metadata: { tokens },
    ...extra,
  } as Parameters<typeof ingestEvents>[2][number];
}

function input(meterId: string, over: Partial<QuantitiesInput> = {}): QuantitiesInput {
  return {
    meterId,
    organizationId,
    filter: apiCalls,
    aggregation: sumTokens,
    start: new Date("2026-05-01T00:00:00Z"),
    end: new Date("2026-05-03T23:59:59Z"),
    interval: "day",
    timezone: "UTC",
    metadata: {},
    ...over,
  };
}

/** The rollup read and the raw read of the same input; the rollup read must have used rollups. */
async function both(q: QuantitiesInput) {
  const viaRollups = await rollupQuantities(db, q);
  const raw = await rawQuantities(db, q);
  return { viaRollups, raw };
}

async function rollupRows(meterId: string): Promise<number> {
  const [row] = await t.testDb.database.rows<{ n: number }>(
    sql`select count(*)::int as n from meter_hourly where meter_id = ${meterId}`,
  );
  return row!.n;
}

describe("meter rollups", () => {
  it("answers from rollups what the raw path answers, with late events and duplicates", async () => {
    await ingestEvents(deps(), ctx, [
      ev("2026-05-01T08:10:00Z", 10),
      ev("2026-05-01T08:50:00Z", 5, { external_id: "dup-1" }),
      ev("2026-05-02T00:00:00Z", 7),
      ev("2026-05-02T13:15:00Z", "not a number"),
      ev("2026-05-03T23:59:59Z", 3),
      { name: "login", timestamp: "2026-05-01T09:00:00Z", metadata: { tokens: 1000 } },
    ]);
    const meter = await createMeter(deps(), ctx, {
      name: "Tokens",
      unit: "scalar",
      filter: apiCalls,
      aggregation: sumTokens,
    });
    // Not built yet: the rollup path declines and the read is raw.
    expect(await rollupQuantities(db, input(meter.id))).toBeUndefined();
    const first = await refreshRollups(db);
    expect(first.reset).toBe(1);
    expect(await rollupRows(meter.id)).toBe(4);
    let { viaRollups, raw } = await both(input(meter.id));
    expect(viaRollups).toEqual(raw);
    expect(raw!.total).toBe(25);
    expect(raw!.quantities.map((b) => b.quantity)).toEqual([15, 7, 3]);

    // A late event for a past hour and a duplicate: read right away (not rolled up yet), then after
    // a tick, which adds the late event to its own hour.
    const dup = await ingestEvents(deps(), ctx, [
      ev("2026-05-01T08:30:00Z", 100),
      ev("2026-05-01T08:55:00Z", 5, { external_id: "dup-1" }),
    ]);
    expect(dup).toEqual({ inserted: 1, duplicates: 1 });
    ({ viaRollups, raw } = await both(input(meter.id)));
    expect(viaRollups).toEqual(raw);
    expect(raw!.total).toBe(125);
    await refreshRollups(db);
    expect(await rollupRows(meter.id)).toBe(4);
    const [hour] = await t.testDb.database.rows<{ sum: string; event_count: number }>(
      sql`select sum, event_count::int from meter_hourly where meter_id = ${meter.id} and hour = '2026-05-01T08:00:00Z'`,
    );
    expect(hour).toEqual({ sum: "115", event_count: 3 });
    ({ viaRollups, raw } = await both(input(meter.id)));
    expect(viaRollups).toEqual(raw);

    // Partial hours at both edges, hourly buckets, and a zone with a half-hour offset.
    for (const over of [
      { start: new Date("2026-05-01T08:20:00Z"), end: new Date("2026-05-03T12:00:00Z") },
      { interval: "hour" as const, end: new Date("2026-05-01T23:00:00Z") },
      { timezone: "Asia/Kolkata" },
      { timezone: "America/New_York", interval: "week" as const },
    ]) {
      ({ viaRollups, raw } = await both(input(meter.id, over)));
      expect(viaRollups).toBeDefined();
      expect(viaRollups).toEqual(raw);
    }
  });

  it("reads raw events while a changed meter is rebuilt, then its new rollups", async () => {
    const meter = await createMeter(deps(), ctx, {
      name: "Calls",
      unit: "scalar",
      filter: apiCalls,
      aggregation: { func: "count" },
    });
    await refreshRollups(db);
    const q = { start_timestamp: "2026-05-01T00:00:00Z", end_timestamp: "2026-05-03T23:59:59Z" };
    const read = () =>
      getQuantities(
        deps(),
        ctx,
        meter.id,
        { ...q, interval: "day", timezone: "UTC", customer_id: undefined } as never,
        {},
      );
    expect((await read()).total).toBe(6);
    const everything: MeterFilter = { conjunction: "and", clauses: [] };
    await updateMeter(deps(), ctx, meter.id, { filter: everything });
    // Before the tick: the recorded definition differs, so the statement declines the rollups.
    const changed = input(meter.id, { filter: everything, aggregation: { func: "count" } });
    expect(await rollupQuantities(db, changed)).toBeUndefined();
    expect((await read()).total).toBe(7);
    const tick = await refreshRollups(db);
    expect(tick.reset).toBe(1);
    const { viaRollups, raw } = await both(changed);
    expect(viaRollups).toEqual(raw);
    expect(raw!.total).toBe(7);
    expect((await read()).total).toBe(7);
  });

  it("moves rollups with the events when a customer is created for an earlier external id", async () => {
    const meter = await createMeter(deps(), ctx, {
      name: "Tokens per customer",
      unit: "scalar",
      filter: apiCalls,
      aggregation: { func: "max", property: "tokens" },
    });
    await ingestEvents(deps(), ctx, [
      ev("2026-05-02T10:00:00Z", 40, { external_customer_id: "usr_b" }),
    ]);
    await refreshRollups(db);
    const customer = await createCustomer(deps(), ctx, {
      email: "a@example.com",
      external_id: "usr_a",
    } as never);
    for (const over of [
      { customerIds: [customer.id] },
      { externalCustomerIds: ["usr_a"] },
      { externalCustomerIds: ["usr_b"] },
    ]) {
      const { viaRollups, raw } = await both(
        input(meter.id, { ...over, aggregation: meter.aggregation }),
      );
      expect(viaRollups).toBeDefined();
      expect(viaRollups).toEqual(raw);
    }
    const mine = await rollupQuantities(
      db,
      input(meter.id, { customerIds: [customer.id], aggregation: meter.aggregation }),
    );
    expect(mine!.total).toBe(100);
    const [moved] = await t.testDb.database.rows<{ n: number }>(
      sql`select count(*)::int as n from meter_customer_hourly where meter_id = ${meter.id} and customer_id = ${customer.id}`,
    );
    expect(moved!.n).toBe(4);
  });

  it("serves the quantities route, renewals' usage and customer meters from rollups", async () => {
    const customer = await createCustomer(deps(), ctx, {
      email: "c@example.com",
      external_id: "usr_c",
    } as never);
    await ingestEvents(deps(), ctx, [
      ev("2026-06-01T10:00:00Z", 2, { external_customer_id: "usr_c" }),
      ev("2026-06-02T11:00:00Z", 3, { external_customer_id: "usr_c" }),
    ]);
    const meter = await createMeter(deps(), ctx, {
      name: "Tokens in June",
      unit: "scalar",
      filter: apiCalls,
      aggregation: sumTokens,
    });
    await refreshRollups(db);
    // A marker only the rollups carry: a read that still scans raw events cannot see it.
    await t.testDb.database.rows(
      sql`update meter_hourly set sum = sum + 1000 where meter_id = ${meter.id} and hour = '2026-06-02T11:00:00Z'`,
    );
    await t.testDb.database.rows(
      sql`update meter_customer_hourly set sum = sum + 1000 where meter_id = ${meter.id} and hour = '2026-06-02T11:00:00Z'`,
    );
    const period = "start_timestamp=2026-06-01T00:00:00Z&end_timestamp=2026-06-30T23:59:59Z";
    const res = await fetch(
      `${t.url}/v1/meters/${meter.id}/quantities?${period}&interval=day&timezone=UTC`,
      { headers: { authorization: `Bearer ${token}` } },
    );
    expect(res.status).toBe(200);
    expect(((await res.json()) as { total: number }).total).toBe(1005);
    const usage = await customerUsage(db, scopeOfResource({ organizationId }), {
      meterId: meter.id,
      customerId: customer.id,
      start: new Date("2026-06-01T00:00:00Z"),
      end: new Date("2026-07-01T00:00:00Z"),
    });
    expect(usage).toBe(1005);
    const meterRow = { id: meter.id, organizationId, filter: apiCalls, aggregation: sumTokens };
    const since = new Date("2026-06-01T00:00:00Z");
    expect(await consumedUnits(db, meterRow, customer.id, since)).toBe(1005);
    // An event after now still counts toward a balance, as it did before rollups.
    await ingestEvents(deps(), ctx, [
      ev("2099-01-01T00:00:00Z", 7, { external_customer_id: "usr_c" }),
    ]);
    expect(await consumedUnits(db, meterRow, customer.id, since)).toBe(1012);
  });

  it("rebuilds a changed meter in chunks, with events and links arriving meanwhile", async () => {
    const meter = await createMeter(deps(), ctx, {
      name: "Rebuilt in chunks",
      unit: "scalar",
      filter: apiCalls,
      aggregation: { func: "count" },
    });
    await ingestEvents(deps(), ctx, [
      ev("2026-07-01T10:00:00Z", 1, { external_customer_id: "usr_r" }),
      ev("2026-07-02T10:00:00Z", 1, { external_customer_id: "usr_r" }),
      ev("2026-07-04T10:00:00Z", 1),
    ]);
    await refreshRollups(db);
    await updateMeter(deps(), ctx, meter.id, { aggregation: sumTokens });
    const q = input(meter.id, {
      start: new Date("2026-07-01T00:00:00Z"),
      end: new Date("2026-07-05T00:00:00Z"),
    });
    const customerQ = { ...q, externalCustomerIds: ["usr_r"] };
    // A zero budget still moves the rebuild one chunk forward, and reads stay raw until it is done.
    await refreshRollups(db, { rebuildBudgetMs: 0, rebuildChunkEvents: 2 });
    const [state] = await t.testDb.database.rows<{ through: string; rebuilt_through: unknown }>(
      sql`select through::text, rebuilt_through from meter_rollup_state where meter_id = ${meter.id}`,
    );
    expect(state!.through).toBe("0");
    expect(state!.rebuilt_through).not.toBeNull();
    expect(await rollupQuantities(db, q)).toBeUndefined();
    // Meanwhile: a late event in a day already rebuilt, and a customer linked to earlier events.
    await ingestEvents(deps(), ctx, [
      ev("2026-07-01T11:00:00Z", 5, { external_customer_id: "usr_r" }),
    ]);
    const customer = await createCustomer(deps(), ctx, {
      email: "r@example.com",
      external_id: "usr_r",
    } as never);
    await refreshRollups(db);
    for (const read of [q, customerQ, { ...q, customerIds: [customer.id] }]) {
      const { viaRollups, raw } = await both(read);
      expect(viaRollups).toBeDefined();
      expect(viaRollups).toEqual(raw);
    }
    expect((await rawQuantities(db, q))!.total).toBe(8);
  });

  it("rolls up the largest and smallest doubles (their partials are index keys) as raw reads them", async () => {
    const big = Number.MAX_VALUE;
    await ingestEvents(
      deps(),
      ctx,
      [big, Number.MIN_VALUE, -big, 2.5].map((tokens, i) =>
        ev(`2026-07-01T10:0${i}:00Z`, tokens, { external_customer_id: "usr_extreme" }),
      ),
    );
    for (const aggregation of [
      sumTokens,
      { func: "max", property: "tokens" },
      { func: "min", property: "tokens" },
    ] as MeterAggregation[]) {
      const meter = await createMeter(deps(), ctx, {
        name: `Extremes ${aggregation.func}`,
        unit: "scalar",
        filter: apiCalls,
        aggregation,
      });
      await refreshRollups(db);
      const q = input(meter.id, {
        aggregation,
        start: new Date("2026-07-01T00:00:00Z"),
        end: new Date("2026-07-01T23:59:59Z"),
        externalCustomerIds: ["usr_extreme"],
      });
      const { viaRollups, raw } = await both(q);
      expect(viaRollups).toBeDefined();
      expect(viaRollups).toEqual(raw);
      expect(raw!.total).toBe(
        aggregation.func === "sum"
          ? 2.5 + Number.MIN_VALUE
          : aggregation.func === "max"
            ? big
            : -big,
      );
    }
  });

  it.runIf(usingPostgres())(
    "never skips an event whose transaction commits after a later one was rolled up",
    async () => {
      const meter = await createMeter(deps(), ctx, {
        name: "Slow commits",
        unit: "scalar",
        filter: {
          conjunction: "and",
          clauses: [{ property: "name", operator: "eq", value: "slow" }],
        },
        aggregation: { func: "count" },
      });
      await refreshRollups(db);
      const client = t.testDb.database.client!;
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let inserted!: () => void;
      const insertedYet = new Promise<void>((r) => (inserted = r));
      // An ingest transaction takes its id first and commits last.
      const slow = client.begin(async (tx) => {
        await tx`insert into events (organization_id, name, timestamp) values (${organizationId}, 'slow', '2026-05-02T10:10:00Z')`;
        inserted();
        await held;
      });
      await insertedYet;
      await ingestEvents(deps(), ctx, [
        { name: "slow", timestamp: "2026-05-02T10:20:00Z" } as never,
      ]);
      await refreshRollups(db);
      release();
      await slow;
      const q = input(meter.id, { filter: meter.filter, aggregation: meter.aggregation });
      let { viaRollups, raw } = await both(q);
      expect(raw!.total).toBe(2);
      expect(viaRollups).toEqual(raw);
      await refreshRollups(db);
      ({ viaRollups, raw } = await both(q));
      expect(viaRollups).toEqual(raw);
      const [hour] = await t.testDb.database.rows<{ n: number }>(
        sql`select event_count::int as n from meter_hourly where meter_id = ${meter.id}`,
      );
      expect(hour!.n).toBe(2);
    },
  );
});
