// Reads routed to streaming replicas (DATABASE_READ_URL): they really run there, they answer what
// the primary answers once the replicas have replayed, they lag while they have not, and nothing is
// written through them. Needs real replicas: `.ci/replica.sh` starts two and `.ci/run` passes them
// as TEST_READ_URL (replicas of the server TEST_DATABASE_URL names).
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { inTransaction, openDb, queryRows, type Database } from "../db/client.ts";
import { api, createSeller } from "../test/helpers/auth.ts";
import { CuttableProxy } from "../test/helpers/cuttable-proxy.ts";
import { openTestDatabase, usingPostgres, type TestDatabase } from "../test/helpers/db.ts";
import { freePort, startTestServer, type TestServer } from "../test/helpers/server.ts";
import { loadConfig } from "./config.ts";
import type { AuthContext } from "./lib/auth-context.ts";
import { systemClock } from "./lib/clock.ts";
import { ingestEvents } from "./modules/events/service.ts";
import { meterCreate } from "./modules/meters/schemas.ts";
import { createMeter, getQuantities } from "./modules/meters/service.ts";
import { start, type RunningServer } from "./main.ts";

const info = inject("template");
const replicated = info.kind === "postgres" && Boolean(info.readUrls?.length);

describe.skipIf(!replicated)("read replica (skipped without TEST_READ_URL: no replica)", () => {
  let t: TestServer;
  let database: Database;
  let token: string;
  let organizationId: string;
  let meterId: string;

  beforeAll(async () => {
    t = await startTestServer();
    database = t.testDb.database;
    const seller = await createSeller(t.url, ["customers:write", "events:write", "meters:write"]);
    token = seller.token;
    organizationId = seller.organization.id;
    const meter = await api(t.url, "/v1/meters/", {
      token,
      body: {
        name: "Tokens",
        filter: {
          conjunction: "and",
          clauses: [{ property: "name", operator: "eq", value: "api_call" }],
        },
        aggregation: { func: "sum", property: "tokens" },
      },
    });
    expect(meter.status).toBe(201);
    meterId = meter.body.id;
  });
  afterAll(() => t?.stop());

  const inRecovery = async (handle: Database["db"]) =>
    (await queryRows<{ r: boolean }>(handle, sql`select pg_is_in_recovery() as r`))[0]!.r;

  /** Waits until every replica has replayed everything the primary has written so far. */
  async function caughtUp(): Promise<void> {
    const [{ lsn }] = (await database.client!`select pg_current_wal_lsn()::text as lsn`) as [
      { lsn: string },
    ];
    for (const replica of database.replicas) {
      for (let i = 0; ; i++) {
        const [{ ok }] = (await replica`
          select pg_last_wal_replay_lsn() >= ${lsn}::pg_lsn as ok`) as [{ ok: boolean }];
        if (ok) break;
        if (i > 200) throw new Error(`a replica did not replay up to ${lsn}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    }
  }

  const quantities = async (id: string) => {
    const res = await api(
      t.url,
      `/v1/meters/${id}/quantities?start_timestamp=2026-03-01T00:00:00Z&end_timestamp=2026-03-31T23:59:59Z&interval=month`,
      { token },
    );
    expect(res.status).toBe(200);
    return res.body.total as number;
  };
  const listed = async () => {
    const res = await api(t.url, "/v1/events/?limit=100", { token });
    expect(res.status).toBe(200);
    return res.body.pagination.total_count as number;
  };
  const event = (tokens: number, externalId: string) => ({
    name: "api_call",
    timestamp: "2026-03-10T12:00:00Z",
    external_customer_id: "usr_alice",
    external_id: externalId,
    metadata: { tokens },
  });

  it("the read handle is the replicas, the primary is not", async () => {
    expect(database.replicas.length).toBeGreaterThan(0);
    for (const _ of database.replicas) expect(await inRecovery(database.read)).toBe(true);
    expect(await inRecovery(database.db)).toBe(false);
  });

  it("a write on the read handle fails at the replica and changes nothing", async () => {
    await expect(
      database.read.execute(sql`update meters set name = 'changed' where id = ${meterId}`),
    ).rejects.toMatchObject({ cause: { code: "25006" } });
    const meter = await api(t.url, `/v1/meters/${meterId}`, { token });
    expect(meter.body.name).toBe("Tokens");
  });

  /**
   * Runs `write` on the primary while every replica's replay is paused, so they lag behind it,
   * then `check`; replay resumes afterwards whatever happens. The CI primary waits for the
   * replicas to apply each commit (remote_apply): this write must not, or it would wait for the
   * paused replay.
   */
  async function whileReplayPaused(
    write: (tx: Database["db"], ctx: AuthContext) => Promise<unknown>,
    check: () => Promise<void>,
  ): Promise<void> {
    const replicas = database.replicas;
    await Promise.all(replicas.map((r) => r`select pg_wal_replay_pause()`));
    try {
      for (const replica of replicas) {
        for (let i = 0; ; i++) {
          const [{ state }] = (await replica`
            select pg_get_wal_replay_pause_state() as state`) as [{ state: string }];
          if (state === "paused") break;
          if (i > 200) throw new Error("replay did not pause");
          await new Promise((r) => setTimeout(r, 10));
        }
      }
      await inTransaction(database.db, async (tx) => {
        await tx.execute(sql`set local synchronous_commit = local`);
        await write(tx, orgCtx());
      });
      await check();
    } finally {
      await Promise.all(replicas.map((r) => r`select pg_wal_replay_resume()`));
    }
    await caughtUp();
  }
  const orgCtx = (): AuthContext => ({
    kind: "organization",
    userId: null,
    organizationIds: [organizationId],
    scopes: new Set(["events:write", "meters:read", "meters:write"]),
    tokenId: null,
  });
  const deps = (tx: Database["db"]) => ({ db: tx, read: tx, clock: systemClock });
  const march = {
    start_timestamp: "2026-03-01T00:00:00Z",
    end_timestamp: "2026-03-31T23:59:59Z",
    interval: "month" as const,
    timezone: "UTC",
    customer_id: undefined,
    external_customer_id: undefined,
  };

  it("meter quantities and event lists come from the replica: behind while it lags, then equal", async () => {
    const ingested = await api(t.url, "/v1/events/ingest", {
      token,
      body: { events: [event(10, "a"), event(32, "b")] },
    });
    expect(ingested.body).toMatchObject({ inserted: 2 });
    await caughtUp();
    expect(await quantities(meterId)).toBe(42);
    expect(await listed()).toBe(2);

    await whileReplayPaused(
      (tx, ctx) => ingestEvents(deps(tx), ctx, [event(100, "c")]),
      async () => {
        // Through till: the routed reads answer from the replica's older snapshot.
        expect(await quantities(meterId)).toBe(42);
        expect(await listed()).toBe(2);
        // The same read on the primary already counts the new event.
        const onPrimary = await getQuantities(deps(database.db), orgCtx(), meterId, march, {});
        expect(onPrimary.total).toBe(142);
      },
    );
    expect(await quantities(meterId)).toBe(142);
    expect(await listed()).toBe(3);
  });

  it("a meter the replica has not seen yet answers at once: its definition is read from the primary", async () => {
    let created = "";
    await whileReplayPaused(
      async (tx, ctx) => {
        const input = meterCreate.parse({
          name: "Calls",
          filter: { conjunction: "and", clauses: [] },
          aggregation: { func: "count" },
        });
        created = (await createMeter(deps(tx), ctx, input)).id;
      },
      async () => {
        const missing = await queryRows(
          database.read,
          sql`select 1 from meters where id = ${created}`,
        );
        expect(missing).toEqual([]);
        expect((await api(t.url, `/v1/meters/${created}`, { token })).status).toBe(200);
        // Counted on the replica, which holds the three events but not the meter row yet.
        expect(await quantities(created)).toBe(3);
      },
    );
    expect(await quantities(created)).toBe(3);
  });

  it("past DATABASE_READ_MAX_LAG_MS the routed reads go to the primary until the replica catches up", async () => {
    const bounded = await openDb({
      kind: "postgres",
      url: t.testDb.url!,
      readUrls: t.testDb.env.DATABASE_READ_URL!.split(","),
      readMaxLagMs: 300,
      poolSize: 2,
    });
    const until = async (what: string, ok: () => Promise<boolean>) => {
      for (let i = 0; !(await ok()); i++) {
        if (i > 100) throw new Error(`timed out waiting until ${what}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    try {
      expect(await inRecovery(bounded.read)).toBe(true);
      await whileReplayPaused(
        (tx, ctx) => ingestEvents(deps(tx), ctx, [event(1, "lagging")]),
        async () => {
          // Behind by less than the bound: still the replica.
          expect(await inRecovery(bounded.read)).toBe(true);
          await until(
            "the reads left the lagging replica",
            async () => !(await inRecovery(bounded.read)),
          );
        },
      );
      await until("the reads came back to the replica", () => inRecovery(bounded.read));
    } finally {
      await bounded.close();
    }
  });
});

// A proxy the test can cut stands between till and the replica (or, without one, the primary
// itself, which answers the same reads): cutting it plays a replica stopped under load.
describe.skipIf(!usingPostgres())("a read replica that goes down", () => {
  const METRICS = "m".repeat(32);
  let testDb: TestDatabase;
  let server: RunningServer;
  let proxy: CuttableProxy;
  let base: string;
  let token: string;
  beforeAll(async () => {
    testDb = await openTestDatabase();
    const replica = new URL(testDb.env.DATABASE_READ_URL?.split(",")[0] ?? testDb.url!);
    proxy = new CuttableProxy({ host: replica.hostname, port: Number(replica.port || 5432) });
    replica.host = `127.0.0.1:${await proxy.listen()}`;
    const port = await freePort();
    base = `http://localhost:${port}`;
    const config = loadConfig({
      command: "test",
      env: {
        PORT: String(port),
        BASE_URL: base,
        LOG_LEVEL: "silent",
        ...testDb.env,
        DATABASE_READ_URL: replica.toString(),
        DATABASE_CONNECT_TIMEOUT_MS: "1000",
        METRICS_TOKEN: METRICS,
      },
    });
    server = await start(config, { worker: false });
    ({ token } = await createSeller(base, ["events:write", "meters:write"]));
  });
  afterAll(async () => {
    proxy?.close();
    await server?.stop();
    await testDb?.dispose();
  });

  const listed = async () => {
    const res = await api(base, "/v1/events/?limit=1", { token });
    return { status: res.status, total: res.body?.pagination?.total_count as number };
  };

  it("the routed reads answer through it while it is up", async () => {
    const events = [1, 2, 3].map((i) => ({ name: "api_call", external_customer_id: `usr_${i}` }));
    expect((await api(base, "/v1/events/ingest", { token, body: { events } })).status).toBe(200);
    await server.database.read.execute(sql`select 1`);
    expect(proxy.sockets.size).toBeGreaterThan(0);
    expect(await listed()).toEqual({ status: 200, total: 3 });
  });

  it("stopped under load, they answer from the primary; nothing else notices", async () => {
    const answers: { status: number; total: number }[] = [];
    for (let round = 0; round < 10; round++) {
      if (round === 4) proxy.down();
      answers.push(...(await Promise.all([listed(), listed(), listed(), listed()])));
      const meters = await api(base, "/v1/meters/", { token });
      expect(meters.status).toBe(200);
    }
    expect(answers).toHaveLength(40);
    expect(answers.every((a) => a.status === 200 && a.total === 3)).toBe(true);
    const metrics = await fetch(`${base}/metrics`, {
      headers: { authorization: `Bearer ${METRICS}` },
    });
    const onPrimary = /^till_db_replica_reads_on_primary_total (\d+)$/m.exec(await metrics.text());
    expect(Number(onPrimary?.[1])).toBeGreaterThanOrEqual(24);
  });
});
