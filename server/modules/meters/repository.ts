// SQL for meters.
import { and, asc, count, desc, eq, ilike, isNotNull, isNull, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { events, meters } from "../../../db/schema/index.ts";
import { metadataCondition } from "../../lib/metadata.ts";
import type { OrgScope } from "../../lib/org-scope.ts";
import { inScope } from "../../lib/org-scope-sql.ts";

export type MeterRow = typeof meters.$inferSelect;

/** A meter of the scope, or null (other organizations' meters do not exist). */
export async function findMeter(db: Db, scope: OrgScope, id: string): Promise<MeterRow | null> {
  if (scope.length === 0) return null;
  const [row] = await db
    .select()
    .from(meters)
    .where(and(eq(meters.id, id), inScope(meters.organizationId, scope)))
    .limit(1);
  return row ?? null;
}

const SORTS = { created_at: meters.createdAt, name: meters.name } as const;

export async function listMeters(
  db: Db,
  scope: OrgScope,
  filter: {
    query?: string | undefined;
    isArchived?: boolean | undefined;
    metadata: Record<string, string[]>;
  },
  sorting: { key: keyof typeof SORTS; desc: boolean }[],
  limit: number,
  offset: number,
): Promise<{ rows: MeterRow[]; total: number }> {
  if (scope.length === 0) return { rows: [], total: 0 };
  const conds: (SQL | undefined)[] = [inScope(meters.organizationId, scope)];
  if (filter.query)
    conds.push(ilike(meters.name, `%${filter.query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`));
  if (filter.isArchived === true) conds.push(isNotNull(meters.archivedAt));
  if (filter.isArchived === false) conds.push(isNull(meters.archivedAt));
  conds.push(metadataCondition(meters.metadata, filter.metadata));
  const where = and(...conds);
  const order = sorting.map((s) => (s.desc ? desc(SORTS[s.key]) : asc(SORTS[s.key])));
  const [rows, [totals]] = await Promise.all([
    db
      .select()
      .from(meters)
      .where(where)
      .orderBy(...order, asc(meters.id))
      .limit(limit)
      .offset(offset),
    db.select({ n: count() }).from(meters).where(where),
  ]);
  return { rows, total: totals!.n };
}

export async function insertMeter(db: Db, values: typeof meters.$inferInsert): Promise<MeterRow> {
  const [row] = await db.insert(meters).values(values).returning();
  return row!;
}

export async function updateMeter(
  db: Db,
  id: string,
  values: Partial<typeof meters.$inferInsert>,
): Promise<MeterRow> {
  const [row] = await db.update(meters).set(values).where(eq(meters.id, id)).returning();
  return row!;
}

/** True while the meter still exists in its organization with this filter and aggregation. */
export function definitionUnchanged(
  row: Pick<MeterRow, "id" | "organizationId" | "filter" | "aggregation">,
): SQL {
  return sql`exists (select 1 from ${meters} where ${meters.id} = ${row.id} and ${meters.organizationId} = ${row.organizationId}
    and ${meters.filter} = ${JSON.stringify(row.filter)}::jsonb and ${meters.aggregation} = ${JSON.stringify(row.aggregation)}::jsonb)`;
}

/**
 * The latest timestamp among a customer's events in the scope (one backward index scan for the
 * one organization of a meter), or null.
 */
export async function latestEventAt(
  db: Db,
  scope: OrgScope,
  customerId: string,
): Promise<Date | null> {
  if (scope.length === 0) return null;
  const [row] = await db
    .select({ at: events.timestamp })
    .from(events)
    .where(and(inScope(events.organizationId, scope), eq(events.customerId, customerId)))
    .orderBy(desc(events.timestamp))
    .limit(1);
  return row?.at ?? null;
}
