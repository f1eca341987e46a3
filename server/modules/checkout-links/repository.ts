// SQL for checkout links (soft-deleted: a deleted link stops selling, its sessions keep pointing at it).
// The seller's reads take an OrgScope (lib/org-scope.ts) and filter by it in SQL; a visitor's read
// goes by the link's secret, which is its own credential. Writes go by the id of a link so read.
import { and, arrayOverlaps, asc, count, eq, inArray, isNull } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { checkoutLinks } from "../../../db/schema/index.ts";
import type { OrgScope } from "../../lib/org-scope.ts";
import { sortTerms } from "../../lib/sort-sql.ts";

export type CheckoutLinkRow = typeof checkoutLinks.$inferSelect;

export async function insertLink(
  db: Db,
  values: typeof checkoutLinks.$inferInsert,
): Promise<CheckoutLinkRow> {
  const [row] = await db.insert(checkoutLinks).values(values).returning();
  return row!;
}

const inScope = (scope: OrgScope) => inArray(checkoutLinks.organizationId, [...scope]);

export async function findLink(
  db: Db,
  scope: OrgScope,
  id: string,
): Promise<CheckoutLinkRow | null> {
  if (scope.length === 0) return null;
  const [row] = await db
    .select()
    .from(checkoutLinks)
    .where(and(eq(checkoutLinks.id, id), inScope(scope), isNull(checkoutLinks.deletedAt)))
    .limit(1);
  return row ?? null;
}

/** The live link whose secret hashes to `hash`: a public visit, where the secret is the proof. */
export async function findBySecretHash(db: Db, hash: string): Promise<CheckoutLinkRow | null> {
  const [row] = await db
    .select()
    .from(checkoutLinks)
    .where(and(eq(checkoutLinks.clientSecretHash, hash), isNull(checkoutLinks.deletedAt)))
    .limit(1);
  return row ?? null;
}

export async function updateLink(
  db: Db,
  id: string,
  values: Partial<typeof checkoutLinks.$inferInsert>,
): Promise<CheckoutLinkRow> {
  const [row] = await db
    .update(checkoutLinks)
    .set(values)
    .where(eq(checkoutLinks.id, id))
    .returning();
  return row!;
}

const SORTS = {
  created_at: checkoutLinks.createdAt,
  label: checkoutLinks.label,
  success_url: checkoutLinks.successUrl,
  allow_discount_codes: checkoutLinks.allowDiscountCodes,
} as const;
export type CheckoutLinkSort = keyof typeof SORTS;

export async function listLinks(
  db: Db,
  scope: OrgScope,
  productIds: string[] | undefined,
  sorting: { key: CheckoutLinkSort; desc: boolean }[],
  limit: number,
  offset: number,
) {
  if (scope.length === 0) return { rows: [], total: 0 };
  const where = and(
    inScope(scope),
    isNull(checkoutLinks.deletedAt),
    productIds?.length ? arrayOverlaps(checkoutLinks.productIds, productIds) : undefined,
  );
  const [rows, [totals]] = await Promise.all([
    db
      .select()
      .from(checkoutLinks)
      .where(where)
      .orderBy(...sortTerms(sorting, SORTS), asc(checkoutLinks.id))
      .limit(limit)
      .offset(offset),
    db.select({ n: count() }).from(checkoutLinks).where(where),
  ]);
  return { rows, total: totals!.n };
}
