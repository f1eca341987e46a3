// Opens the database: postgres.js when a URL is configured, embedded PGlite otherwise. Both give the
// same drizzle type, so nothing above this file knows which one it talks to.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { PGlite } from "@electric-sql/pglite";
import { sql, type SQL } from "drizzle-orm";
import { type PgDatabase, type PgQueryResultHKT, PgTransaction } from "drizzle-orm/pg-core";
import type postgres from "postgres";
import type { DatabaseTarget } from "../server/config.ts";
import { lockDataDir } from "./data-dir-lock.ts";
import { mendPostgresJs } from "./postgres-js-fix.ts";
import { replicaName, replicaReads, type ReplicasStatus } from "./replica.ts";
import * as schema from "./schema/index.ts";

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

export const migrationsFolder = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  "migrations",
);

export interface Database {
  /** The primary: writes, transactions and every read that must see the caller's own writes. */
  db: Db;
  /**
   * For the reads that tolerate a streaming replica's lag (docs/scaling.md, "Read replicas"): the
   * replicas named by DATABASE_READ_URL, in turn, else the same handle as `db`. A write here fails.
   */
  read: Db;
  driver: "pglite" | "postgres";
  /** The PGlite instance when driver is pglite (one connection, in-process). */
  pglite: PGlite | null;
  /** The postgres.js client when driver is postgres. */
  client: postgres.Sql | null;
  /**
   * PostgreSQL itself when `client` goes through a transaction-mode pooler (else `client`): for
   * what lives beyond one transaction, LISTEN and session advisory locks.
   */
  direct: postgres.Sql | null;
  /** The postgres.js clients behind `read`, one per replica; empty when `read` is `db`. */
  replicas: postgres.Sql[];
  /** Each replica's lag and reads, and how many went to the primary; null without replicas. */
  replicaStatus(): ReplicasStatus | null;
  /** Runs a raw statement and returns its rows, whichever driver answers. */
  rows<T>(query: SQL): Promise<T[]>;
  /** Runs `select 1`; rejects when the database does not answer. */
  ping(): Promise<void>;
  /** Closes the pool; queries still running after `timeoutMs` (default 5 s) are cut off. */
  close(timeoutMs?: number): Promise<void>;
}

/** The rows of `db.execute`: postgres.js answers with an array of rows, PGlite with {rows}. */
export function rowsOf<T>(result: unknown): T[] {
  return Array.isArray(result) ? (result as T[]) : ((result as { rows?: T[] }).rows ?? []);
}

/** Runs a raw statement on a database or transaction and returns its rows. */
export async function queryRows<T>(db: Db, query: SQL): Promise<T[]> {
  return rowsOf<T>(await db.execute(query));
}

export interface OpenOptions {
  /** A PGlite data-dir tarball to start from (tests clone a migrated template this way). */
  loadDataDir?: Blob | File;
  /** Called with each statement sent (postgres.js only): benchmarks count round trips with it. */
  onQuery?: (statement: string) => void;
}

