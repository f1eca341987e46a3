// Hourly meter rollups, maintained from the append-only events without rescanning them.
//
// Every event carries ingest_xid, the id of the transaction that inserted it. The horizon is the
// oldest transaction of this database still running: every event below it has committed (or never
// will), so a range [through, horizon) of ingest_xid is final and is consumed once. A late event
// (a past timestamp) lands in a later range and updates its own past hour; duplicates never reach
// the table (external_id dedup happens at ingest). Each meter keeps its own `through` beside the
// definition its rollups were built from: a changed definition resets `through` to 0 and deletes
// the meter's rollups, the next ticks rebuild them, and reads use raw events until then. A rebuild
// reads the events below a fixed horizon in ranges of event ids, one short transaction each, so no
// transaction holds the rollup lock (which creating a customer waits for) for long. Ids never change,
// so each event is read once whatever its timestamp or heap position.
//
// The tick and linkCustomerEvents (which moves rollups between customer columns) take the same
// advisory lock, so a tick never writes rollups from events read before a link changed them.
// A unique meter's rows keep the hour's distinct values (up to DISTINCT_VALUES_KEPT) in place of
// the numeric aggregates; merging rows unions them.
import { sql, type SQL } from "drizzle-orm";
import { inTransaction, queryRows, type Db, type Tx } from "../../../db/client.ts";
import {
  events,
  meterCustomerHourly,
  meterHourly,
  meterRollupState,
  meters,
  type MeterAggregation,
  type MeterFilter,
} from "../../../db/schema/index.ts";
import { pgErrorCode } from "../../lib/db-errors.ts";
import { aggregationValue, filterCondition } from "../events/filter.ts";
import { currentHorizon } from "./rollup-horizon.ts";

/** The advisory lock key of rollup writers ("metr"). */
const ROLLUP_LOCK = 0x6d657472;
/** Meters aggregated by one statement: one scan of the new events serves them all. */
const METERS_PER_STATEMENT = 20;
/** Events (ids of the whole table) a rebuild reads per transaction. */
const REBUILD_CHUNK_EVENTS = 50_000;
/** Rebuild work one tick does before leaving the rest to the next one. */
const REBUILD_BUDGET_MS = 20_000;
/**
 * Distinct values an hour's row of a `unique` meter keeps. Past it the row keeps null and reads
 * touching that hour count raw events, so a high-cardinality property never makes rows huge.
 */
export const DISTINCT_VALUES_KEPT = 1000;

/** The union of two rows' distinct values, null when either overflowed or the union does. */
const mergeDistinct = (a: string, b: string) =>
  sql.raw(`case when ${a}.distinct_values is null or ${b}.distinct_values is null then null
    else (select case when count(*) > ${DISTINCT_VALUES_KEPT} then null else coalesce(array_agg(x order by x), '{}') end
          from (select distinct unnest(${a}.distinct_values || ${b}.distinct_values) as x) d) end`);

export function lockRollups(db: Db): Promise<unknown> {
  return db.execute(sql`select pg_advisory_xact_lock(${ROLLUP_LOCK})`);
}

export interface Pending {
  meter_id: string;
  organization_id: string;
  filter: MeterFilter;
  aggregation: MeterAggregation;
  through: number | string;
}

export interface RefreshResult {
  /** Meters whose rollups were reset for a rebuild (new meters and changed definitions). */
  reset: number;
  /** Meters advanced to the horizon. */
  advanced: number;
  horizon: number;
}

/**
 * One tick: records definitions, resets changed meters, rebuilds reset ones (for at most
 * `rebuildBudgetMs`, then the next tick goes on) and consumes new events up to the horizon.
 */
