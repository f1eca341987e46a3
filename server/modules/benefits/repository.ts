// SQL for benefits. Every read takes an OrgScope (lib/org-scope.ts) and filters by it in SQL; writes
// go by the id of a benefit read under a scope. Deleted benefits (soft delete) are invisible to the
// seller's reads; grants still read theirs (benefitsByIds).
import { and, asc, count, desc, eq, ilike, inArray, isNull, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { benefits } from "../../../db/schema/index.ts";
import type { OrgScope } from "../../lib/org-scope.ts";
import { metadataConditions, type MetadataFilter } from "../../lib/metadata.ts";
import { containsPattern } from "../../lib/query.ts";
import type { BENEFIT_SORTS, BenefitRow } from "./schemas.ts";
import { anyOf, noneOf } from "../../../db/bulk.ts";

export type { BenefitRow };

const live = isNull(benefits.deletedAt);
const inScope = (scope: OrgScope) => inArray(benefits.organizationId, [...scope]);

export async function insertBenefit(
  db: Db,
  values: typeof benefits.$inferInsert,
): Promise<BenefitRow> {
  const [row] = await db.insert(benefits).values(values).returning();
  return row!;
}

/** A live benefit in the scope. */
export async function findBenefit(db: Db, scope: OrgScope, id: string): Promise<BenefitRow | null> {
  if (scope.length === 0) return null;
  const [row] = await db
    .select()
    .from(benefits)
    .where(and(eq(benefits.id, id), inScope(scope), live))
    .limit(1);
  return row ?? null;
}

/** The live benefits among `ids` in the scope. */
export async function findBenefits(db: Db, scope: OrgScope, ids: string[]): Promise<BenefitRow[]> {
  if (ids.length === 0 || scope.length === 0) return [];
  return db
    .select()
    .from(benefits)
    .where(and(inScope(scope), anyOf(benefits.id, ids), live));
}

/** Benefits among `ids` in the scope, deleted ones included (grants keep pointing at them). */
export async function benefitsByIds(db: Db, scope: OrgScope, ids: string[]): Promise<BenefitRow[]> {
  if (ids.length === 0 || scope.length === 0) return [];
  return db
    .select()
    .from(benefits)
    .where(and(inScope(scope), anyOf(benefits.id, ids)));
}

/** Ids of the live downloadables benefits in the scope offering this file. */
export async function downloadablesUsingFile(
  db: Db,
  scope: OrgScope,
  fileId: string,
): Promise<string[]> {
  if (scope.length === 0) return [];
  const rows = await db
    .select({ id: benefits.id })
    .from(benefits)
    .where(
      and(
        inScope(scope),
        eq(benefits.type, "downloadables"),
        live,
        sql`${benefits.properties} -> 'files' @> ${JSON.stringify(fileId)}::jsonb`,
      ),
    );
  return rows.map((r) => r.id);
}

const SORTS = {
  created_at: benefits.createdAt,
  user_order: benefits.createdAt,
  description: benefits.description,
  type: benefits.type,
} as const;

export interface BenefitFilter {
  types?: string[] | undefined;
  ids?: string[] | undefined;
  excludeIds?: string[] | undefined;
  query?: string | undefined;
  metadata: MetadataFilter;
}

export async function listBenefits(
  db: Db,
  scope: OrgScope,
  filter: BenefitFilter,
  sorting: { key: (typeof BENEFIT_SORTS)[number]; desc: boolean }[],
  limit: number,
  offset: number,
): Promise<{ rows: BenefitRow[]; total: number }> {
  if (scope.length === 0) return { rows: [], total: 0 };
  const conds: SQL[] = [
    inScope(scope),
    live,
    ...metadataConditions(benefits.metadata, filter.metadata),
  ];
  if (filter.types?.length) conds.push(inArray(benefits.type, filter.types));
  if (filter.ids?.length) conds.push(anyOf(benefits.id, filter.ids));
  if (filter.excludeIds?.length) conds.push(noneOf(benefits.id, filter.excludeIds));
  if (filter.query) conds.push(ilike(benefits.description, containsPattern(filter.query)));
  const where = and(...conds);
  const order = sorting.map((s) => (s.desc ? desc(SORTS[s.key]) : asc(SORTS[s.key])));
  const [rows, [totals]] = await Promise.all([
    db
      .select()
      .from(benefits)
      .where(where)
      .orderBy(...order, asc(benefits.id))
      .limit(limit)
      .offset(offset),
    db.select({ n: count() }).from(benefits).where(where),
  ]);
  return { rows, total: totals!.n };
}

export async function updateBenefit(
  db: Db,
  id: string,
  values: Partial<typeof benefits.$inferInsert>,
): Promise<BenefitRow> {
  const [row] = await db.update(benefits).set(values).where(eq(benefits.id, id)).returning();
  return row!;
}