export async function openDb(target: DatabaseTarget, options: OpenOptions = {}): Promise<Database> {
  if (target.kind === "postgres") {
    mendPostgresJs();
    const { default: postgresJs } = await import("postgres");
    const { drizzle } = await import("drizzle-orm/postgres-js");
    const settings = {
      application_name: "till",
      statement_timeout: target.statementTimeoutMs ?? 30_000,
      lock_timeout: target.lockTimeoutMs ?? 5_000,
      // till's statements are short; the planner's cost estimate of a meter read grows with the
      // events table even when it scans a few rows, and past jit_above_cost PostgreSQL spent
      // 40-60 ms compiling a 3 ms read (10 M events).
      jit: "off",
    };
    const pooled = target.directUrl !== undefined;
    // A replica is reached the way the primary is: through a pooler when the primary is.
    const pool = (url: string) =>
      postgresJs(url, {
        max: target.poolSize,
        onnotice: () => {},
        // Bounded waits: an unreachable server fails a query after connect_timeout (answered 503),
        // and a statement or a lock wait cannot hold a pooled connection longer than its timeout.
        connect_timeout: (target.connectTimeoutMs ?? 5_000) / 1000,
        // A transaction-mode pooler refuses startup parameters beyond a few and hands each
        // transaction to any server connection, where a statement prepared on another is unknown:
        // there the settings belong to the database role (docs/scaling.md) and nothing is prepared.
        ...(pooled
          ? { connection: { application_name: "till" }, prepare: false }
          : { connection: settings }),
        ...(options.onQuery
          ? { debug: (_connection: number, statement: string) => options.onQuery!(statement) }
          : {}),
      });
    const client = pool(target.url);
    const replicas = (target.readUrls ?? []).map((url) => ({ name: replicaName(url), url }));
    // Two replicas on one host:port (different databases) still get distinct metric labels.
    for (const [i, r] of replicas.entries())
      if (replicas.some((o, j) => j !== i && o.name === r.name)) r.name = `${r.name}#${i + 1}`;
    const readers = replicas.map((r) => ({ name: r.name, sql: pool(r.url) }));
    const direct = pooled
      ? postgresJs(target.directUrl!, {
          max: 2,
          onnotice: () => {},
          connect_timeout: (target.connectTimeoutMs ?? 5_000) / 1000,
          connection: settings,
        })
      : client;
    const handle = (sql: postgres.Sql) =>
      drizzle(pooled ? sql : preparing(sql), { schema, casing: "snake_case" }) as unknown as Db;
    const db = handle(client);
    const routed =
      readers.length > 0 ? replicaReads(readers, client, target.readMaxLagMs ?? 0) : null;
    const handles = { db, read: routed ? handle(routed.sql) : db };
    return wrap(
      handles,
      "postgres",
      null,
      {
        client,
        direct,
        replicas: readers.map((r) => r.sql),
        replicaStatus: () => routed?.status() ?? null,
      },
      async (timeoutMs = 5_000) => {
        const timeout = Math.max(0, timeoutMs) / 1000;
        routed?.stop();
        await Promise.all([
          client.end({ timeout }),
          direct !== client && direct.end({ timeout }),
          ...readers.map((r) => r.sql.end({ timeout })),
        ]);
      },
    );
  }
  const { PGlite } = await import("@electric-sql/pglite");
  const { drizzle } = await import("drizzle-orm/pglite");
  let unlock = () => {};
  if (target.dataDir) {
    mkdirSync(target.dataDir, { recursive: true });
    unlock = lockDataDir(target.dataDir);
  }
  let pglite: PGlite;
  try {
    pglite = await PGlite.create({
      ...(target.dataDir ? { dataDir: target.dataDir } : {}),
      ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
    });
  } catch (err) {
    unlock();
    throw err;
  }
  yieldBeforeEachStatement(pglite);
  const db = drizzle(pglite, { schema, casing: "snake_case" }) as unknown as Db;
  const none = { client: null, direct: null, replicas: [], replicaStatus: () => null };
  return wrap({ db, read: db }, "pglite", pglite, none, () => pglite.close().finally(unlock));
}

/**
 * PGlite runs a statement synchronously on this thread, and hands its connection to the next queued
 * statement through promise callbacks, so while statements keep coming nothing else runs: no socket
 * is read and no timer fires (an HTTP answer that arrived in time can look timed out). One turn of
 * the event loop before each statement lets I/O in between them, as with a networked database.
 */
function yieldBeforeEachStatement(pglite: PGlite): void {
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
  type Runner = (...args: never[]) => Promise<unknown>;
  const yielding = <F extends Runner>(target: object, run: F): F =>
    (async (...args: Parameters<F>) => {
      await turn();
      return run.apply(target, args);
    }) as F;
  const { query, exec, transaction } = pglite;
  pglite.query = yielding(pglite, query);
  pglite.exec = yielding(pglite, exec);
  pglite.transaction = ((fn: Parameters<PGlite["transaction"]>[0]) =>
    transaction.call(pglite, (tx) =>
      fn(
        Object.create(tx, {
          query: { value: yielding(tx, tx.query) },
          exec: { value: yielding(tx, tx.exec) },
        }) as typeof tx,
      ),
    )) as PGlite["transaction"];
}

