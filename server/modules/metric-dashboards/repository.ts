// SQL for metric dashboards, every read and write narrowed to the caller's organizations.
import { and, asc, eq, inArray } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { metricDashboards } from "../../../db/schema/index.ts";
import type { MetricDashboardRow } from "./schemas.ts";

export async function listDashboards(
  db: Db,
  organizationIds: readonly string[],
): Promise<MetricDashboardRow[]> {
  if (organizationIds.length === 0) return [];
  return db
    .select()
    .from(metricDashboards)
    .where(inArray(metricDashboards.organizationId, [...organizationIds]))
    .orderBy(asc(metricDashboards.createdAt), asc(metricDashboards.id));
}

export async function findDashboard(
  db: Db,
  organizationIds: readonly string[],
  id: string,
): Promise<MetricDashboardRow | null> {
  if (organizationIds.length === 0) return null;
  const [row] = await db
    .select()
    .from(metricDashboards)
    .where(
      and(
        eq(metricDashboards.id, id),
        inArray(metricDashboards.organizationId, [...organizationIds]),
      ),
    )
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
