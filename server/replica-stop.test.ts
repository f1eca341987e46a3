// A till server started as its own process (`till serve`) with two real streaming replicas keeps
// answering the routed reads while the replicas' clusters are stopped under load (`pg_ctl stop -m
// immediate`, as a crash would): from the other replica, then from the primary, which /metrics
// counts; and the reads go back to the replicas once they are started again. Needs the clusters of
// `.ci/replica.sh`: `.ci/run` passes them as TEST_READ_URL (replica, then replica2) and
// TEST_REPLICA_DIR, runs this file on its own after the others (commits wait for both replicas
// there) and fails the job when it was skipped.
import path from "node:path";
import { sql } from "drizzle-orm";
import { execa } from "execa";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { replicaName } from "../db/replica.ts";
import { api, createSeller } from "../test/helpers/auth.ts";
import { openTestDatabase, type TestDatabase } from "../test/helpers/db.ts";
import { repoRoot, spawnTillServer, tempDir, type SpawnedServer } from "../test/helpers/process.ts";
import { freePort } from "../test/helpers/server.ts";

const info = inject("template");
const cluster = inject("replicaCluster");
const replicated = info.kind === "postgres" && (info.readUrls?.length ?? 0) >= 2;

type Node = "replica" | "replica2";
const node = (name: Node, action: "stop" | "start") =>
  execa("bash", [path.join(repoRoot, ".ci", "replica.sh"), "node", cluster!, name, action]);

