// The client behind `Database.read` when DATABASE_READ_URL names a streaming replica: the replica's
// postgres.js client, except that a statement it cannot serve, or should not because it lags too
// far behind, runs on the primary. Only the lag-tolerant reads use it, so rerunning is safe.
import type postgres from "postgres";
import { isDatabaseUnreachable, pgErrorCode } from "../server/lib/db-errors.ts";

/** How long reads stay on the primary after the replica could not be reached. */
const RETRY_MS = 10_000;
/** How often the replica's lag is measured. */
const LAG_CHECK_MS = 1_000;
// What a hot standby cancels a read with when replaying would otherwise wait for it.
export const RECOVERY_CONFLICT = new Set(["40001", "40P01"]);

export interface ReplicaStatus {
  /** How far the replica is behind the primary, in ms; null when the bound is off. */
  lagMs: number | null;
  /** Statements meant for the replica that ran on the primary since start. */
  onPrimary: number;
}

export interface ReplicaReads {
  sql: postgres.Sql;
  status(): ReplicaStatus;
  /** Stops measuring the lag (the clients are closed by their owner). */
  stop(): void;
}

/**
 * Reads on `replica`, rerun on `primary` when the replica is unreachable (and then every read for
 * RETRY_MS, so a dead replica costs one failed attempt per period, not one per read) or cancelled
 * the read for a conflict with replay; and sent to `primary` while the replica is more than
 * `maxLagMs` behind it (0: no bound).
 */
export function replicaReads(
  replica: postgres.Sql,
  primary: postgres.Sql,
  maxLagMs: number,
): ReplicaReads {
  type Args = Parameters<postgres.Sql["unsafe"]>;
  let downUntil = 0;
  let onPrimary = 0;
  const lag = maxLagMs > 0 ? lagMonitor(replica, primary) : null;
  const run = (sql: postgres.Sql, args: Args, values: boolean) => {
    if (sql === primary) onPrimary++;
    const query = sql.unsafe(...args);
    return values ? query.values() : query;
  };
  const attempt = async (args: Args, values: boolean): Promise<unknown> => {
    if (Date.now() < downUntil || (lag && lag.ms() > maxLagMs)) return run(primary, args, values);
    try {
      return await run(replica, args, values);
    } catch (err) {
      if (isDatabaseUnreachable(err)) downUntil = Date.now() + RETRY_MS;
      else if (!RECOVERY_CONFLICT.has(pgErrorCode(err) ?? "")) throw err;
      return run(primary, args, values);
    }
  };
  const sql = new Proxy(replica, {
    get(target, key, receiver) {
      if (key !== "unsafe") return Reflect.get(target, key, receiver) as unknown;
      // drizzle awaits the query or its .values(); both are tried on the replica first.
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
    status: () => ({ lagMs: lag ? lag.ms() : null, onPrimary }),
    stop: () => lag?.stop(),
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