/**
 * drizzle runs its queries through postgres.js with `prepare: false` unless given a statement name.
 * Unnamed, a statement with parameters costs two round trips (postgres.js describes it first) and a
 * parse and plan in PostgreSQL every time. This hands drizzle a client (and transaction clients)
 * that keeps postgres.js's own default: each distinct statement is prepared once per connection.
 */
function preparing(client: postgres.Sql): postgres.Sql {
  return new Proxy(client, {
    get(target, key, receiver) {
      if (key === "unsafe") {
        return (
          query: string,
          params?: postgres.ParameterOrJSON<never>[],
          options?: postgres.UnsafeQueryOptions,
        ) => target.unsafe(query, params, { ...options, prepare: true });
      }
      if (key === "begin" || key === "savepoint") {
        return (...args: unknown[]) => {
          const fn = args.pop() as (tx: postgres.Sql) => unknown;
          const method = Reflect.get(target, key, target) as (...a: unknown[]) => unknown;
          return method.apply(target, [...args, (tx: postgres.Sql) => fn(preparing(tx))]);
        };
      }
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
}

function wrap(
  { db, read }: Pick<Database, "db" | "read">,
  driver: Database["driver"],
  pglite: PGlite | null,
  clients: Pick<Database, "client" | "direct" | "replicas" | "replicaStatus">,
  close: (timeoutMs?: number) => Promise<void>,
): Database {
  let closed: Promise<void> | null = null;
  return {
    db,
    read,
    driver,
    pglite,
    ...clients,
    rows<T>(query: SQL) {
      return queryRows<T>(db, query);
    },
    async ping() {
      await db.execute(sql`select 1`);
    },
    close(timeoutMs?: number) {
      closed ??= close(timeoutMs);
      return closed;
    },
  };
}

const MIGRATION_LOCK = 741_100_001;

/** Applies the committed SQL migrations; safe to run on every start. */
export async function migrate(database: Database): Promise<void> {
  if (database.client && database.direct) {
    const { migrate: run } = await import("drizzle-orm/postgres-js/migrator");
    // Several servers may start at once against one database: an advisory lock held on a dedicated
    // connection makes them take turns, and the later ones find nothing left to apply. Both go to
    // PostgreSQL itself: a pooler could run the unlock on another server connection.
    const conn = await database.direct.reserve();
    const db =
      database.direct === database.client
        ? database.db
        : (await import("drizzle-orm/postgres-js")).drizzle(database.direct);
    try {
      // Migrations (and waiting for another server's) may take longer than a request may.
      await conn`set statement_timeout = 0`;
      await conn`set lock_timeout = 0`;
      await conn`select pg_advisory_lock(${MIGRATION_LOCK})`;
      await run(db as never, { migrationsFolder });
    } finally {
      await conn`select pg_advisory_unlock(${MIGRATION_LOCK})`.catch(() => {});
      // Back to the connection's own timeouts before the pool hands it to a request.
      await conn`reset statement_timeout`.catch(() => {});
      await conn`reset lock_timeout`.catch(() => {});
      conn.release();
    }
  } else {
    const { migrate: run } = await import("drizzle-orm/pglite/migrator");
    await run(database.db as never, { migrationsFolder });
  }
}

declare const txBrand: unique symbol;

/**
 * A handle inside an open transaction. It reads and writes like `Db`, and only `inTransaction`
 * makes one, so a function whose writes must commit together (an outbox event with its change)
 * takes a `Tx` and cannot be handed the bare pool.
 */
export type Tx = Db & { readonly [txBrand]: true };

/**
 * Runs fn in one transaction. The caller that opens it owns it: a `Tx` cannot be passed here again
 * (no nested transaction, i.e. no hidden savepoint), so what runs inside takes the `Tx` it is given.
 */
export function inTransaction<T>(
  db: Db & { readonly [txBrand]?: never },
  fn: (tx: Tx) => Promise<T>,
): Promise<T> {
  // The type refuses a Tx, but a Tx held as a plain Db still gets here: caught at run time too.
  if (db instanceof PgTransaction)
    throw new Error("inTransaction inside a transaction: pass the caller's Tx down instead");
  return db.transaction((tx) => fn(tx as unknown as Tx));
}
