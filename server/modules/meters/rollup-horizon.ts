// The rollup horizon: the oldest transaction that may still insert events (see rollups.ts).
import { sql } from "drizzle-orm";
import { queryRows, type Db } from "../../../db/client.ts";

/**
 * The oldest transaction that may still insert events: the snapshot's next id, or lower, the oldest
 * one running (or prepared) in this database. Transactions of other databases on the cluster cannot
 * write these events, so unlike pg_snapshot_xmin they do not hold the rollups back.
 */
export async function currentHorizon(db: Db): Promise<number> {
  const [h] = await queryRows<{ xmax: string; running: string | null }>(
    db,
    sql`
    select pg_snapshot_xmax(pg_current_snapshot())::text as xmax,
      (select string_agg(x, ',') from (
        select backend_xid::text as x from pg_stat_activity
        where datname = current_database() and backend_xid is not null
        union all
        select transaction::text from pg_prepared_xacts where database = current_database()
      ) r) as running`,
  );
  return horizonOf(Number(h!.xmax), h!.running ? h!.running.split(",").map(Number) : []);
}

const EPOCH = 2 ** 32;

/**
 * The horizon from the snapshot's 64-bit xmax and the running transactions' 32-bit xids. Each xid
 * is widened to the 64-bit id nearest xmax: live ids are always within 2^31 of each other, and one
 * may be at or past xmax, since pg_stat_activity is read after the snapshot is taken and a
 * transaction that got its id in between is already listed. Such an id is above the horizon anyway.
 */
export function horizonOf(xmax: number, running: number[]): number {
  const epochStart = Math.floor(xmax / EPOCH) * EPOCH;
  let horizon = xmax;
  for (const xid of running) {
    let wide = epochStart + xid;
    if (wide - xmax > EPOCH / 2) wide -= EPOCH;
    else if (xmax - wide > EPOCH / 2) wide += EPOCH;
    if (wide < horizon) horizon = wide;
  }
  return horizon;
}
