// SQL for customer sessions.
import { and, eq, gt } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { customerSessions } from "../../../db/schema/index.ts";

export type CustomerSessionRow = typeof customerSessions.$inferSelect;

export async function insertSession(
  db: Db,
  values: typeof customerSessions.$inferInsert,
): Promise<CustomerSessionRow> {
  const [row] = await db.insert(customerSessions).values(values).returning();
  return row!;
}

export async function findLiveByHash(
  db: Db,
  tokenHash: string,
  now: Date,
): Promise<CustomerSessionRow | null> {
  const [row] = await db
    .select()
    .from(customerSessions)
    .where(and(eq(customerSessions.tokenHash, tokenHash), gt(customerSessions.expiresAt, now)))
    .limit(1);
  return row ?? null;
}

export async function findById(db: Db, id: string): Promise<CustomerSessionRow | null> {
  const [row] = await db
    .select()
    .from(customerSessions)
    .where(eq(customerSessions.id, id))
    .limit(1);
  return row ?? null;
}
