// Meter quantities from hourly rollups: whole UTC hours of the period come from meter_hourly (or
// meter_customer_hourly for a customer read), raw events only from
//   - the partial hours at the edges of the period,
//   - hours a bucket boundary cuts (zones whose offset is not a whole hour: their days start at :30),
//   - the events not rolled up yet (ingest_xid at or past the meter's `through`).
// These parts partition the period exactly, so the answer is the raw path's. An edge hour mostly
// inside the period is read, for count/sum/avg, as its rollup minus the events outside the period.
// A `unique` read unions the hours' distinct values with the raw parts' values and counts them; if
// an hour of the period kept no values (more than the rollups keep), raw events answer. The statement checks
// in its own snapshot that the rollups match the meter definition it was given and are built; if
// not, it scans nothing and says so, and the caller reads raw events.
import { sql, type SQL } from "drizzle-orm";
import { queryRows, type Db } from "../../../db/client.ts";
import {
  events,
  meterCustomerHourly,
  meterHourly,
  meterRollupState,
  type MeterAggregation,
} from "../../../db/schema/index.ts";
import { aggregationValue } from "../events/filter.ts";
import {
  bucketSeries,
  eventConditions,
  quantitiesOf,
  rawQuantities,
  type Quantities,
  type QuantitiesInput,
  type Row,
} from "./quantities.ts";

const HOUR = 3_600_000;
/** Aggregations whose hours can be subtracted from (min and max cannot). */
const ADDITIVE = new Set(["count", "sum", "avg"]);
/** Above every transaction id: gives the planner a bounded range to estimate on the BRIN index. */
const XID_CEILING = 2 ** 62;
/** Zones whose buckets all start on a UTC hour: no hour is cut by a bucket boundary. */
const UTC_ZONES = new Set([
  "UTC",
  "Etc/UTC",
  "Etc/UCT",
  "UCT",
  "Etc/GMT",
  "GMT",
  "Etc/Universal",
  "Universal",
  "Zulu",
  "Etc/Zulu",
]);

/**
 * Per database and meter, the last `through` seen. It only grows (a rebuild resets it to 0, which
 * the statement itself detects), so an old value is still a correct lower bound: the statement uses
 * it for the planner's estimate and the current value for the answer.
 */
const hints = new WeakMap<Db, Map<string, number>>();
const HINTS_KEPT = 10_000;

/** A meter not built yet costs one small lookup per read until it is. */
async function hintOf(db: Db, meterId: string): Promise<number> {
  const known = hints.get(db)?.get(meterId);
  if (known) return known;
  const [row] = await queryRows<{ through: string }>(
    db,
    sql`select through from ${meterRollupState} where meter_id = ${meterId}`,
  );
  const through = row ? Number(row.through) : 0;
  remember(db, meterId, through);
  return through;
}

function remember(db: Db, meterId: string, through: number): void {
  const byMeter = hints.get(db) ?? new Map<string, number>();
  hints.set(db, byMeter);
  byMeter.delete(meterId);
  if (through > 0) byMeter.set(meterId, through);
  if (byMeter.size > HINTS_KEPT) byMeter.delete(byMeter.keys().next().value!);
}

/**
 * The aggregate over partial rows (e events, n numeric values, s their sum, mn/mx, u one distinct
 * value of a unique meter), as float8.
 */
function finalOf(a: MeterAggregation): SQL {
  switch (a.func) {
    case "unique":
      return sql`count(distinct u)::float8`;
    case "count":
      return sql`coalesce(sum(e), 0)::float8`;
    case "sum":
      return sql`coalesce(sum(s), 0)::float8`;
    case "min":
      return sql`coalesce(min(mn), 0)::float8`;
    case "max":
      return sql`coalesce(max(mx), 0)::float8`;
    case "avg":
      return sql`coalesce(sum(s) / nullif(sum(n), 0), 0)::float8`;
  }
}

type RollupRow = Row & { rollups: boolean; through: string | null };

/**
 * The quantities from rollups, null when `guard` was false, or undefined when rollups cannot answer
 * this read (no meter id, a metadata filter, no whole hour, rollups not built, or a unique meter's
 * hour with more distinct values than the rollups keep).
 */
