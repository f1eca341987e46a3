// SQL for the monthly partitions of events (see db/schema/events.ts and docs/scaling.md). A month's
// partition is events_YYYY_MM, bounded by UTC month starts; the DEFAULT partition holds every
// timestamp no partition covers, so ingest never fails for want of one.
import { sql } from "drizzle-orm";
import { inTransaction, queryRows, type Db } from "../../../db/client.ts";
import { eventDedup, events } from "../../../db/schema/index.ts";

const DEFAULT_PARTITION = sql.identifier("events_default");

/** The first instant of the UTC month holding `at`. */
export function monthStart(at: Date, plusMonths = 0): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + plusMonths, 1));
}

export function partitionName(month: Date): string {
  return `events_${String(month.getUTCFullYear()).padStart(4, "0")}_${String(month.getUTCMonth() + 1).padStart(2, "0")}`;
}

async function isPartition(db: Db, name: string): Promise<boolean> {
  const [row] = await queryRows<{ attached: boolean }>(
    db,
    sql`select exists (select 1 from pg_inherits where inhparent = 'events'::regclass and inhrelid = to_regclass(${name})) as attached`,
  );
  return row!.attached;
}

export interface CreatedPartition {
  name: string;
  created: boolean;
  /** Rows moved out of the DEFAULT partition into the new one. */
  moved: number;
}

/**
 * Creates the partition of the month holding `month`, unless it exists. Rows of that month already
 * in the DEFAULT partition (events ingested before the partition existed) would make a plain CREATE
 * … PARTITION OF fail, so in one transaction the table is created detached, those rows are moved
 * into it, and it is attached. The DEFAULT partition is locked throughout (ingest of timestamps no
 * partition covers, and reads scanning it, wait): normally it holds few rows, so that is brief.
 */
export async function createEventPartition(db: Db, month: Date): Promise<CreatedPartition> {
  const from = monthStart(month);
  const to = monthStart(from, 1);
  const name = partitionName(from);
  if (await isPartition(db, name)) return { name, created: false, moved: 0 };
  return inTransaction(db, async (tx) => {
    // A long reader ahead of the lock would queue every later reader behind it: give up instead;
    // the job runs daily and months are created ahead.
    await tx.execute(sql`set local lock_timeout = '10s'`);
    await tx.execute(sql`lock table ${DEFAULT_PARTITION} in access exclusive mode`);
    if (await isPartition(tx, name)) return { name, created: false, moved: 0 };
    const table = sql.identifier(name);
    // Bounds are literals (DDL takes no parameters), built from Dates here, never from input.
    const bounds = sql.raw(`from ('${from.toISOString()}') to ('${to.toISOString()}')`);
    await tx.execute(sql`create table ${table} (like ${events} including defaults)`);
    const [moved] = await queryRows<{ n: number }>(
      tx,
      sql`with moved as (
            delete from ${DEFAULT_PARTITION}
            where timestamp >= ${from.toISOString()}::timestamptz and timestamp < ${to.toISOString()}::timestamptz
            returning *
          ), copied as (insert into ${table} select * from moved returning 1)
          select count(*)::int as n from copied`,
    );
    await tx.execute(sql`alter table ${events} attach partition ${table} for values ${bounds}`);
    return { name, created: true, moved: moved!.n };
  });
}

/** Creates the partitions of the month holding `now` and of the `ahead` months after it. */
export async function ensureEventPartitions(
  db: Db,
  now: Date,
  ahead = 2,
): Promise<CreatedPartition[]> {
  const done: CreatedPartition[] = [];
  for (let k = 0; k <= ahead; k++) done.push(await createEventPartition(db, monthStart(now, k)));
  return done;
}

/**
 * Detaches the partition of the month holding `month`: its events leave `events` (reads, meters'
 * raw path, rebuilds) and stay in a plain table of the same name, to archive and drop. Their
 * external ids stay in event_dedup, so a late retry of one is still a duplicate. Returns the table's
 * name, or null when the month has no partition.
 */
export async function detachEventPartition(db: Db, month: Date): Promise<string | null> {
  const name = partitionName(monthStart(month));
  if (!(await isPartition(db, name))) return null;
  await db.execute(sql`alter table ${events} detach partition ${sql.identifier(name)}`);
  return name;
}

export interface PrunedDedup {
  deleted: number;
  /** False when the budget ran out first: the next run goes on. */
  done: boolean;
}

/**
 * Deletes the external ids claimed before `before`, a batch per statement (no long transaction,
 * each batch's rows found through the BRIN index on claimed_at), until none is left or `budgetMs`
 * has passed. A retry of a deleted id is then stored as a new event.
 */
export async function pruneEventDedup(
  db: Db,
  before: Date,
  { batch = 10_000, budgetMs = 300_000 }: { batch?: number; budgetMs?: number } = {},
): Promise<PrunedDedup> {
  const t0 = performance.now();
  let deleted = 0;
  for (;;) {
    const [row] = await queryRows<{ n: number }>(
      db,
      sql`with gone as (
            delete from ${eventDedup} where ctid = any(array(
              select ctid from ${eventDedup} where claimed_at < ${before.toISOString()}::timestamptz limit ${batch}
            ))
            returning 1
          )
          select count(*)::int as n from gone`,
    );
    deleted += row!.n;
    if (row!.n < batch) return { deleted, done: true };
    if (performance.now() - t0 > budgetMs) return { deleted, done: false };
  }
}