export async function refreshRollups(
  db: Db,
  opts: { rebuildBudgetMs?: number; rebuildChunkEvents?: number } = {},
): Promise<RefreshResult> {
  const deadline = performance.now() + (opts.rebuildBudgetMs ?? REBUILD_BUDGET_MS);
  const horizon = await currentHorizon(db);
  const reset = await inTransaction(db, async (tx) => {
    await lockRollups(tx);
    const changed = await queryRows<{ meter_id: string }>(
      tx,
      sql`
      insert into ${meterRollupState} as s (meter_id, filter, aggregation, through)
      select m.id, m.filter, m.aggregation, 0 from ${meters} m
      on conflict (meter_id) do update set filter = excluded.filter, aggregation = excluded.aggregation, through = 0,
        rebuild_horizon = null, rebuilt_through = null
        where s.filter <> excluded.filter or s.aggregation <> excluded.aggregation
      returning s.meter_id`,
    );
    const ids = changed.map((r) => r.meter_id);
    if (ids.length > 0) {
      await tx.execute(sql`delete from ${meterHourly} where meter_id in ${ids}`);
      await tx.execute(sql`delete from ${meterCustomerHourly} where meter_id in ${ids}`);
    }
    return ids.length;
  });
  await summarizeNewRanges(db);
  const pending = await queryRows<Pending>(
    db,
    sql`select s.meter_id, m.organization_id, s.filter, s.aggregation, s.through
        from ${meterRollupState} s join ${meters} m on m.id = s.meter_id
        where s.through < ${horizon} order by s.through, s.meter_id`,
  );
  const groups = new Map<number, Pending[]>();
  for (const p of pending) {
    const through = Number(p.through);
    const group = groups.get(through) ?? [];
    if (group.length === 0) groups.set(through, group);
    group.push(p);
  }
  let advanced = 0;
  for (const [through, group] of groups) {
    if (through === 0) {
      // Every tick moves at least one rebuild forward, whatever its budget.
      for (const [i, p] of group.entries()) {
        if (i > 0 && performance.now() > deadline) break;
        advanced += await rebuild(db, p, horizon, deadline, opts.rebuildChunkEvents);
      }
      continue;
    }
    for (let i = 0; i < group.length; i += METERS_PER_STATEMENT) {
      advanced += await advance(db, group.slice(i, i + METERS_PER_STATEMENT), through, horizon);
    }
  }
  // After the rollups moved: statistics help the reads, and the tick's own scan does not need them.
  await analyzeGrownPartitions(db);
  return { reset, advanced, horizon };
}

type RebuildStep = "chunk" | "done" | "stop";

/**
 * Rebuilds one reset meter from the organization's events below a horizon fixed when the rebuild
 * began, a range of event ids per transaction, until the deadline. Done, `through` becomes that
 * horizon and later ticks add the events from there. Returns 1 when done.
 */
async function rebuild(
  db: Db,
  p: Pending,
  horizon: number,
  deadline: number,
  chunk = REBUILD_CHUNK_EVENTS,
): Promise<number> {
  for (;;) {
    const step = await inTransaction(db, (tx) => rebuildStep(tx, p, horizon, chunk));
    if (step === "done") return 1;
    if (step === "stop" || performance.now() > deadline) return 0;
  }
}

async function rebuildStep(
  tx: Tx,
  p: Pending,
  horizon: number,
  chunk: number,
): Promise<RebuildStep> {
  await lockRollups(tx);
  // Still reset with the same definition: a change meanwhile reset it again, and this one stops.
  const [state] = await queryRows<{
    rebuild_horizon: string | null;
    rebuilt_through: string | null;
  }>(
    tx,
    sql`select rebuild_horizon, rebuilt_through from ${meterRollupState}
        where meter_id = ${p.meter_id} and through = 0 and filter = ${JSON.stringify(p.filter)}::jsonb
          and aggregation = ${JSON.stringify(p.aggregation)}::jsonb for update`,
  );
  if (!state) return "stop";
  const until = state.rebuild_horizon === null ? horizon : Number(state.rebuild_horizon);
  const after = state.rebuilt_through;
  // The chunk's last id: a walk of the primary key, all organizations alike.
  const [last] = await queryRows<{ id: string }>(
    tx,
    sql`select ${events.id} as id from ${events}
        ${after ? sql`where ${events.id} > ${after}::uuid` : sql``}
        order by ${events.id} offset ${chunk - 1} limit 1`,
  );
  await tx.execute(sql`set local statement_timeout = 0`);
  await tx.execute(rollupStatement([p], 0, until, { after, through: last?.id ?? null }));
  if (!last) {
    await tx.execute(sql`update ${meterRollupState} set through = ${until}, rebuild_horizon = null,
      rebuilt_through = null where meter_id = ${p.meter_id}`);
    return "done";
  }
  await tx.execute(sql`update ${meterRollupState} set rebuild_horizon = ${until},
    rebuilt_through = ${last.id}::uuid where meter_id = ${p.meter_id}`);
  return "chunk";
}

/**
 * Summarizes the BRIN ranges of ingest_xid filled since the last call, so reads of the events not
 * rolled up yet skip all but the tail of the table (PGlite has no autovacuum to do it). A range held
 * by a running VACUUM is left for the next tick.
 */
async function summarizeNewRanges(db: Db): Promise<void> {
  await unlessHeld(db, (tx) =>
    // events is partitioned: each partition has its own BRIN index under the partitioned one.
    tx.execute(sql`select brin_summarize_new_values(inhrelid::regclass) from pg_inherits
      where inhparent = 'events_ingest_xid_brin'::regclass`),
  );
}

