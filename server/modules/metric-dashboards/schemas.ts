// Wire schemas for Polar's MetricDashboardCreate, MetricDashboardUpdate and MetricDashboardSchema.
import { z } from "zod";
import type { metricDashboards } from "../../../db/schema/index.ts";
import { queryList } from "../../lib/query.ts";
import { timestamped } from "../../lib/wire.ts";

export type MetricDashboardRow = typeof metricDashboards.$inferSelect;

const metricSlugs = z.array(z.string()).max(10);

export const metricDashboardListQuery = z.object({
  organization_id: queryList(z.uuid()).optional(),
});
export type MetricDashboardListQuery = z.output<typeof metricDashboardListQuery>;

export const metricDashboardCreate = z.object({
  name: z.string().min(1),
  metrics: metricSlugs.default([]),
  organization_id: z.uuid().nullish(),
});
export type MetricDashboardCreate = z.output<typeof metricDashboardCreate>;

export const metricDashboardUpdate = z.object({
  name: z.string().min(1).nullish(),
  metrics: metricSlugs.nullish(),
});
export type MetricDashboardUpdate = z.output<typeof metricDashboardUpdate>;

export const metricDashboardSchema = z
  .object({
    ...timestamped,
    name: z.string(),
    metrics: z.array(z.string()),
    organization_id: z.uuid(),
  })
  .meta({ id: "MetricDashboardSchema" });
export type MetricDashboardOut = z.output<typeof metricDashboardSchema>;

export function serializeMetricDashboard(d: MetricDashboardRow): MetricDashboardOut {
  return {
    created_at: d.createdAt.toISOString(),
    modified_at: d.modifiedAt?.toISOString() ?? null,
    id: d.id,
    name: d.name,
    metrics: d.metrics,
    organization_id: d.organizationId,
  };
}
