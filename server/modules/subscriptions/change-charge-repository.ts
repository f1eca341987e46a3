// SQL for the claims of change charges (charge-now.ts, change-reconcile.ts). The change deletes its
// claim in its own transaction only while no reconciler has taken it over, and the reconciler takes
// it over with a conditional update: whichever comes first wins, once.
import { and, asc, eq, inArray, isNull, lt, sql } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { changeCharges } from "../../../db/schema/index.ts";

export type ChangeChargeRow = typeof changeCharges.$inferSelect;

export async function insertChangeCharge(
  db: Db,
  row: Omit<typeof changeCharges.$inferInsert, "id" | "abandonedAt">,
): Promise<void> {
  await db.insert(changeCharges).values(row);
}

/** The change commits against its claim: false when the reconciler took it over first. */
export async function settleChangeCharge(db: Db, idempotencyKey: string): Promise<boolean> {
  const rows = await db
    .delete(changeCharges)
    .where(and(eq(changeCharges.idempotencyKey, idempotencyKey), isNull(changeCharges.abandonedAt)))
    .returning({ id: changeCharges.id });
  return rows.length > 0;
}

/** The claim is resolved (declined, or reconciled): nothing more to do for it. */
export async function dropChangeCharge(db: Db, idempotencyKey: string): Promise<void> {
  await db.delete(changeCharges).where(eq(changeCharges.idempotencyKey, idempotencyKey));
}

/**
 * Takes over the claim of a change whose transaction failed after its charge: the row, or null when
 * the change committed (its claim is gone) or a reconciler has taken it over already.
 */
export async function abandonChangeCharge(
  db: Db,
  idempotencyKey: string,
): Promise<ChangeChargeRow | null> {
  const [row] = await db
    .update(changeCharges)
    .set({ abandonedAt: sql`now()` })
    .where(and(eq(changeCharges.idempotencyKey, idempotencyKey), isNull(changeCharges.abandonedAt)))
    .returning();
  return row ?? null;
}

/**
 * Takes over up to `limit` claims made before `cutoff` (marks them abandoned, so their changes can
 * no longer commit), oldest first; claims already taken over by an earlier run come back too.
 */
export async function abandonStaleChangeCharges(
  db: Db,
  cutoff: Date,
  limit: number,
): Promise<ChangeChargeRow[]> {
  const stale = db
    .select({ id: changeCharges.id })
    .from(changeCharges)
    .where(lt(changeCharges.claimedAt, cutoff))
    .orderBy(asc(changeCharges.claimedAt))
    .limit(limit)
    .for("update", { skipLocked: true });
  return db
    .update(changeCharges)
    .set({ abandonedAt: sql`coalesce(${changeCharges.abandonedAt}, now())` })
    .where(inArray(changeCharges.id, stale))
    .returning();
}
