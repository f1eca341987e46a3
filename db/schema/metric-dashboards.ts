// Metric dashboards: a seller's named selection of metric slugs, shown together in the dashboard.
// The slugs are checked against the metrics till computes when written, not by the database.
import { index, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { id, timestamps } from "./columns.ts";
import { organizationRef } from "./owned.ts";

export const metricDashboards = pgTable(
  "metric_dashboards",
  {
    id: id(),
    organizationId: organizationRef(),
    name: text("name").notNull(),
    metrics: jsonb("metrics").$type<string[]>().notNull().default([]),
    ...timestamps(),
  },
  (t) => [index("metric_dashboards_org_idx").on(t.organizationId, t.createdAt)],
);