describe.skipIf(!replicated || !cluster)(
  "`till serve` with two replicas that are stopped under load (skipped without TEST_REPLICA_DIR)",
  { timeout: 120_000 },
  () => {
    const METRICS = "m".repeat(32);
    let testDb: TestDatabase;
    let server: SpawnedServer;
    let token: string;
    let meterId: string;
    let names: string[];
    const stopped = new Set<Node>();
    let exit: string | null = null;

    beforeAll(async () => {
      testDb = await openTestDatabase();
      // The CI primary waits for both replicas to apply each commit: with one stopped, so would
      // every write of this server (a token's last use, say). Its database commits locally, and
      // the test waits for replay itself.
      const name = new URL(testDb.url!).pathname.slice(1);
      await testDb.database.rows(
        sql.raw(`alter database "${name}" set synchronous_commit = local`),
      );
      const readUrls = testDb.env.DATABASE_READ_URL!.split(",");
      names = readUrls.map(replicaName);
      const cwd = tempDir("till-replica-stop-");
      const port = await freePort();
      server = await spawnTillServer(
        "serve",
        {
          AUTH_SECRET: "r".repeat(40),
          TILL_MODE: "sandbox",
          AUTH_REQUIRE_EMAIL_VERIFICATION: "false",
          AUTH_RATE_LIMIT: "false",
          LOG_LEVEL: "warn",
          TILL_DATA_DIR: `${cwd}/data`,
          PORT: String(port),
          BASE_URL: `http://localhost:${port}`,
          ...testDb.env,
          DATABASE_CONNECT_TIMEOUT_MS: "1000",
          METRICS_TOKEN: METRICS,
        },
        cwd,
      );
      server.child.then(
        (r) => {
          exit = `exited (code ${r.exitCode})`;
        },
        (e: { exitCode?: number; signal?: string }) => {
          exit = `exited (code ${e.exitCode}, signal ${e.signal})`;
        },
      );
      ({ token } = await createSeller(server.url, [
        "events:write",
        "meters:write",
        "metrics:read",
      ]));
      const meter = await api(server.url, "/v1/meters/", {
        token,
        body: {
          name: "Tokens",
          filter: { conjunction: "and", clauses: [] },
          aggregation: { func: "sum", property: "tokens" },
        },
      });
      expect(meter.status).toBe(201);
      meterId = meter.body.id;
      const events = [10, 32].map((tokens, i) => ({
        name: "api_call",
        timestamp: "2026-03-10T12:00:00Z",
        external_customer_id: `usr_${i}`,
        metadata: { tokens },
      }));
      expect((await api(server.url, "/v1/events/ingest", { token, body: { events } })).status).toBe(
        200,
      );
      await caughtUp();
    });
    // A failure shows what the server said (its exit, a stack), which the answers alone do not.
    afterEach(({ task }) => {
      if (task.result?.state !== "fail" || !server) return;
      console.error(
        `till serve ${exit ?? "still running"}; its output:\n${server.output().slice(-8000)}`,
      );
    });
    afterAll(async () => {
      // Started again whatever happened, for what runs after this file.
      for (const name of stopped) await node(name, "start").catch(() => {});
      server?.child.kill("SIGTERM");
      await server?.child;
      await testDb?.dispose();
    });

    /** Waits until both replicas have replayed everything the primary has written so far. */
    async function caughtUp(): Promise<void> {
      const [{ lsn }] = (await testDb.database.client!`
        select pg_current_wal_lsn()::text as lsn`) as [{ lsn: string }];
      for (const replica of testDb.database.replicas) {
        for (let i = 0; ; i++) {
          const [{ ok }] = (await replica`
            select pg_last_wal_replay_lsn() >= ${lsn}::pg_lsn as ok`) as [{ ok: boolean }];
          if (ok) break;
          if (i > 400) throw new Error(`a replica did not replay up to ${lsn}`);
          await new Promise((r) => setTimeout(r, 25));
        }
      }
    }

    /** The routed reads: meter quantities, the event list and the metrics, as status and answer. */
    const reads = () =>
      Promise.all([
        api(
          server.url,
          `/v1/meters/${meterId}/quantities?start_timestamp=2026-03-01T00:00:00Z&end_timestamp=2026-03-31T23:59:59Z&interval=month`,
          { token },
        ).then((r) => `${r.status} quantities ${r.body?.total}`),
        api(server.url, "/v1/events/?limit=1", { token }).then(
          (r) => `${r.status} events ${r.body?.pagination?.total_count}`,
        ),
        api(server.url, "/v1/metrics/?start_date=2026-03-01&end_date=2026-03-31&interval=day", {
          token,
        }).then(
          (r) => `${r.status} metrics${r.status === 200 ? "" : ` ${JSON.stringify(r.body)}`}`,
        ),
      ]);
    const expected = ["200 quantities 42", "200 events 2", "200 metrics"];

    async function until(ok: () => boolean): Promise<void> {
      for (const deadline = Date.now() + 30_000; !ok(); ) {
        if (Date.now() > deadline) throw new Error("the reads did not answer within 30 s");
        await new Promise((r) => setTimeout(r, 25));
      }
    }

    /** Reads sent without pause, four at a time, while `during` runs and for a while after. */
    async function underLoad(during: () => Promise<unknown>) {
      let done = false;
      const answers: string[][] = [];
      const loop = async () => {
        while (!done) answers.push(await reads());
      };
      const loops = [loop(), loop(), loop(), loop()];
      // Reads answered before the stop and after it, counted in rounds rather than waited for a
      // fixed time: a busy machine answers a round in more than a few hundred ms.
      await until(() => answers.length >= 4);
      await during();
      const stoppedAt = answers.length;
      await Promise.all([
        new Promise((r) => setTimeout(r, 1_500)),
        until(() => answers.length - stoppedAt > 5),
      ]);
      done = true;
      await Promise.all(loops);
      return { answers, after: answers.length - stoppedAt };
    }

    const metrics = async () => {
      const res = await fetch(`${server.url}/metrics`, {
        headers: { authorization: `Bearer ${METRICS}` },
      });
      expect(res.status).toBe(200);
      const text = await res.text();
      const at = (series: string) => {
        const line = text.split("\n").find((l) => l.startsWith(`${series} `));
        return line === undefined ? Number.NaN : Number(line.slice(series.length + 1));
      };
      const per = (metric: string) => names.map((r) => at(`${metric}{replica="${r}"}`));
      return {
        reads: per("till_db_replica_reads_total"),
        up: per("till_db_replica_up"),
        onPrimary: at("till_db_replica_reads_on_primary_total"),
      };
    };

    it("both up: the routed reads answer from both replicas, none from the primary", async () => {
      for (let i = 0; i < 5; i++) expect(await reads()).toEqual(expected);
      const m = await metrics();
      expect(m.up).toEqual([1, 1]);
      for (const n of m.reads) expect(n).toBeGreaterThan(0);
      expect(m.onPrimary).toBe(0);
    });

    it("replica2 stopped mid-load: every read answers, from the other replica", async () => {
      const { answers } = await underLoad(async () => {
        stopped.add("replica2");
        await node("replica2", "stop");
      });
      expect(answers.filter((a) => a.join() !== expected.join())).toEqual([]);
      const m = await metrics();
      expect(m.up).toEqual([1, 0]);
      expect(m.onPrimary).toBe(0);
    });

    it("both stopped mid-load: every read answers from the primary, and /metrics counts them", async () => {
      const before = await metrics();
      const { answers, after } = await underLoad(async () => {
        stopped.add("replica");
        await node("replica", "stop");
      });
      expect(answers.filter((a) => a.join() !== expected.join())).toEqual([]);
      const m = await metrics();
      expect(m.up).toEqual([0, 0]);
      // Each round after the stop is three routed reads on the primary (a few were in flight).
      expect(m.onPrimary - before.onPrimary).toBeGreaterThanOrEqual(after);
    });

    it("started again: the reads go back to the replicas", async () => {
      for (const name of ["replica", "replica2"] as const) {
        await node(name, "start");
        stopped.delete(name);
      }
      await caughtUp();
      // A replica marked down is tried again 10 s after it failed.
      await expect
        .poll(
          async () => {
            await reads();
            return (await metrics()).up;
          },
          { timeout: 30_000, interval: 500 },
        )
        .toEqual([1, 1]);
      const before = await metrics();
      for (let i = 0; i < 5; i++) expect(await reads()).toEqual(expected);
      const after = await metrics();
      expect(after.onPrimary).toBe(before.onPrimary);
      for (const [i, n] of after.reads.entries()) expect(n).toBeGreaterThan(before.reads[i]!);
    });
  },
);
