// SQL for subscription leases (lease.ts): taken by a conditional UPDATE, so of two takers exactly
// one gets each row; compared with the database's own clock, as every process shares it. A lease's
// end, to the millisecond, is its holder's token: renewing or giving it back touches only the rows
// still holding that end, never a lease another took after this one lapsed.
import { and, asc, eq, inArray, isNull, lt, or, sql } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { checkouts, subscriptions } from "../../../db/schema/index.ts";
import { anyOf } from "../../../db/bulk.ts";
import type { OrgScope } from "../../lib/org-scope.ts";
import { inScope } from "../../lib/org-scope-sql.ts";
import type { SubscriptionRow } from "./repository.ts";

const leaseEnd = (seconds: number) =>
  sql`date_trunc('milliseconds', now()) + make_interval(secs => ${seconds})`;

/**
 * Leases the rows of `ids` nobody holds for `seconds`; answers them as they are now. A row another
 * transaction has locked at this moment is skipped like a held one, so two takers of overlapping
 * pages never wait on each other in opposite orders.
 */
export async function takeLeases(
  db: Db,
  scope: OrgScope,
  ids: string[],
  seconds: number,
): Promise<SubscriptionRow[]> {
  if (ids.length === 0 || scope.length === 0) return [];
  const free = db
    .select({ id: subscriptions.id })
    .from(subscriptions)
    .where(
      and(
        anyOf(subscriptions.id, ids),
        inScope(subscriptions.organizationId, scope),
        or(isNull(subscriptions.lockedUntil), lt(subscriptions.lockedUntil, sql`now()`)),
      ),
    )
    .orderBy(asc(subscriptions.id))
    // Not FOR UPDATE: that also skips a row merely referenced by a row being inserted (a seat, an
    // order), whose foreign key check holds it FOR KEY SHARE.
    .for("no key update", { skipLocked: true });
  return db
    .update(subscriptions)
    .set({ lockedUntil: leaseEnd(seconds) })
    .where(inArray(subscriptions.id, free))
    .returning();
}

/** Extends the leases of `ids` still ending at `held`; answers their new end (null: none held). */
export async function renewLeases(
  db: Db,
  ids: string[],
  held: Date,
  seconds: number,
): Promise<Date | null> {
  if (ids.length === 0) return null;
  const [renewed] = await db
    .update(subscriptions)
    .set({ lockedUntil: leaseEnd(seconds) })
    .where(and(anyOf(subscriptions.id, ids), eq(subscriptions.lockedUntil, held)))
    .returning({ until: subscriptions.lockedUntil });
  return renewed?.until ?? null;
}

/** Gives back the leases of `ids` still ending at `held`. */
export async function releaseLeases(db: Db, ids: string[], held: Date): Promise<void> {
  if (ids.length === 0) return;
  await db
    .update(subscriptions)
    .set({ lockedUntil: null })
    .where(and(anyOf(subscriptions.id, ids), eq(subscriptions.lockedUntil, held)));
}

/** Whether a lease on the row is held now (by the database's clock). */
export async function leaseHeld(db: Db, id: string): Promise<boolean> {
  const [row] = await db
    .select({ id: subscriptions.id })
    .from(subscriptions)
    .where(and(eq(subscriptions.id, id), sql`${subscriptions.lockedUntil} > now()`))
    .limit(1);
  return row !== undefined;
}

/**
 * Whether a checkout upgrading `s` (other than `except`) has been claimed for payment and not yet
 * settled.
 */
export async function upgradeClaimed(
  db: Db,
  s: Pick<SubscriptionRow, "id" | "organizationId">,
  except?: string,
): Promise<boolean> {
  const [row] = await db
    .select({ id: checkouts.id })
    .from(checkouts)
    .where(
      and(
        eq(checkouts.organizationId, s.organizationId),
        eq(checkouts.subscriptionId, s.id),
        eq(checkouts.status, "confirmed"),
        except ? sql`${checkouts.id} <> ${except}` : undefined,
      ),
    )
    .limit(1);
  return row !== undefined;
}
