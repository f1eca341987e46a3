// The client behind `Database.read` when DATABASE_READ_URL names streaming replicas: each
// statement goes to the next usable replica in turn, and a statement a replica cannot serve, or
// should not because it lags too far behind, goes to another one or, with none left, to the
// primary. Only the lag-tolerant reads use it, so rerunning is safe.
import type postgres from "postgres";
import { isDatabaseUnreachable, pgErrorCode } from "../server/lib/db-errors.ts";

/** How long reads stay off a replica after it could not be reached. */
const RETRY_MS = 10_000;
/** How often each replica's lag is measured. */
const LAG_CHECK_MS = 1_000;
// What a hot standby cancels a read with when replaying would otherwise wait for it.
export const RECOVERY_CONFLICT = new Set(["40001", "40P01"]);

export interface ReplicaStatus {
  /** host:port of the replica (never its credentials): the `replica` label in /metrics. */
  name: string;
  /** How far it is behind the primary, in ms; null when the bound is off. */
  lagMs: number | null;
  /** Statements sent to it since start. */
  reads: number;
  /** Whether reads go to it now: not marked down, not past the lag bound. */
  usable: boolean;
}

export interface ReplicasStatus {
  replicas: ReplicaStatus[];
  /** Statements meant for a replica that ran on the primary since start. */
  onPrimary: number;
}

export interface ReplicaReads {
  sql: postgres.Sql;
  status(): ReplicasStatus;
  /** Stops measuring the lag (the clients are closed by their owner). */
  stop(): void;
}

/** host:port of a postgres URL, to name a replica without its credentials or database. */
export function replicaName(url: string): string {
  const { hostname, port } = new URL(url);
  return `${hostname}:${port || "5432"}`;
}

/**
 * Reads spread over `replicas` in turn (round robin: they hold the same data behind equal pools,
 * and a process sees only its own statements, not a replica's load from other processes, so
 * counting its own in-flight statements would not say which replica is least busy). A replica is
 * skipped while it is more than `maxLagMs` behind the primary (0: no bound) and for RETRY_MS after
 * it could not be reached (so a dead one costs one failed attempt per period, not one per read);
 * a statement it failed to reach runs on the next usable one. A statement cancelled for a
 * conflict with replay, or with no usable replica left, runs on `primary`.
 */
export function replicaReads(
  replicas: readonly { name: string; sql: postgres.Sql }[],
  primary: postgres.Sql,
  maxLagMs: number,
): ReplicaReads {
  type Args = Parameters<postgres.Sql["unsafe"]>;
  const nodes = replicas.map((r) => ({
    ...r,
    downUntil: 0,
    reads: 0,
    lag: maxLagMs > 0 ? lagMonitor(r.sql, primary) : null,
  }));
  type Node = (typeof nodes)[number];
  const usable = (node: Node) =>
    Date.now() >= node.downUntil && !(node.lag && node.lag.ms() > maxLagMs);
  let next = 0;
  /** The next usable replica in turn that this statement has not tried yet. */
  const pick = (tried: Set<Node>): Node | null => {
    for (let i = 0; i < nodes.length; i++) {
      const at = (next + i) % nodes.length;
      const node = nodes[at]!;
      if (!tried.has(node) && usable(node)) {
        next = (at + 1) % nodes.length;
        return node;
      }
    }
    return null;
  };
  let onPrimary = 0;
  const run = (sql: postgres.Sql, args: Args, values: boolean) => {
    const query = sql.unsafe(...args);
    return values ? query.values() : query;
  };
  const attempt = async (args: Args, values: boolean): Promise<unknown> => {
    const tried = new Set<Node>();
    for (let node = pick(tried); node; node = pick(tried)) {
      tried.add(node);
      node.reads++;
      try {
        return await run(node.sql, args, values);
      } catch (err) {
        if (isDatabaseUnreachable(err)) node.downUntil = Date.now() + RETRY_MS;
        else if (RECOVERY_CONFLICT.has(pgErrorCode(err) ?? "")) break;
        else throw err;
      }
    }
    onPrimary++;
    return run(primary, args, values);
  };
  const sql = new Proxy(nodes[0]!.sql, {
    get(target, key, receiver) {
      if (key !== "unsafe") return Reflect.get(target, key, receiver) as unknown;
      // drizzle awaits the query or its .values(); both are tried on a replica first.
      return (...args: Args) => ({
        values: () => attempt(args, true),
        // biome-ignore lint/suspicious/noThenProperty: lazy like postgres.js's own queries, so .values() runs the statement once.
        then: (ok: (rows: unknown) => unknown, fail: (err: unknown) => unknown) =>
          attempt(args, false).then(ok, fail),
      });
    },
  });
  return {
    sql,
    status: () => ({
      replicas: nodes.map((n) => ({
        name: n.name,
        lagMs: n.lag ? n.lag.ms() : null,
        reads: n.reads,
        usable: usable(n),
      })),
      onPrimary,
    }),
    stop: () => {
      for (const n of nodes) n.lag?.stop();
    },
  };
}

/** A WAL position ("16/B374D848") as a number of bytes. */
function lsnOf(text: string): bigint {
  const [hi = "0", lo = "0"] = text.split("/");
  return (BigInt(`0x${hi}`) << 32n) + BigInt(`0x${lo}`);
}

/**
 * The replica's lag in time: every LAG_CHECK_MS the primary's WAL position is noted with the time;
 * the lag is the age of the oldest noted position the replica has not replayed yet (0 when it has
 * replayed them all). Unlike the time since the replica's last replayed commit, this stays 0 while
 * the primary is idle. A failed check changes nothing: reads find out for themselves.
 */
function lagMonitor(replica: postgres.Sql, primary: postgres.Sql) {
  const pending: { lsn: bigint; at: number }[] = [];
  let running = false;
  const check = async () => {
    if (running) return;
    running = true;
    try {
      const at = Date.now();
      const [p] = await primary<{ lsn: string }[]>`select pg_current_wal_lsn()::text as lsn`;
      const [r] = await replica<{ lsn: string | null }[]>`
        select pg_last_wal_replay_lsn()::text as lsn`;
      if (pending.length === 0 || pending.at(-1)!.lsn !== lsnOf(p!.lsn))
        pending.push({ lsn: lsnOf(p!.lsn), at });
      // Not a replica (null): nothing to wait for.
      const replayed = r?.lsn ? lsnOf(r.lsn) : null;
      while (pending.length > 0 && (replayed === null || pending[0]!.lsn <= replayed))
        pending.shift();
    } catch {
      // The primary or the replica did not answer: the next check tries again.
    } finally {
      running = false;
    }
  };
  void check();
  const timer = setInterval(() => void check(), LAG_CHECK_MS);
  timer.unref();
  return {
    ms: () => (pending.length > 0 ? Date.now() - pending[0]!.at : 0),
    stop: () => clearInterval(timer),
  };
}