export async function rollupQuantities(
  db: Db,
  q: QuantitiesInput,
  guard: SQL = sql`true`,
): Promise<Quantities | null | undefined> {
  if (!q.meterId || Object.keys(q.metadata).length > 0) return undefined;
  const hlo = Math.ceil(q.start.getTime() / HOUR) * HOUR;
  const hhi = Math.floor(q.end.getTime() / HOUR) * HOUR;
  if (hlo >= hhi) return undefined;
  const hint = await hintOf(db, q.meterId);
  if (hint <= 0) return undefined;
  const rows = await queryRows<RollupRow>(
    db,
    rollupSql(q, q.meterId, new Date(hlo), new Date(hhi), hint, guard),
  );
  if (rows.some((r) => !r.fresh)) return null;
  if (!rows[0]?.rollups) {
    remember(db, q.meterId, 0);
    return undefined;
  }
  remember(db, q.meterId, Number(rows[0].through));
  return quantitiesOf(rows);
}

export function rollupSql(
  q: QuantitiesInput,
  meterId: string,
  hloDate: Date,
  hhiDate: Date,
  hint: number,
  guard: SQL = sql`true`,
): SQL {
  const hlo = sql`${hloDate.toISOString()}::timestamptz`;
  const hhi = sql`${hhiDate.toISOString()}::timestamptz`;
  const start = sql`${q.start.toISOString()}::timestamptz`;
  const end = sql`${q.end.toISOString()}::timestamptz`;
  const iv = sql`${q.interval}::text`;
  const tz = sql`${q.timezone}::text`;
  const ok = sql`(select ok from use)`;
  const perCustomer = Boolean(q.customerIds || q.externalCustomerIds);
  const table = perCustomer ? meterCustomerHourly : meterHourly;
  const rollupConds: SQL[] = [];
  if (q.customerIds) rollupConds.push(sql`r.customer_id in ${q.customerIds}`);
  if (q.externalCustomerIds)
    rollupConds.push(sql`r.external_customer_id in ${q.externalCustomerIds}`);
  const rollupWhere =
    rollupConds.length > 0 ? sql`and ${sql.join(rollupConds, sql` and `)}` : sql``;
  const conds = sql.join(eventConditions(q), sql` and `);
  const unique = q.aggregation.func === "unique";
  const value = aggregationValue(q.aggregation);
  // The value as the raw path reads it: text for a unique meter (u), numeric for the others (v).
  const values = unique
    ? sql`select null::numeric as v, (${value})::text as u`
    : sql`select (${value})::numeric as v, null::text as u`;
  const raw = (where: SQL, from: SQL = sql`${events}`) => sql`
    select date_trunc(${iv}, ${events.timestamp}, ${tz}) as bucket, 1 as e, (p.v is not null)::int as n,
           coalesce(p.v, 0) as s, p.v as mn, p.v as mx, p.u as u
    from ${from} cross join lateral (${values}) p
    where ${conds} and ${where} and ${ok}`;
  // A rollup row's distinct values, one part each (a unique meter), or the row itself as one part.
  const distinct = unique ? sql`cross join lateral unnest(r.distinct_values) as dv(u)` : sql``;
  const u = unique ? sql`dv.u` : sql`null::text`;
  const rolled = sql`${events.ingestXid} < (select through from st)`;
  const pending = sql`${events.ingestXid} >= ${hint} and ${events.ingestXid} < ${XID_CEILING}
        and ${events.ingestXid} >= (select through from st)`;
  const ts = events.timestamp;
  /**
   * A partial hour at an edge. Mostly covered (and count, sum or avg): that hour's rollup minus the
   * rolled-up events outside the period, plus its events not rolled up yet, so the cost does not grow
   * with the events per hour. Otherwise, or when a bucket boundary cuts that hour: its raw events.
   */
  const edge = (hour: Date, part: SQL, outside: SQL, mostly: boolean): SQL => {
    if (!mostly || !ADDITIVE.has(q.aggregation.func)) return raw(part);
    const h = sql`${hour.toISOString()}::timestamptz`;
    const whole = sql`(date_trunc(${iv}, ${h}, ${tz}) = date_trunc(${iv}, ${h} + interval '1 hour' - interval '1 microsecond', ${tz}))`;
    return sql`${raw(sql`${part} and not ${whole}`)}
      union all
      select date_trunc(${iv}, r.hour, ${tz}), r.event_count, r.value_count, r.sum, r.min, r.max, null::text
      from ${table} r
      where r.meter_id = ${meterId} and r.hour = ${h} and ${whole} and ${ok} ${rollupWhere}
      union all
      select date_trunc(${iv}, ${ts}, ${tz}), -1, -((p.v is not null)::int), -coalesce(p.v, 0), null::numeric, null::numeric, null::text
      from ${events} cross join lateral (${values}) p
      where ${conds} and ${outside} and ${rolled} and ${whole} and ${ok}
      union all ${raw(sql`${part} and ${pending} and ${whole}`)}`;
  };
  const startHour = new Date(hloDate.getTime() - HOUR);
  const startEdge = edge(
    startHour,
    sql`${ts} >= ${start} and ${ts} < ${hlo}`,
    sql`${ts} >= ${startHour.toISOString()}::timestamptz and ${ts} < ${start}`,
    hloDate.getTime() - q.start.getTime() > HOUR / 2,
  );
  // Planning each branch over every partition costs more than running it: branches that can only
  // be empty are left out (no start edge when the period starts on the hour; no cut hours in UTC).
  const cuts = !UTC_ZONES.has(q.timezone);
  const notCut = (hour: SQL) => (cuts ? sql`and ${hour} not in (select h from cut)` : sql``);
  const endEdge = edge(
    hhiDate,
    sql`${ts} >= ${hhi} and ${ts} <= ${end}`,
    sql`${ts} > ${end} and ${ts} < ${hhi} + interval '1 hour'`,
    q.end.getTime() - hhiDate.getTime() >= HOUR / 2,
  );
  return sql`
    with guard as (select (${guard}) as ok), st as (
      select through from ${meterRollupState}
      where meter_id = ${meterId} and filter = ${JSON.stringify(q.filter)}::jsonb
        and aggregation = ${JSON.stringify(q.aggregation)}::jsonb and through > 0
    ), use as (
      select (select ok from guard) and exists (select 1 from st)${
        unique
          ? sql` and not exists (select 1 from ${table} r where r.meter_id = ${meterId}
              and r.hour >= ${hlo} and r.hour < ${hhi} and r.distinct_values is null ${rollupWhere})`
          : sql``
      } as ok
    ), buckets as (
      select ts from ${bucketSeries(q)}
    ), cut as (
      select date_trunc('hour', ts, 'UTC') as h from buckets
      where ts > ${hlo} and ts < ${hhi} and ts <> date_trunc('hour', ts, 'UTC')
    ), parts as (
      select date_trunc(${iv}, r.hour, ${tz}) as bucket, r.event_count as e, r.value_count as n,
             r.sum as s, r.min as mn, r.max as mx, ${u} as u
      from ${table} r ${distinct}
      where r.meter_id = ${meterId} and r.hour >= ${hlo} and r.hour < ${hhi}
        ${rollupWhere} ${notCut(sql`r.hour`)} and ${ok}
      ${q.start.getTime() < hloDate.getTime() ? sql`union all ${startEdge}` : sql``}
      union all ${endEdge}
      ${
        cuts
          ? sql`union all ${raw(
              sql`true`,
              // One index range scan per cut hour (offset 0 keeps the planner from turning it into a join
              // over every event of the organization).
              sql`cut cross join lateral (
          select * from ${events} where ${events.organizationId} = ${q.organizationId}
            and ${events.timestamp} >= cut.h and ${events.timestamp} < cut.h + interval '1 hour' offset 0
        ) as ${events}`,
            )}`
          : sql``
      }
      union all ${raw(sql`${events.timestamp} >= ${hlo} and ${events.timestamp} < ${hhi} and ${pending}
        ${notCut(sql`date_trunc('hour', ${events.timestamp}, 'UTC')`)}`)}
    ), agg as (
      select bucket, grouping(bucket) as g, ${finalOf(q.aggregation)} as q
      from parts group by grouping sets ((bucket), ())
    )
    select to_char(b.ts at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as "timestamp", coalesce(a.q, 0)::float8 as quantity,
           false as is_total, (select ok from guard) as fresh, ${ok} as rollups, (select through from st)::text as through
    from buckets b
    left join agg a on a.g = 0 and a.bucket = b.ts
    union all
    select null, coalesce((select q from agg where g = 1), 0)::float8, true, (select ok from guard), ${ok},
           (select through from st)::text`;
}

/**
 * The quantities, or null when `guard` was false (the caller's view of the meter is stale). With a
 * meterId and usable rollups the rollup statement answers; if its own snapshot finds them unusable
 * after all (a definition changed, a rebuild started), the raw statement answers instead.
 */
export async function meterQuantities(
  db: Db,
  q: QuantitiesInput,
  guard?: SQL,
): Promise<Quantities | null> {
  const viaRollups = await rollupQuantities(db, q, guard);
  if (viaRollups !== undefined) return viaRollups;
  return rawQuantities(db, q, guard);
}
