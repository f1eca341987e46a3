// The three deployments bench/topology.ts measures, each as real `till` processes: one `till serve`
// on embedded PGlite, one on a fresh PostgreSQL database, and 2 `till serve --no-worker` + 1
// `till worker` on a streaming-replicated primary behind PgBouncer (built by the CI scripts).
// Everything started here is registered with `cleanup` and stopped by `runCleanups`.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { openDb, type Database } from "../db/client.ts";
import { createDatabase, dropDatabase } from "../test/helpers/db.ts";
import {
  repoRoot,
  spawnTillServer,
  spawnTillWorker,
  tempDir,
  type SpawnedServer,
} from "../test/helpers/process.ts";
import { freePort } from "../test/helpers/server.ts";
import { databaseUrl } from "../test/helpers/template.ts";

export type TopologyName = "pglite" | "postgres" | "scaled";

export interface Topology {
  name: TopologyName;
  /** What runs, for the table. */
  processes: string;
  /** The API processes' base URLs; load is spread over them. */
  apis: string[];
  /** Runs fn on the primary; on PGlite the one process is stopped meanwhile (it owns the files). */
  onPrimary<T>(fn: (db: Database) => Promise<T>): Promise<T>;
  /** Stops the process that works jobs, runs fn on the primary, then starts that process again. */
  withWorkerStopped(fn: (db: Database) => Promise<void>): Promise<void>;
  /** Waits until the replica (if any) has replayed everything the primary has written. */
  replicaCaughtUp(): Promise<void>;
}

// ---- cleanup: every process, cluster, database and directory, in reverse order of creation

const cleanups: (() => unknown)[] = [];
export function cleanup(fn: () => unknown): void {
  cleanups.push(fn);
}
// One run at a time: a signal's cleanup and the main flow's `finally` share it, so neither
// returns (and exits) while the other still holds steps.
let running: Promise<void> | null = null;
export function runCleanups(): Promise<void> {
  running ??= (async () => {
    while (cleanups.length > 0) {
      const fn = cleanups.pop()!;
      try {
        await fn();
      } catch (err) {
        process.stderr.write(`cleanup: ${(err as Error).message}\n`);
      }
    }
  })().finally(() => {
    running = null;
  });
  return running;
}

const COMMON_ENV = {
  HOST: "127.0.0.1",
  AUTH_SECRET: "b".repeat(40),
  // The sandbox processor: renewals charge saved cards without a payment provider.
  TILL_MODE: "sandbox",
  TILL_DEMO: "false",
  LOG_LEVEL: "error",
  AUTH_REQUIRE_EMAIL_VERIFICATION: "false",
  AUTH_RATE_LIMIT: "false",
  WEBHOOK_CONCURRENCY: "16",
};

