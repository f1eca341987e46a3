// SQL for discounts, scoped to organization ids. Deleted discounts (soft delete) are invisible here
// and free their code for reuse.
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
import { containsPattern } from "../../lib/query.ts";
import type { DISCOUNT_SORTS, DiscountRow } from "./schemas.ts";

export type { DiscountRow };

const live = isNull(discounts.deletedAt);

export async function insertDiscount(
  db: Db,
  values: typeof discounts.$inferInsert,
): Promise<DiscountRow> {
  const [row] = await db.insert(discounts).values(values).returning();
  return row!;
}

export async function findDiscount(
  db: Db,
  organizationIds: readonly string[],
  id: string,
): Promise<DiscountRow | null> {
  if (organizationIds.length === 0) return null;
  const [row] = await db
    .select()
    .from(discounts)
    .where(and(eq(discounts.id, id), inArray(discounts.organizationId, [...organizationIds]), live))
    .limit(1);
  return row ?? null;
}

export async function codeTaken(
  db: Db,
  organizationId: string,
  code: string,
  exceptId?: string,
): Promise<boolean> {
  const conds = [
    eq(discounts.organizationId, organizationId),
    sql`lower(${discounts.code}) = lower(${code})`,
    live,
  ];
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
  organizationIds: string[],
  query: string | undefined,
  sorting: { key: (typeof DISCOUNT_SORTS)[number]; desc: boolean }[],
  limit: number,
  offset: number,
): Promise<{ rows: DiscountRow[]; total: number }> {
  if (organizationIds.length === 0) return { rows: [], total: 0 };
  const conds: (SQL | undefined)[] = [inArray(discounts.organizationId, organizationIds), live];
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

export async function productLinksOf(db: Db, discountIds: string[]) {
  if (discountIds.length === 0) return [];
  return db
    .select()
    .from(discountProducts)
    .where(inArray(discountProducts.discountId, discountIds));
}

export async function setProducts(db: Db, discountId: string, productIds: string[]): Promise<void> {
  await db.delete(discountProducts).where(eq(discountProducts.discountId, discountId));
  if (productIds.length > 0)
    await db
      .insert(discountProducts)
      .values(productIds.map((productId) => ({ discountId, productId })));
}

/** Takes one redemption if any is left; false when max_redemptions is reached (atomic, no race). */
export async function redeem(db: Db, id: string): Promise<boolean> {
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
    .returning({ id: discounts.id });
  return rows.length === 1;
}

/** Gives back a redemption taken by a checkout whose payment failed. */
export async function release(db: Db, id: string): Promise<void> {
  await db
    .update(discounts)
    .set({ redemptionsCount: sql`greatest(${discounts.redemptionsCount} - 1, 0)` })
    .where(eq(discounts.id, id));
}

export async function findByCode(
  db: Db,
  organizationId: string,
  code: string,
): Promise<DiscountRow | null> {
  const [row] = await db
    .select()
    .from(discounts)
    .where(
      and(
        eq(discounts.organizationId, organizationId),
        isNull(discounts.deletedAt),
        sql`lower(${discounts.code}) = lower(${code})`,
      ),
    )
    .limit(1);
  return row ?? null;
}

export async function findAnyDiscount(db: Db, id: string): Promise<DiscountRow | null> {
  const [row] = await db.select().from(discounts).where(eq(discounts.id, id)).limit(1);
  return row ?? null;
}
