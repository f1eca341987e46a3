// Meters: a filter over usage events and an aggregation that turns them into a billable quantity.
import {
  type AnyPgColumn,
  bigint,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  unique,
  uuid,
} from "drizzle-orm/pg-core";
import { organization } from "./auth.ts";
import { createdAt, id, modifiedAt, tstz } from "./columns.ts";

export interface MeterFilterClause {
  property: string;
  operator: "eq" | "ne" | "gt" | "gte" | "lt" | "lte" | "like" | "not_like";
  value: string | number | boolean;
}
export interface MeterFilter {
  conjunction: "and" | "or";
  clauses: (MeterFilterClause | MeterFilter)[];
}
export type MeterAggregation =
  | { func: "count" }
  | { func: "sum" | "max" | "min" | "avg"; property: string }
  | { func: "unique"; property: string };

export const meters = pgTable(
  "meters",
  {
    id: id(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organization.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    unit: text("unit").notNull().default("scalar"),
    customLabel: text("custom_label"),
    customMultiplier: integer("custom_multiplier"),
    filter: jsonb("filter").$type<MeterFilter>().notNull(),
    aggregation: jsonb("aggregation").$type<MeterAggregation>().notNull(),
    metadata: jsonb("metadata")
      .$type<Record<string, string | number | boolean>>()
      .notNull()
      .default({}),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
    archivedAt: tstz("archived_at"),
  },
  (t) => [index("meters_org_created_idx").on(t.organizationId, t.createdAt)],
);

// Hourly rollups of meters (see server/modules/meters/rollups.ts). Each meter's rollups hold exactly
// the events with ingest_xid < `through` that its `filter` selects, aggregated per UTC hour; reads add
// raw events for the rest. A meter whose definition differs from the one recorded here is rebuilt
// (its rollups deleted, `through` reset to 0) and read from raw events until the rebuild is done.
// A rebuild runs in chunks of event ids, each its own short transaction: it has read the events with
// ingest_xid < `rebuildHorizon` and id <= `rebuiltThrough` so far; done, `through` becomes the horizon.
export const meterRollupState = pgTable("meter_rollup_state", {
  meterId: uuid("meter_id")
    .primaryKey()
    .references(() => meters.id, { onDelete: "cascade" }),
  filter: jsonb("filter").$type<MeterFilter>().notNull(),
  aggregation: jsonb("aggregation").$type<MeterAggregation>().notNull(),
  through: bigint("through", { mode: "number" }).notNull().default(0),
  rebuildHorizon: bigint("rebuild_horizon", { mode: "number" }),
  rebuiltThrough: uuid("rebuilt_through"),
});

// The aggregates an hour keeps: count of events, and over the numeric values the aggregation reads,
// their count (for avg), sum, min and max. Numeric sums stay exact, as in the raw path. A `unique`
// meter keeps the hour's distinct values instead (as text, as the raw path compares them), or null
// once there are more than the rollups keep: reads touching such an hour use raw events.
const partials = () => ({
  eventCount: bigint("event_count", { mode: "number" }).notNull(),
  valueCount: bigint("value_count", { mode: "number" }).notNull(),
  sum: numeric("sum").notNull(),
  min: numeric("min"),
  max: numeric("max"),
  distinctValues: text("distinct_values").array(),
});

/** Organization-wide: one row per (meter, hour), so a month of one meter is ~720 rows. */
export const meterHourly = pgTable(
  "meter_hourly",
  {
    meterId: uuid("meter_id")
      .notNull()
      .references(() => meters.id, { onDelete: "cascade" }),
    hour: tstz("hour").notNull(),
    ...partials(),
  },
  (t) => [primaryKey({ columns: [t.meterId, t.hour] })],
);

/** The partial aggregates a read of count, sum, min, max or avg takes from a rollup row. */
const covered = (t: {
  eventCount: AnyPgColumn;
  valueCount: AnyPgColumn;
  sum: AnyPgColumn;
  min: AnyPgColumn;
  max: AnyPgColumn;
}) => [t.eventCount, t.valueCount, t.sum, t.min, t.max];

/** Per customer: the customer columns as the events carry them, so both customer filters apply. */
export const meterCustomerHourly = pgTable(
  "meter_customer_hourly",
  {
    meterId: uuid("meter_id")
      .notNull()
      .references(() => meters.id, { onDelete: "cascade" }),
    hour: tstz("hour").notNull(),
    customerId: uuid("customer_id"),
    externalCustomerId: text("external_customer_id"),
    ...partials(),
  },
  (t) => [
    unique("meter_customer_hourly_key")
      .on(t.meterId, t.hour, t.customerId, t.externalCustomerId)
      .nullsNotDistinct(),
    // The partial aggregates trail the keys so a customer's period is an index-only scan: its ~720
    // rows of a month lie on a few index pages, where the heap scatters them over as many pages as
    // rows (rows are written hour by hour for every customer). (drizzle cannot declare INCLUDE.)
    index("meter_customer_hourly_customer_idx").on(t.meterId, t.customerId, t.hour, ...covered(t)),
    index("meter_customer_hourly_external_idx").on(
      t.meterId,
      t.externalCustomerId,
      t.hour,
      ...covered(t),
    ),
  ],
);