/**
 * Analyzes the events partitions that grew by a tenth since their size was last recorded (by an
 * ANALYZE or VACUUM), or have never been. Until then the planner rates a read's scan of new events
 * through the ingest_xid BRIN index poorly and walks every event of the period through the
 * organization's index instead: a fresh month's partition for up to a minute on PostgreSQL (till
 * autovacuum gets to it), and for good on PGlite, which has no autovacuum. Sizes, not the
 * statistics system's change counters, which backends report up to a second late. A partition
 * held by autovacuum's VACUUM or ANALYZE is left: that records its size anyway.
 */
async function analyzeGrownPartitions(db: Db): Promise<void> {
  const grown = await queryRows<{ name: string }>(
    db,
    sql`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
        where i.inhparent = 'events'::regclass
          and pg_relation_size(c.oid) / current_setting('block_size')::int
            > greatest(${ANALYZE_MIN_PAGES}, c.relpages * 1.1)`,
  );
  for (const { name } of grown) {
    await unlessHeld(db, async (tx) => {
      // A large partition's sample may take longer than the pool's per-request timeout.
      await tx.execute(sql`set local statement_timeout = 0`);
      await tx.execute(sql`analyze ${sql.identifier(name)}`);
    });
  }
}

/** Runs maintenance in its own transaction, or skips it when another session holds the lock. */
async function unlessHeld(db: Db, fn: (tx: Tx) => Promise<unknown>): Promise<void> {
  try {
    await inTransaction(db, async (tx) => {
      await tx.execute(sql`set local lock_timeout = '200ms'`);
      await fn(tx);
    });
  } catch (err) {
    if (pgErrorCode(err) !== "55P03") throw err;
  }
}

/** A partition smaller than this (about a thousand events) keeps whatever statistics it has. */
const ANALYZE_MIN_PAGES = 32;

/** Adds the events with ingest_xid in [from, to) to the meters' rollups and moves them to `to`. */
async function advance(db: Db, group: Pending[], from: number, to: number): Promise<number> {
  return inTransaction(db, async (tx) => {
    await lockRollups(tx);
    // Still at `from` with the same definition: nothing else writes state outside this lock.
    const ids = group.map((g) => g.meter_id);
    const current = await queryRows<{ meter_id: string }>(
      tx,
      sql`select meter_id from ${meterRollupState} where meter_id in ${ids} and through = ${from} for update`,
    );
    const live = new Set(current.map((r) => r.meter_id));
    const todo = group.filter((g) => live.has(g.meter_id));
    if (todo.length === 0) return 0;
    // A backlog (a bulk import) may take longer than the pool's per-request statement_timeout,
    // which would cancel it on every tick, forever.
    await tx.execute(sql`set local statement_timeout = 0`);
    await tickPlanning(tx);
    await tx.execute(rollupStatement(todo, from, to));
    await tx.execute(
      sql`update ${meterRollupState} set through = ${to} where meter_id in ${todo.map((g) => g.meter_id)}`,
    );
    return todo.length;
  });
}

/**
 * A tick's new events are found by the BRIN range on ingest_xid alone, whose cost follows the range,
 * not the table. Without fresh statistics (a new month's partition, a burst since the last ANALYZE)
 * the planner rates that index poorly and would scan the whole table instead.
 */
export async function tickPlanning(tx: Tx): Promise<void> {
  await tx.execute(sql`set local enable_seqscan = off`);
}

/**
 * One statement for a group of meters: the new events are read once into a CTE named `events`
 * (which the filter SQL refers to), each meter picks its events and value, and the per-hour
 * aggregates are added to both rollup tables.
 */
