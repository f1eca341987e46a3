// Metric dashboards: named selections of the metrics GET /v1/metrics/ computes. A slug till does not
// compute is refused on write (422 on its index), so a dashboard never names a metric it cannot show.
import type { Db } from "../../../db/client.ts";
import { organizationForWrite, type AuthContext } from "../../lib/auth-context.ts";
import type { Clock } from "../../lib/clock.ts";
import { RequestValidationError, ResourceNotFound } from "../../lib/errors.ts";
import { scopeOfCaller } from "../../lib/org-scope.ts";
import { METRICS } from "../metrics/schemas.ts";
import * as repo from "./repository.ts";
import {
  serializeMetricDashboard,
  type MetricDashboardCreate,
  type MetricDashboardListQuery,
  type MetricDashboardUpdate,
} from "./schemas.ts";

export interface MetricDashboardDeps {
  db: Db;
  clock: Clock;
}

const KNOWN = new Set(METRICS.map((m) => m.slug));

function checkSlugs(metrics: string[]): string[] {
  const unknown = metrics.findIndex((slug) => !KNOWN.has(slug));
  if (unknown >= 0)
    throw RequestValidationError.field(
      ["body", "metrics", unknown],
      `Unknown metric: ${metrics[unknown]}.`,
    );
  return [...new Set(metrics)];
}

export async function listDashboards(
  deps: MetricDashboardDeps,
  ctx: AuthContext,
  q: MetricDashboardListQuery,
) {
  const rows = await repo.listDashboards(deps.db, scopeOfCaller(ctx, q.organization_id));
  return rows.map(serializeMetricDashboard);
}

export async function getDashboard(deps: MetricDashboardDeps, ctx: AuthContext, id: string) {
  const row = await repo.findDashboard(deps.db, scopeOfCaller(ctx), id);
  if (!row) throw new ResourceNotFound("Metric dashboard not found.");
  return serializeMetricDashboard(row);
}

export async function createDashboard(
  deps: MetricDashboardDeps,
  ctx: AuthContext,
  input: MetricDashboardCreate,
) {
  const metrics = checkSlugs(input.metrics);
  const organizationId = organizationForWrite(ctx, input.organization_id);
  const row = await repo.insertDashboard(deps.db, {
    organizationId,
    name: input.name,
    metrics,
    createdAt: deps.clock.now(),
  });
  return serializeMetricDashboard(row);
}

export async function updateDashboard(
  deps: MetricDashboardDeps,
  ctx: AuthContext,
  id: string,
  input: MetricDashboardUpdate,
) {
  const current = await repo.findDashboard(deps.db, scopeOfCaller(ctx), id);
  if (!current) throw new ResourceNotFound("Metric dashboard not found.");
  const row = await repo.updateDashboard(deps.db, current.id, {
    ...(input.name != null ? { name: input.name } : {}),
    ...(input.metrics != null ? { metrics: checkSlugs(input.metrics) } : {}),
    modifiedAt: deps.clock.now(),
  });
  return serializeMetricDashboard(row);
}

export async function deleteDashboard(deps: MetricDashboardDeps, ctx: AuthContext, id: string) {
  const current = await repo.findDashboard(deps.db, scopeOfCaller(ctx), id);
  if (!current) throw new ResourceNotFound("Metric dashboard not found.");
  await repo.deleteDashboard(deps.db, current.id);
}
