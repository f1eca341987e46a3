// SQL for meters.
import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { meters } from "../../../db/schema/index.ts";

export type MeterRow = typeof meters.$inferSelect;

/** A meter of one of the given organizations, or null (other organizations' meters do not exist). */
export async function findMeter(db: Db, organizationIds: readonly string[], id: string): Promise<MeterRow | null> {
  if (organizationIds.length === 0) return null;
  const [row] = await db
    .select()
    .from(meters)
    .where(and(eq(meters.id, id), inArray(meters.organizationId, [...organizationIds])))
    .limit(1);
  return row ?? null;
}