export function rollupStatement(
  group: Pending[],
  from: number,
  to: number,
  ids?: { after: string | null; through: string | null },
): SQL {
  const orgs = [...new Set(group.map((g) => g.organization_id))];
  // A tick's range of new events is read through the ingest_xid BRIN index; an index on
  // organization_id would read every event the organization ever sent, so the test is kept out of
  // its reach (IS TRUE is not an indexable form). A rebuild walks event ids and may use either.
  const orgCondition = ids
    ? sql`${events.organizationId} in ${orgs}`
    : sql`(${events.organizationId} in ${orgs}) is true`;
  // A unique meter's value is text (u), any other's numeric (v): the raw path compares them so.
  const picks = group.map((g) => {
    const unique = g.aggregation.func === "unique";
    const value = aggregationValue(g.aggregation);
    return sql`
      select ${g.meter_id}::uuid as meter_id, date_trunc('hour', ${events.timestamp}, 'UTC') as hour,
             ${events.customerId} as customer_id, ${events.externalCustomerId} as external_customer_id,
             ${unique ? sql`null::numeric` : sql`(${value})::numeric`} as v,
             ${unique ? sql`(${value})::text` : sql`null::text`} as u, ${unique}::boolean as uq
      from ${events}
      where ${events.organizationId} = ${g.organization_id}::uuid and ${filterCondition(g.filter)}`;
  });
  const distinctOf =
    sql.raw(`case when bool_and(uq) then case when count(distinct u) > ${DISTINCT_VALUES_KEPT} then null
      else coalesce(array_agg(distinct u) filter (where u is not null), '{}') end end`);
  const combine = (t: string) =>
    sql`
      event_count = ${sql.raw(t)}.event_count + excluded.event_count, value_count = ${sql.raw(t)}.value_count + excluded.value_count,
      sum = ${sql.raw(t)}.sum + excluded.sum, min = least(${sql.raw(t)}.min, excluded.min), max = greatest(${sql.raw(t)}.max, excluded.max),
      distinct_values = ${mergeDistinct(t, "excluded")}`;
  return sql`
    with ${events} as ${sql.raw(ids ? "not materialized" : "materialized")} (
      select * from ${events}
      where ${orgCondition} and ${events.ingestXid} >= ${from} and ${events.ingestXid} < ${to}
        ${ids?.after ? sql`and ${events.id} > ${ids.after}::uuid` : sql``}
        ${ids?.through ? sql`and ${events.id} <= ${ids.through}::uuid` : sql``}
    ), picked as (${sql.join(picks, sql` union all `)}
    ), per_customer as (
      select meter_id, hour, customer_id, external_customer_id, count(*) as event_count, count(v) as value_count,
             coalesce(sum(v), 0) as sum, min(v) as min, max(v) as max, ${distinctOf} as distinct_values
      from picked group by meter_id, hour, customer_id, external_customer_id
    ), per_hour as (
      select meter_id, hour, count(*) as event_count, count(v) as value_count,
             coalesce(sum(v), 0) as sum, min(v) as min, max(v) as max, ${distinctOf} as distinct_values
      from picked group by meter_id, hour
    ), customer_rows as (
      insert into ${meterCustomerHourly} as r (meter_id, hour, customer_id, external_customer_id, event_count, value_count, sum, min, max, distinct_values)
      select * from per_customer
      on conflict (meter_id, hour, customer_id, external_customer_id) do update set ${combine("r")}
      returning 1
    ), hourly_rows as (
      insert into ${meterHourly} as r (meter_id, hour, event_count, value_count, sum, min, max, distinct_values)
      select * from per_hour
      on conflict (meter_id, hour) do update set ${combine("r")}
      returning 1
    )
    select (select count(*) from customer_rows) as customer_rows, (select count(*) from hourly_rows) as hourly_rows`;
}

/**
 * After events of an organization changed customer columns (see linkCustomerEvents): merges the
 * rollup rows keyed by the old columns into the rows keyed by the new ones. Runs in the caller's
 * transaction, under the rollup lock, before the events are updated.
 */
export async function moveCustomerRollups(
  tx: Tx,
  organizationId: string,
  customerId: string,
  externalId: string,
): Promise<void> {
  await lockRollups(tx);
  const orgMeters = sql`(select id from ${meters} where organization_id = ${organizationId})`;
  const move = (where: SQL) => sql`
    with moved as (
      delete from ${meterCustomerHourly} where meter_id in ${orgMeters} and ${where}
      returning meter_id, hour, event_count, value_count, sum, min, max, distinct_values
    )
    insert into ${meterCustomerHourly} as r (meter_id, hour, customer_id, external_customer_id, event_count, value_count, sum, min, max, distinct_values)
    select meter_id, hour, ${customerId}::uuid, ${externalId}::text, event_count, value_count, sum, min, max, distinct_values from moved
    on conflict (meter_id, hour, customer_id, external_customer_id) do update set
      event_count = r.event_count + excluded.event_count, value_count = r.value_count + excluded.value_count,
      sum = r.sum + excluded.sum, min = least(r.min, excluded.min), max = greatest(r.max, excluded.max),
      distinct_values = ${mergeDistinct("r", "excluded")}`;
  await tx.execute(move(sql`customer_id is null and external_customer_id = ${externalId}`));
  await tx.execute(move(sql`customer_id = ${customerId}::uuid and external_customer_id is null`));
}
