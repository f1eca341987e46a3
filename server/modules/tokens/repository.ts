// SQL for organization access tokens. Reads are scoped to the organizations the caller may see.
import { and, count, desc, eq, gt, isNull, lt, or, sql } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { organizationAccessTokens as oat } from "../../../db/schema/index.ts";
import type { OrgScope } from "../../lib/org-scope.ts";
import { inScope } from "../../lib/org-scope-sql.ts";
import { preparedQuery } from "../../lib/prepared.ts";

export type TokenRow = typeof oat.$inferSelect;

export async function insertToken(db: Db, values: typeof oat.$inferInsert): Promise<TokenRow> {
  const [row] = await db.insert(oat).values(values).returning();
  return row!;
}

/** Inserts the token unless one with the same hash exists (the hash is unique). */
export async function insertTokenIfAbsent(db: Db, values: typeof oat.$inferInsert): Promise<void> {
  await db.insert(oat).values(values).onConflictDoNothing({ target: oat.tokenHash });
}

/** Runs on every request made with a token: prepared once (see lib/prepared.ts). */
export async function findActiveByHash(
  db: Db,
  tokenHash: string,
  now: Date,
): Promise<TokenRow | null> {
  const query = preparedQuery(db, "tokens.findActiveByHash", (d) =>
    d
      .select()
      .from(oat)
      .where(
        and(
          eq(oat.tokenHash, sql.placeholder("tokenHash")),
          or(isNull(oat.expiresAt), gt(oat.expiresAt, sql.placeholder("now"))),
        ),
      )
      .limit(1)
      .prepare("tokens_find_active_by_hash"),
  );
  // Placeholders skip the column's encoder: the timestamp goes as text.
  const [row] = await query.execute({ tokenHash, now: now.toISOString() });
  return row ?? null;
}

/** Records use at most once a minute per token, so a busy CI token does not write on every call. */
export async function touchLastUsed(db: Db, id: string, now: Date): Promise<void> {
  const minuteAgo = new Date(now.getTime() - 60_000);
  await db
    .update(oat)
    .set({ lastUsedAt: now })
    .where(and(eq(oat.id, id), or(isNull(oat.lastUsedAt), lt(oat.lastUsedAt, minuteAgo))));
}

export async function listTokens(
  db: Db,
  scope: OrgScope,
  limit: number,
  offset: number,
): Promise<{ rows: TokenRow[]; total: number }> {
  if (scope.length === 0) return { rows: [], total: 0 };
  const where = inScope(oat.organizationId, scope);
  const [rows, [totals]] = await Promise.all([
    db
      .select()
      .from(oat)
      .where(where)
      .orderBy(desc(oat.createdAt), desc(oat.id))
      .limit(limit)
      .offset(offset),
    db.select({ n: count() }).from(oat).where(where),
  ]);
  return { rows, total: totals!.n };
}

export async function findToken(db: Db, scope: OrgScope, id: string): Promise<TokenRow | null> {
  if (scope.length === 0) return null;
  const [row] = await db
    .select()
    .from(oat)
    .where(and(eq(oat.id, id), inScope(oat.organizationId, scope)))
    .limit(1);
  return row ?? null;
}

export async function updateToken(
  db: Db,
  id: string,
  values: Partial<Pick<TokenRow, "comment" | "scopes">>,
  now: Date,
): Promise<TokenRow> {
  const [row] = await db
    .update(oat)
    .set({ ...values, modifiedAt: now })
    .where(eq(oat.id, id))
    .returning();
  return row!;
}

export async function deleteToken(db: Db, id: string): Promise<void> {
  await db.delete(oat).where(eq(oat.id, id));
}