interface Proc {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** A till process that can be stopped and started again on the same port and data. */
function tillProcess(kind: "serve" | "serve --no-worker" | "worker", env: Record<string, string>) {
  const cwd = tempDir("till-bench-topology-cwd-");
  cleanup(() => rmSync(cwd, { recursive: true, force: true }));
  let child: SpawnedServer["child"] | null = null;
  const proc: Proc = {
    async start() {
      const full = { ...COMMON_ENV, ...env };
      child =
        kind === "worker"
          ? (await spawnTillWorker(full, cwd)).child
          : (await spawnTillServer("serve", full, cwd, kind === "serve" ? [] : ["--no-worker"]))
              .child;
    },
    async stop() {
      const c = child;
      child = null;
      if (!c) return;
      const killer = setTimeout(() => c.kill("SIGKILL"), 20_000);
      c.kill("SIGTERM");
      await c;
      clearTimeout(killer);
    },
  };
  cleanup(() => proc.stop());
  return proc;
}

async function apiProcess(
  kind: "serve" | "serve --no-worker",
  env: Record<string, string>,
): Promise<{ proc: Proc; url: string }> {
  const port = await freePort();
  // BASE_URL names the address the bench calls, so better-auth trusts the Origin of its sign-up.
  const url = `http://127.0.0.1:${port}`;
  const proc = tillProcess(kind, { ...env, PORT: String(port), BASE_URL: url });
  await proc.start();
  return { proc, url };
}

async function withPostgres<T>(url: string, fn: (db: Database) => Promise<T>): Promise<T> {
  const database = await openDb({ kind: "postgres", url, poolSize: 4 });
  try {
    return await fn(database);
  } finally {
    await database.close();
  }
}

export async function startPglite(): Promise<Topology> {
  const dataDir = tempDir("till-bench-topology-pglite-");
  cleanup(() => rmSync(dataDir, { recursive: true, force: true }));
  const { proc, url } = await apiProcess("serve", { TILL_DATA_DIR: dataDir });
  const onPrimary = async <T>(fn: (db: Database) => Promise<T>) => {
    await proc.stop();
    const database = await openDb({ kind: "pglite", dataDir: path.join(dataDir, "db") });
    try {
      return await fn(database);
    } finally {
      await database.close();
      await proc.start();
    }
  };
  return {
    name: "pglite",
    processes: "1 `till serve` (embedded PGlite)",
    apis: [url],
    onPrimary,
    withWorkerStopped: onPrimary,
    replicaCaughtUp: async () => {},
  };
}

export async function startPostgres(adminUrl: string): Promise<Topology> {
  const name = `till_bench_topology_${randomBytes(4).toString("hex")}`;
  await createDatabase(adminUrl, name);
  cleanup(() => dropDatabase(adminUrl, name));
  const dbUrl = databaseUrl(adminUrl, name);
  const { proc, url } = await apiProcess("serve", { DATABASE_URL: dbUrl });
  return {
    name: "postgres",
    processes: "1 `till serve` (PostgreSQL)",
    apis: [url],
    onPrimary: (fn) => withPostgres(dbUrl, fn),
    async withWorkerStopped(fn) {
      await proc.stop();
      try {
        await withPostgres(dbUrl, fn);
      } finally {
        await proc.start();
      }
    },
    replicaCaughtUp: async () => {},
  };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const ci = (script: string, ...args: string[]) =>
  execFileSync("bash", [path.join(repoRoot, ".ci", script), ...args], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  }).trim();

/**
 * The CI's primary and replica (.ci/replica.sh: synchronous_commit = remote_apply unless
 * `asyncReplica`) and its PgBouncer (.ci/pgbouncer.sh, transaction mode), pointed at the primary.
 */
export async function startScaled(asyncReplica: boolean): Promise<Topology> {
  const [primaryPort, replicaPort, bouncerPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const clusterDir = ci("replica.sh", "start", String(primaryPort), String(replicaPort));
  cleanup(() => ci("replica.sh", "stop", clusterDir));
  const bouncerDir = ci("pgbouncer.sh", String(bouncerPort));
  cleanup(async () => {
    const pid = Number(readFileSync(path.join(bouncerDir, "pgbouncer.pid"), "utf8"));
    process.kill(pid, "SIGTERM");
    // It writes its log while shutting down: remove the directory once it has exited.
    for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
    rmSync(bouncerDir, { recursive: true, force: true });
  });
  // pgbouncer.sh serves the system cluster (5432); this one fronts the throwaway primary. SIGHUP
  // reloads [databases] before any server connection was opened.
  const ini = path.join(bouncerDir, "pgbouncer.ini");
  writeFileSync(
    ini,
    readFileSync(ini, "utf8").replace(/^\* = .*$/m, `* = host=127.0.0.1 port=${primaryPort}`),
  );
  process.kill(Number(readFileSync(path.join(bouncerDir, "pgbouncer.pid"), "utf8")), "SIGHUP");

  const host = (port: number) => `postgres://postgres@127.0.0.1:${port}/postgres`;
  const admin = host(primaryPort);
  if (asyncReplica)
    await withPostgres(admin, async (db) => {
      await db.rows(sql`alter system set synchronous_standby_names = ''`);
      await db.rows(sql`select pg_reload_conf()`);
    });
  const name = "till_bench";
  await createDatabase(admin, name);
  const direct = databaseUrl(admin, name);
  const env = {
    DATABASE_URL: databaseUrl(host(bouncerPort), name),
    DATABASE_DIRECT_URL: direct,
    DATABASE_READ_URL: databaseUrl(host(replicaPort), name),
  };
  // The worker first: it applies the migrations the API processes then find done.
  const worker = tillProcess("worker", env);
  await worker.start();
  const apis = [
    await apiProcess("serve --no-worker", env),
    await apiProcess("serve --no-worker", env),
  ];
  const replica = databaseUrl(host(replicaPort), name);
  return {
    name: "scaled",
    processes: `2 \`till serve --no-worker\` + 1 \`till worker\`, PgBouncer, primary + ${asyncReplica ? "async" : "remote_apply"} replica`,
    apis: apis.map((a) => a.url),
    onPrimary: (fn) => withPostgres(direct, fn),
    async withWorkerStopped(fn) {
      await worker.stop();
      try {
        await withPostgres(direct, fn);
      } finally {
        await worker.start();
      }
    },
    async replicaCaughtUp() {
      const [at] = await withPostgres(direct, (db) =>
        db.rows<{ lsn: string }>(sql`select pg_current_wal_lsn()::text as lsn`),
      );
      await withPostgres(replica, async (db) => {
        for (let i = 0; i < 600; i++) {
          const [r] = await db.rows<{ done: boolean }>(
            sql`select pg_last_wal_replay_lsn() >= ${at!.lsn}::pg_lsn as done`,
          );
          if (r!.done) return;
          await new Promise((res) => setTimeout(res, 100));
        }
        throw new Error("the replica did not catch up within 60 s");
      });
    },
  };
}
