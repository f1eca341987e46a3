// SQL for payments: saved payment methods, and the sandbox processor's tokens and charges.
import { and, desc, eq, isNull, ne, sql } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import {
  paymentMethods,
  sandboxCharges,
  sandboxConfirmationTokens,
} from "../../../db/schema/index.ts";

export type ConfirmationTokenRow = typeof sandboxConfirmationTokens.$inferSelect;

export async function insertConfirmationToken(
  db: Db,
  row: typeof sandboxConfirmationTokens.$inferInsert,
): Promise<void> {
  await db.insert(sandboxConfirmationTokens).values(row);
}

export async function findConfirmationToken(
  db: Db,
  id: string,
): Promise<ConfirmationTokenRow | null> {
  const [row] = await db
    .select()
    .from(sandboxConfirmationTokens)
    .where(eq(sandboxConfirmationTokens.id, id))
    .limit(1);
  return row ?? null;
}

export type SandboxChargeRow = typeof sandboxCharges.$inferSelect;
export type SandboxChargeInsert = typeof sandboxCharges.$inferInsert;

/**
 * Records a sandbox charge under its idempotency key; when a racing request recorded one first,
 * that one wins and is returned, so both answer the same.
 */
export async function recordSandboxCharge(
  db: Db,
  row: SandboxChargeInsert,
): Promise<SandboxChargeRow> {
  const [inserted] = await db.insert(sandboxCharges).values(row).onConflictDoNothing().returning();
  return inserted ?? (await findSandboxCharge(db, row.idempotencyKey))!;
}

export async function findSandboxCharge(db: Db, key: string): Promise<SandboxChargeRow | null> {
  const [row] = await db
    .select()
    .from(sandboxCharges)
    .where(eq(sandboxCharges.idempotencyKey, key))
    .limit(1);
  return row ?? null;
}

/** The charge or setup that saved a sandbox payment method (it carries the card's outcome). */
export async function findSandboxMethodOrigin(
  db: Db,
  paymentMethodId: string,
): Promise<SandboxChargeRow | null> {
  const [row] = await db
    .select()
    .from(sandboxCharges)
    .where(
      and(
        eq(sandboxCharges.paymentMethodId, paymentMethodId),
        eq(sandboxCharges.status, "succeeded"),
        ne(sandboxCharges.kind, "off_session"),
      ),
    )
    .limit(1);
  return row ?? null;
}

export type PaymentMethodRow = typeof paymentMethods.$inferSelect;

/**
 * Saves a customer's payment method; the first one (none other live and default) becomes the
 * default. Saving the same processor method again changes nothing.
 */
export async function insertPaymentMethod(
  db: Db,
  row: Omit<typeof paymentMethods.$inferInsert, "isDefault">,
): Promise<void> {
  await db
    .insert(paymentMethods)
    .values({
      ...row,
      isDefault: sql`not exists (select 1 from ${paymentMethods} where ${paymentMethods.customerId} = ${row.customerId} and ${paymentMethods.isDefault} and ${paymentMethods.deletedAt} is null)`,
    })
    .onConflictDoNothing({
      target: [paymentMethods.customerId, paymentMethods.processorPaymentMethodId],
    });
}

/** The customer's live methods, the default first, then the newest. */
export async function listPaymentMethods(
  db: Db,
  organizationId: string,
  customerId: string,
): Promise<PaymentMethodRow[]> {
  return db
    .select()
    .from(paymentMethods)
    .where(
      and(
        eq(paymentMethods.organizationId, organizationId),
        eq(paymentMethods.customerId, customerId),
        isNull(paymentMethods.deletedAt),
      ),
    )
    .orderBy(desc(paymentMethods.isDefault), desc(paymentMethods.createdAt));
}
