// SQL for custom fields, every read under an OrgScope.
import { and, asc, count, desc, eq, ilike, inArray, ne, or, type SQL } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import type { OrgScope } from "../../lib/org-scope.ts";
import { customFields } from "../../../db/schema/index.ts";
import { containsPattern } from "../../lib/query.ts";
import type { CUSTOM_FIELD_SORTS, CustomFieldRow } from "./schemas.ts";
import { anyOf } from "../../../db/bulk.ts";

export type { CustomFieldRow };

export async function insertCustomField(
  db: Db,
  values: typeof customFields.$inferInsert,
): Promise<CustomFieldRow> {
  const [row] = await db.insert(customFields).values(values).returning();
  return row!;
}

const inScope = (scope: OrgScope) => inArray(customFields.organizationId, [...scope]);

export async function findCustomField(
  db: Db,
  scope: OrgScope,
  id: string,
): Promise<CustomFieldRow | null> {
  if (scope.length === 0) return null;
  const [row] = await db
    .select()
    .from(customFields)
    .where(and(eq(customFields.id, id), inScope(scope)))
    .limit(1);
  return row ?? null;
}

/** The custom fields among `ids` in the scope. */
export async function findCustomFields(
  db: Db,
  scope: OrgScope,
  ids: string[],
): Promise<CustomFieldRow[]> {
  if (ids.length === 0 || scope.length === 0) return [];
  return db
    .select()
    .from(customFields)
    .where(and(inScope(scope), anyOf(customFields.id, ids)));
}

export async function slugTaken(
  db: Db,
  scope: OrgScope,
  slug: string,
  exceptId?: string,
): Promise<boolean> {
  if (scope.length === 0) return false;
  const conds = [inScope(scope), eq(customFields.slug, slug)];
  if (exceptId) conds.push(ne(customFields.id, exceptId));
  const [row] = await db
    .select({ id: customFields.id })
    .from(customFields)
    .where(and(...conds))
    .limit(1);
  return Boolean(row);
}

const SORTS = {
  created_at: customFields.createdAt,
  slug: customFields.slug,
  name: customFields.name,
  type: customFields.type,
} as const;

export interface CustomFieldFilter {
  query?: string | undefined;
  types?: string[] | undefined;
}

export async function listCustomFields(
  db: Db,
  scope: OrgScope,
  filter: CustomFieldFilter,
  sorting: { key: (typeof CUSTOM_FIELD_SORTS)[number]; desc: boolean }[],
  limit: number,
  offset: number,
): Promise<{ rows: CustomFieldRow[]; total: number }> {
  if (scope.length === 0) return { rows: [], total: 0 };
  const conds: (SQL | undefined)[] = [inScope(scope)];
  if (filter.query) {
    const pattern = containsPattern(filter.query);
    conds.push(or(ilike(customFields.name, pattern), ilike(customFields.slug, pattern)));
  }
  if (filter.types?.length) conds.push(inArray(customFields.type, filter.types));
  const where = and(...conds);
  const order = sorting.map((s) => (s.desc ? desc(SORTS[s.key]) : asc(SORTS[s.key])));
  const [rows, [totals]] = await Promise.all([
    db
      .select()
      .from(customFields)
      .where(where)
      .orderBy(...order, asc(customFields.id))
      .limit(limit)
      .offset(offset),
    db.select({ n: count() }).from(customFields).where(where),
  ]);
  return { rows, total: totals!.n };
}

export async function updateCustomField(
  db: Db,
  id: string,
  values: Partial<typeof customFields.$inferInsert>,
): Promise<CustomFieldRow> {
  const [row] = await db
    .update(customFields)
    .set(values)
    .where(eq(customFields.id, id))
    .returning();
  return row!;
}

/** Deleting a field also detaches it from every product (the foreign key cascades). */
export async function deleteCustomField(db: Db, id: string): Promise<void> {
  await db.delete(customFields).where(eq(customFields.id, id));
}
