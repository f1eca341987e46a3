// SQL for Idempotency-Key records (see lib/idempotency.ts for the rules).
import { and, eq, isNull, lt, or } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { idempotencyKeys } from "../../../db/schema/index.ts";

export type IdempotencyRow = typeof idempotencyKeys.$inferSelect;

const byKey = (scope: string, key: string) =>
  and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key));

/** Takes the key for a new request; false when a row already holds it. */
export async function claim(
  db: Db,
  row: { scope: string; key: string; fingerprint: string; now: Date },
): Promise<boolean> {
  const inserted = await db
    .insert(idempotencyKeys)
    .values({
      scope: row.scope,
      key: row.key,
      fingerprint: row.fingerprint,
      createdAt: row.now,
      lockedAt: row.now,
    })
    .onConflictDoNothing()
    .returning({ key: idempotencyKeys.key });
  return inserted.length > 0;
}

export async function find(db: Db, scope: string, key: string): Promise<IdempotencyRow | null> {
  const [row] = await db.select().from(idempotencyKeys).where(byKey(scope, key));
  return row ?? null;
}

/**
 * Takes over a key whose record expired, or whose holder died mid-request (still unfinished,
 * locked before `staleBefore`). One caller wins when several try at once.
 */
export async function takeOver(
  db: Db,
  row: { scope: string; key: string; fingerprint: string; now: Date },
  limits: { expiredBefore: Date; staleBefore: Date },
): Promise<boolean> {
  const taken = await db
    .update(idempotencyKeys)
    .set({
      fingerprint: row.fingerprint,
      status: null,
      contentType: null,
      body: null,
      createdAt: row.now,
      lockedAt: row.now,
    })
    .where(
      and(
        byKey(row.scope, row.key),
        or(
          lt(idempotencyKeys.createdAt, limits.expiredBefore),
          and(isNull(idempotencyKeys.status), lt(idempotencyKeys.lockedAt, limits.staleBefore)),
        ),
      ),
    )
    .returning({ key: idempotencyKeys.key });
  return taken.length > 0;
}

export async function complete(
  db: Db,
  scope: string,
  key: string,
  answer: { status: number; contentType: string | null; body: string },
): Promise<void> {
  await db.update(idempotencyKeys).set(answer).where(byKey(scope, key));
}

/** Frees the key (the request failed on our side), so a retry runs again. */
export async function release(db: Db, scope: string, key: string): Promise<void> {
  await db.delete(idempotencyKeys).where(and(byKey(scope, key), isNull(idempotencyKeys.status)));
}
