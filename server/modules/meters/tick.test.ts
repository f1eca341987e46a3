// A rollup tick's two foundations. The horizon: the oldest transaction id that may still insert
// events; a transaction that got its id after the snapshot was taken is listed by pg_stat_activity
// too, and must not drag the horizon below zero (or an epoch back), which stopped every tick under
// concurrent ingest. The scan: the tick reads its range of new events through the ingest_xid BRIN
// index, never through the organization's index (every event it ever sent).
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { inTransaction, queryRows } from "../../../db/client.ts";
import { createSeller } from "../../../test/helpers/auth.ts";
import { openTestDatabase, usingPostgres, type TestDatabase } from "../../../test/helpers/db.ts";
import { organizationCaller } from "../../../test/helpers/org-scope.ts";
import { startTestServer } from "../../../test/helpers/server.ts";
import { systemClock } from "../../lib/clock.ts";
import { ingestEvents } from "../events/service.ts";
import { currentHorizon, horizonOf } from "./rollup-horizon.ts";
import { refreshRollups, rollupStatement, tickPlanning, type Pending } from "./rollups.ts";
import { createMeter } from "./service.ts";

const EPOCH = 2 ** 32;

describe("horizonOf", () => {
  it("is xmax when nothing runs", () => {
    expect(horizonOf(81_406, [])).toBe(81_406);
  });

  it("is the oldest running id below xmax", () => {
    expect(horizonOf(81_406, [81_400, 81_390, 81_405])).toBe(81_390);
  });

  it("ignores an id given out after the snapshot, in the same epoch", () => {
    expect(horizonOf(81_406, [81_406, 81_410])).toBe(81_406);
    expect(horizonOf(81_406, [81_410, 81_399])).toBe(81_399);
  });

  it("widens an id of the previous epoch", () => {
    const xmax = 3 * EPOCH + 5;
    expect(horizonOf(xmax, [EPOCH - 10])).toBe(3 * EPOCH - 10);
  });

  it("ignores an id of the next epoch given out after the snapshot", () => {
    const xmax = 2 * EPOCH - 3;
    expect(horizonOf(xmax, [2])).toBe(xmax);
    expect(horizonOf(xmax, [2, EPOCH - 20])).toBe(2 * EPOCH - 20);
  });
});

describe.skipIf(!usingPostgres())("currentHorizon against PostgreSQL", () => {
  let testDb: TestDatabase;
  let other: postgres.Sql;

  beforeAll(async () => {
    testDb = await openTestDatabase();
    other = postgres(testDb.url!, { max: 1, onnotice: () => {} });
  });

  afterAll(async () => {
    await other?.end();
    await testDb?.dispose();
  });

  it("is not held back by a transaction that started after the snapshot", async () => {
    // A repeatable-read snapshot is taken by the first query; pg_stat_activity is read later, when
    // it already lists the other connection's newer transaction id.
    await inTransaction(testDb.database.db, async (tx) => {
      await tx.execute(sql`set transaction isolation level repeatable read`);
      const [snap] = await queryRows<{ xmax: string }>(
        tx,
        sql`select pg_snapshot_xmax(pg_current_snapshot())::text as xmax`,
      );
      // One committed transaction takes the snapshot's xmax, so the running one's id is past it.
      await other`select pg_current_xact_id()`;
      await other.begin(async (o) => {
        const [row] = await o<{ id: string }[]>`select pg_current_xact_id()::text as id`;
        const id = row!.id;
        expect(Number(id)).toBeGreaterThan(Number(snap!.xmax));
        // Exactly xmax unless some older transaction runs meanwhile (autovacuum's ANALYZE has one).
        const horizon = await currentHorizon(tx);
        expect(horizon).toBeGreaterThan(0);
        expect(horizon).toBeLessThanOrEqual(Number(snap!.xmax));
      });
    });
  });

  it("is held back by an older transaction still running", async () => {
    await other.begin(async (o) => {
      const [row] = await o<{ id: string }[]>`select pg_current_xact_id()::text as id`;
      const id = row!.id;
      await inTransaction(testDb.database.db, async (tx) => {
        const horizon = await currentHorizon(tx);
        expect(horizon).toBeGreaterThan(0);
        expect(horizon).toBeLessThanOrEqual(Number(id));
      });
    });
  });
});

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  Plans?: PlanNode[];
}

function nodesOf(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodesOf)];
}

describe("a tick's scan of new events", () => {
  it("is the ingest_xid BRIN range, not the organization's events, on fresh statistics", async () => {
    const t = await startTestServer({ worker: false });
    try {
      const db = t.testDb.database.db;
      const seller = await createSeller(t.url, ["meters:write", "events:write"]);
      const ctx = organizationCaller(seller, ["meters:write", "events:write"]);
      const deps = { db, read: db, clock: systemClock };
      const batch = (n: number) =>
        Array.from({ length: n }, (_, i) => ({
          name: "api_call",
          timestamp: new Date(Date.now() - i * 1000).toISOString(),
          external_customer_id: `usr_${i % 7}`,
          metadata: { tokens: i },
        }));
      for (let i = 0; i < 5; i++) await ingestEvents(deps, ctx, batch(1000));
      const meter = await createMeter(deps, ctx, {
        name: "tokens",
        unit: "scalar",
        filter: {
          conjunction: "and",
          clauses: [{ property: "name", operator: "eq", value: "api_call" }],
        },
        aggregation: { func: "sum", property: "tokens" },
      });
      await refreshRollups(db);
      // The tick took the statistics of the partition the 5,000 events went to (none before).
      const [stats] = await queryRows<{ rows: number }>(
        db,
        sql`select max(c.reltuples)::int as rows from pg_inherits i join pg_class c on c.oid = i.inhrelid
            where i.inhparent = 'events'::regclass`,
      );
      expect(stats!.rows).toBe(5000);
      await ingestEvents(deps, ctx, batch(10));
      const [state] = await queryRows<{ through: string }>(
        db,
        sql`select through::text from meter_rollup_state where meter_id = ${meter.id}`,
      );
      const pending: Pending = {
        meter_id: meter.id,
        organization_id: seller.organization.id,
        filter: meter.filter,
        aggregation: meter.aggregation,
        through: state!.through,
      };
      const to = await currentHorizon(db);
      expect(to).toBeGreaterThan(Number(state!.through));
      const plan = await inTransaction(db, async (tx) => {
        await tickPlanning(tx);
        const [row] = await queryRows<{ "QUERY PLAN": [{ Plan: PlanNode }] | string }>(
          tx,
          sql`explain (format json) ${rollupStatement([pending], Number(state!.through), to)}`,
        );
        const json = row!["QUERY PLAN"];
        return (typeof json === "string" ? JSON.parse(json) : json)[0].Plan as PlanNode;
      });
      const onEvents = nodesOf(plan).filter((n) => n["Relation Name"]?.startsWith("events"));
      expect(onEvents.length).toBeGreaterThan(0);
      expect(onEvents.filter((n) => n["Node Type"] !== "Bitmap Heap Scan")).toEqual([]);
      const indexes = nodesOf(plan)
        .filter((n) => n["Node Type"] === "Bitmap Index Scan")
        .map((n) => n["Index Name"]!);
      expect(indexes.length).toBeGreaterThan(0);
      expect(indexes.filter((name) => !name.includes("ingest_xid"))).toEqual([]);
    } finally {
      await t.stop();
    }
  });
});
