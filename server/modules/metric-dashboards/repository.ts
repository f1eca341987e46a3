// SQL for metric dashboards, every read and write narrowed to the caller's organizations.
import { and, asc, eq } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { metricDashboards } from "../../../db/schema/index.ts";
import type { OrgScope } from "../../lib/org-scope.ts";
import { inScope } from "../../lib/org-scope-sql.ts";
import type { MetricDashboardRow } from "./schemas.ts";

export async function listDashboards(db: Db, scope: OrgScope): Promise<MetricDashboardRow[]> {
  if (scope.length === 0) return [];
  return db
    .select()
    .from(metricDashboards)
    .where(inScope(metricDashboards.organizationId, scope))
    .orderBy(asc(metricDashboards.createdAt), asc(metricDashboards.id));
}

export async function findDashboard(
  db: Db,
  scope: OrgScope,
  id: string,
): Promise<MetricDashboardRow | null> {
  if (scope.length === 0) return null;
  const [row] = await db
    .select()
    .from(metricDashboards)
    .where(and(eq(metricDashboards.id, id), inScope(metricDashboards.organizationId, scope)))
    .limit(1);
  return row ?? null;
}

export async function insertDashboard(
  db: Db,
  values: typeof metricDashboards.$inferInsert,
): Promise<MetricDashboardRow> {
  const [row] = await db.insert(metricDashboards).values(values).returning();
  return row!;
}

export async function updateDashboard(
  db: Db,
  id: string,
  values: Partial<typeof metricDashboards.$inferInsert>,
): Promise<MetricDashboardRow> {
  const [row] = await db
    .update(metricDashboards)
    .set(values)
    .where(eq(metricDashboards.id, id))
    .returning();
  return row!;
}

export async function deleteDashboard(db: Db, id: string): Promise<void> {
  await db.delete(metricDashboards).where(eq(metricDashboards.id, id));
}
