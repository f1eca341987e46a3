// SQL for discounts. Every read takes an OrgScope (lib/org-scope.ts) and filters by it in SQL, the
// product links through their discount; writes go by the id of a discount read under a scope.
// Deleted discounts (soft delete) are invisible to the seller's reads and free their code for reuse.
import {
  and,
  asc,
  count,
  eq,
  ilike,
  inArray,
  isNull,
  lt,
  ne,
  or,
  sql,
  type SQL,
} from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { discountProducts, discounts } from "../../../db/schema/index.ts";
import type { OrgScope } from "../../lib/org-scope.ts";
import { containsPattern } from "../../lib/query.ts";
import type { DISCOUNT_SORTS, DiscountRow } from "./schemas.ts";
import { anyOf } from "../../../db/bulk.ts";

export type { DiscountRow };

const live = isNull(discounts.deletedAt);
const inScope = (scope: OrgScope) => inArray(discounts.organizationId, [...scope]);

export async function insertDiscount(
  db: Db,
  values: typeof discounts.$inferInsert,
): Promise<DiscountRow> {
  const [row] = await db.insert(discounts).values(values).returning();
  return row!;
}

/** A live discount in the scope. */
export async function findDiscount(
  db: Db,
  scope: OrgScope,
  id: string,
): Promise<DiscountRow | null> {
  if (scope.length === 0) return null;
  const [row] = await db
    .select()
    .from(discounts)
    .where(and(eq(discounts.id, id), inScope(scope), live))
    .limit(1);
  return row ?? null;
}

/** A discount in the scope, deleted ones too: checkouts, orders and subscriptions keep theirs. */
export async function findDiscountEvenDeleted(
  db: Db,
  scope: OrgScope,
  id: string,
): Promise<DiscountRow | null> {
  if (scope.length === 0) return null;
  const [row] = await db
    .select()
    .from(discounts)
    .where(and(eq(discounts.id, id), inScope(scope)))
    .limit(1);
  return row ?? null;
}

/** Whether a live discount in the scope has this code (ignoring case), other than `exceptId`. */
export async function codeTaken(
  db: Db,
  scope: OrgScope,
  code: string,
  exceptId?: string,
): Promise<boolean> {
  if (scope.length === 0) return false;
  const conds = [inScope(scope), sql`lower(${discounts.code}) = lower(${code})`, live];
  if (exceptId) conds.push(ne(discounts.id, exceptId));
  const [row] = await db
    .select({ id: discounts.id })
    .from(discounts)
    .where(and(...conds))
    .limit(1);
  return Boolean(row);
}

const SORTS = {
  created_at: discounts.createdAt,
  name: discounts.name,
  code: discounts.code,
  redemptions_count: discounts.redemptionsCount,
  ends_at: discounts.endsAt,
} as const;

export async function listDiscounts(
  db: Db,
  scope: OrgScope,
  query: string | undefined,
  sorting: { key: (typeof DISCOUNT_SORTS)[number]; desc: boolean }[],
  limit: number,
  offset: number,
): Promise<{ rows: DiscountRow[]; total: number }> {
  if (scope.length === 0) return { rows: [], total: 0 };
  const conds: (SQL | undefined)[] = [inScope(scope), live];
  if (query) {
    const pattern = containsPattern(query);
    conds.push(or(ilike(discounts.name, pattern), ilike(discounts.code, pattern)));
  }
  const where = and(...conds);
  const order = sorting.map((s) =>
    s.desc ? sql`${SORTS[s.key]} desc nulls last` : sql`${SORTS[s.key]} asc nulls last`,
  );
  const [rows, [totals]] = await Promise.all([
    db
      .select()
      .from(discounts)
      .where(where)
      .orderBy(...order, asc(discounts.id))
      .limit(limit)
      .offset(offset),
    db.select({ n: count() }).from(discounts).where(where),
  ]);
  return { rows, total: totals!.n };
}

export async function updateDiscount(
  db: Db,
  id: string,
  values: Partial<typeof discounts.$inferInsert>,
): Promise<DiscountRow> {
  const [row] = await db.update(discounts).set(values).where(eq(discounts.id, id)).returning();
  return row!;
}

/** The product links of the discounts among `discountIds` in the scope (deleted ones too). */
export async function productLinksOf(db: Db, scope: OrgScope, discountIds: string[]) {
  if (discountIds.length === 0 || scope.length === 0) return [];
  const scoped = db
    .select({ id: discounts.id })
    .from(discounts)
    .where(and(anyOf(discounts.id, discountIds), inScope(scope)));
  return db.select().from(discountProducts).where(inArray(discountProducts.discountId, scoped));
}

export async function setProducts(db: Db, discountId: string, productIds: string[]): Promise<void> {
  await db.delete(discountProducts).where(eq(discountProducts.discountId, discountId));
  if (productIds.length > 0)
    await db
      .insert(discountProducts)
      .values(productIds.map((productId) => ({ discountId, productId })));
}

/**
 * Takes one redemption if any is left (atomic, no race); null when max_redemptions is reached. The
 * row stays locked until the caller's transaction ends, so a per-customer count read after this
 * sees every other redemption of the discount that committed.
 */
export async function redeem(
  db: Db,
  id: string,
): Promise<{ maxRedemptionsPerCustomer: number | null } | null> {
  const rows = await db
    .update(discounts)
    .set({ redemptionsCount: sql`${discounts.redemptionsCount} + 1` })
    .where(
      and(
        eq(discounts.id, id),
        isNull(discounts.deletedAt),
        or(
          isNull(discounts.maxRedemptions),
          lt(discounts.redemptionsCount, discounts.maxRedemptions),
        ),
      ),
    )
    .returning({ maxRedemptionsPerCustomer: discounts.maxRedemptionsPerCustomer });
  return rows[0] ?? null;
}

/** Gives back a redemption taken by a checkout whose payment failed. */
export async function release(db: Db, id: string): Promise<void> {
  await db
    .update(discounts)
    .set({ redemptionsCount: sql`greatest(${discounts.redemptionsCount} - 1, 0)` })
    .where(eq(discounts.id, id));
}

/** The live discount in the scope with this code (ignoring case). */
export async function findByCode(
  db: Db,
  scope: OrgScope,
  code: string,
): Promise<DiscountRow | null> {
  if (scope.length === 0) return null;
  const [row] = await db
    .select()
    .from(discounts)
    .where(and(inScope(scope), live, sql`lower(${discounts.code}) = lower(${code})`))
    .limit(1);
  return row ?? null;
}
