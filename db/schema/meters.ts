// Meters: a filter over usage events and an aggregation that turns them into a billable quantity.
import { index, integer, jsonb, pgTable, text, uuid } from "drizzle-orm/pg-core";
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
