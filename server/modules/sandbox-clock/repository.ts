// SQL for the organizations' sandbox clocks.
import { and, eq, isNull, lt, or, sql } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { sandboxClocks } from "../../../db/schema/index.ts";
import type { OrgScope } from "../../lib/org-scope.ts";

/** The organization's clock offset, when the scope holds it; zero otherwise, as for no clock. */
export async function offsetOf(db: Db, scope: OrgScope, organizationId: string): Promise<number> {
  if (!scope.includes(organizationId)) return 0;
  const [row] = await db
    .select({ offsetMs: sandboxClocks.offsetMs })
    .from(sandboxClocks)
    .where(eq(sandboxClocks.organizationId, organizationId))
    .limit(1);
  return row?.offsetMs ?? 0;
}

/** Sets the offset, never lowering it (two advances racing keep the later time). */
export async function raiseOffset(
  db: Db,
  organizationId: string,
  offsetMs: number,
  now: Date,
): Promise<number> {
  const [row] = await db
    .insert(sandboxClocks)
    .values({ organizationId, offsetMs, modifiedAt: now })
    .onConflictDoUpdate({
      target: sandboxClocks.organizationId,
      set: {
        offsetMs: sql`greatest(${sandboxClocks.offsetMs}, excluded.offset_ms)`,
        modifiedAt: now,
      },
    })
    .returning({ offsetMs: sandboxClocks.offsetMs });
  return row!.offsetMs;
}

/**
 * Leases the organization's clock to one advance until `until` (real time), answering its offset,
 * or null while another advance holds an unexpired lease.
 */
export async function leaseClock(
  db: Db,
  organizationId: string,
  now: Date,
  until: Date,
): Promise<number | null> {
  const [row] = await db
    .insert(sandboxClocks)
    .values({ organizationId, offsetMs: 0, advancingUntil: until })
    .onConflictDoUpdate({
      target: sandboxClocks.organizationId,
      set: { advancingUntil: until },
      // Through the column, so the driver encodes the Date (postgres.js takes no Date in raw SQL).
      setWhere: or(isNull(sandboxClocks.advancingUntil), lt(sandboxClocks.advancingUntil, now)),
    })
    .returning({ offsetMs: sandboxClocks.offsetMs });
  return row ? row.offsetMs : null;
}

/**
 * Extends the lease `held` (its advancing_until) to `until`; false when it is no longer held (it
 * lapsed and another advance took the clock, or a reset removed it).
 */
export async function renewLease(
  db: Db,
  organizationId: string,
  held: Date,
  until: Date,
): Promise<boolean> {
  const rows = await db
    .update(sandboxClocks)
    .set({ advancingUntil: until })
    .where(ofLease(organizationId, held))
    .returning({ organizationId: sandboxClocks.organizationId });
  return rows.length > 0;
}

/** Gives back the lease `held`; one that lapsed and was taken since is left to its holder. */
export async function releaseClock(db: Db, organizationId: string, held: Date): Promise<void> {
  await db.update(sandboxClocks).set({ advancingUntil: null }).where(ofLease(organizationId, held));
}

function ofLease(organizationId: string, held: Date) {
  return and(
    eq(sandboxClocks.organizationId, organizationId),
    eq(sandboxClocks.advancingUntil, held),
  );
}

/**
 * Deletes the organization's clock unless an advance holds it at `now` (its offset would be written
 * back when the advance ends): false then.
 */
export async function deleteOffset(db: Db, organizationId: string, now: Date): Promise<boolean> {
  const free = or(isNull(sandboxClocks.advancingUntil), lt(sandboxClocks.advancingUntil, now));
  await db.delete(sandboxClocks).where(and(eq(sandboxClocks.organizationId, organizationId), free));
  const [held] = await db
    .select({ organizationId: sandboxClocks.organizationId })
    .from(sandboxClocks)
    .where(eq(sandboxClocks.organizationId, organizationId))
    .limit(1);
  return !held;
}
