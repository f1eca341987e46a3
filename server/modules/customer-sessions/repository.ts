// SQL for customer sessions.
import { and, eq, gt } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { customerEmailVerifications, customerSessions } from "../../../db/schema/index.ts";

export type CustomerSessionRow = typeof customerSessions.$inferSelect;

export async function insertSession(
  db: Db,
  values: typeof customerSessions.$inferInsert,
): Promise<CustomerSessionRow> {
  const [row] = await db.insert(customerSessions).values(values).returning();
  return row!;
}

export async function insertSessions(
  db: Db,
  values: (typeof customerSessions.$inferInsert)[],
): Promise<void> {
  if (values.length > 0) await db.insert(customerSessions).values(values);
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

export type EmailVerificationRow = typeof customerEmailVerifications.$inferSelect;

/** A new pending email change replaces the customer's previous one. */
export async function replaceEmailVerification(
  db: Db,
  values: typeof customerEmailVerifications.$inferInsert,
): Promise<void> {
  await db
    .insert(customerEmailVerifications)
    .values(values)
    .onConflictDoUpdate({
      target: customerEmailVerifications.customerId,
      set: {
        email: values.email,
        tokenHash: values.tokenHash,
        expiresAt: values.expiresAt,
        createdAt: values.createdAt,
      },
    });
}

export async function lockLiveEmailVerification(
  db: Db,
  tokenHash: string,
  now: Date,
): Promise<EmailVerificationRow | null> {
  const [row] = await db
    .select()
    .from(customerEmailVerifications)
    .where(
      and(
        eq(customerEmailVerifications.tokenHash, tokenHash),
        gt(customerEmailVerifications.expiresAt, now),
      ),
    )
    .for("update");
  return row ?? null;
}

export async function deleteEmailVerification(db: Db, id: string): Promise<void> {
  await db.delete(customerEmailVerifications).where(eq(customerEmailVerifications.id, id));
}
