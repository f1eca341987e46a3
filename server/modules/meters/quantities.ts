// A meter's quantities over a period, computed in one SQL statement: the events the meter's filter
// selects are bucketed with date_trunc in the requested time zone, aggregated per bucket and in
// total (GROUPING SETS, one scan), and joined to generate_series so empty buckets answer 0.
// A meter with rollups reads them for the whole hours instead (rollup-read.ts), with raw events only
// for the partial edges and the events not rolled up yet; this raw statement is the fallback.
import { sql, type SQL } from "drizzle-orm";
import { queryRows, type Db } from "../../../db/client.ts";
import { events, type MeterAggregation, type MeterFilter } from "../../../db/schema/index.ts";
import { metadataCondition } from "../../lib/metadata.ts";
import { aggregateOf, aggregationValue, filterCondition } from "../events/filter.ts";

export interface QuantitiesInput {
  /** The meter read: given, its rollups may serve the read (when they match filter and aggregation). */
  meterId?: string | undefined;
  organizationId: string;
  filter: MeterFilter;
  aggregation: MeterAggregation;
  start: Date;
  end: Date;
  interval: "hour" | "day" | "week" | "month" | "year";
  timezone: string;
  customerIds?: string[] | undefined;
  externalCustomerIds?: string[] | undefined;
  metadata: Record<string, string[]>;
}

export interface Quantities {
  quantities: { timestamp: string; quantity: number }[];
  total: number;
}

/**
 * The statement, exposed so the benchmark can run the very same SQL directly. `guard` is a boolean
 * checked in the same snapshot: when it is false nothing is scanned and every row says fresh = false.
 */
export function quantitiesSql(q: QuantitiesInput, guard: SQL = sql`true`): SQL {
  const conds = [
    ...eventConditions(q),
    sql`${events.timestamp} >= ${q.start.toISOString()}::timestamptz`,
    sql`${events.timestamp} <= ${q.end.toISOString()}::timestamptz`,
  ];
  return sql`
    with guard as (select (${guard}) as ok), selected as (
      select date_trunc(${q.interval}::text, ${events.timestamp}, ${q.timezone}::text) as bucket, ${aggregationValue(q.aggregation)} as v
      from ${events}
      where ${sql.join(conds, sql` and `)} and (select ok from guard)
    ), agg as (
      select bucket, grouping(bucket) as g, ${aggregateOf(q.aggregation, sql`v`)} as q
      from selected
      group by grouping sets ((bucket), ())
    )
    select to_char(b.ts at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as "timestamp", coalesce(a.q, 0)::float8 as quantity, false as is_total, (select ok from guard) as fresh
    from ${bucketSeries(q)}
    left join agg a on a.g = 0 and a.bucket = b.ts
    union all
    select null, coalesce((select q from agg where g = 1), 0)::float8, true, (select ok from guard)
  `;
}

/** What selects a meter's events, apart from the period: organization, filter, customers, metadata. */
export function eventConditions(q: QuantitiesInput): SQL[] {
  const conds: SQL[] = [
    sql`${events.organizationId} = ${q.organizationId}`,
    filterCondition(q.filter),
  ];
  if (q.customerIds) conds.push(sql`${events.customerId} in ${q.customerIds}`);
  if (q.externalCustomerIds)
    conds.push(sql`${events.externalCustomerId} in ${q.externalCustomerIds}`);
  const meta = metadataCondition(events.metadata, q.metadata);
  if (meta) conds.push(meta);
  return conds;
}

export type Row = {
  timestamp: string | null;
  quantity: number | string;
  is_total: boolean;
  fresh: boolean;
};

/**
 * Bucket starts from the one holding start to the one holding end. Hours step in absolute time
 * (zones with half-hour offsets still start at their own :30). Days and longer step in the zone's
 * wall-clock time and are converted back, so a day is a local day across DST changes. (PostgreSQL 16
 * has generate_series(…, timezone); this form also runs on 15.)
 */
export function bucketSeries(q: QuantitiesInput): SQL {
  const start = sql`date_trunc(${q.interval}::text, ${q.start.toISOString()}::timestamptz, ${q.timezone}::text)`;
  const end = sql`${q.end.toISOString()}::timestamptz`;
  const step = sql`${`1 ${q.interval}`}::interval`;
  if (q.interval === "hour") return sql`generate_series(${start}, ${end}, ${step}) as b(ts)`;
  return sql`(select l at time zone ${q.timezone}::text as ts from generate_series(${start} at time zone ${q.timezone}::text, ${end} at time zone ${q.timezone}::text, ${step}) as l) as b`;
}

/** The raw path alone: every selected event of the period aggregated. */
export async function rawQuantities(
  db: Db,
  q: QuantitiesInput,
  guard?: SQL,
): Promise<Quantities | null> {
  return quantitiesOf(await queryRows<Row>(db, quantitiesSql(q, guard)));
}

export function quantitiesOf(rows: Row[]): Quantities | null {
  if (rows.some((r) => !r.fresh)) return null;
  const quantities: Quantities["quantities"] = [];
  let total = 0;
  for (const r of rows) {
    if (r.is_total) total = Number(r.quantity);
    else quantities.push({ timestamp: r.timestamp!, quantity: Number(r.quantity) });
  }
  quantities.sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0));
  return { quantities, total };
}
