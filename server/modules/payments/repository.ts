// SQL for payments: saved payment methods, Stripe events handled, and the sandbox processor's
// tokens and charges. Payments and methods are read under an OrgScope, but for the one reader
// named for a processor's webhook.
import { and, asc, count, desc, eq, inArray, isNull, ne, type SQL, sql } from "drizzle-orm";
import { anyOf, insertJsonRows, tableRows } from "../../../db/bulk.ts";
import { rowsOf, type Db, type Tx } from "../../../db/client.ts";
import {
  paymentMethods,
  sandboxCharges,
  customers,
  payments,
  sandboxConfirmationTokens,
  stripeEvents,
} from "../../../db/schema/index.ts";
import type { OrgScope } from "../../lib/org-scope.ts";
import { inScope } from "../../lib/org-scope-sql.ts";

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

/** recordSandboxCharge of many rows: each answered by its key, whoever recorded it first. */
export async function recordSandboxCharges(
  db: Db,
  rows: SandboxChargeInsert[],
): Promise<SandboxChargeRow[]> {
  if (rows.length === 0) return [];
  // One JSON parameter rather than a placeholder per value (db/bulk.ts); a key a racing request
  // recorded first is read back, so it is answered with that request's row.
  // insertJsonRows takes the columns of the first row: every row names all of them.
  const full = rows.map((r) => ({ ...OPTIONAL_CHARGE_COLUMNS, ...r }));
  const inserted = tableRows(
    sandboxCharges,
    rowsOf<Record<string, unknown>>(
      await db.execute(
        sql`${insertJsonRows(sandboxCharges, full)} on conflict do nothing returning *`,
      ),
    ),
  );
  const recorded = new Set(inserted.map((r) => r.idempotencyKey));
  const raced = await findSandboxCharges(
    db,
    rows.map((r) => r.idempotencyKey).filter((k) => !recorded.has(k)),
  );
  return [...inserted, ...raced.values()];
}

const OPTIONAL_CHARGE_COLUMNS = {
  outcome: null,
  processorPaymentId: null,
  brand: null,
  last4: null,
  expMonth: null,
  expYear: null,
  paymentMethodId: null,
  failureCode: null,
  failureMessage: null,
} satisfies Partial<SandboxChargeInsert>;

export async function findSandboxCharges(
  db: Db,
  keys: string[],
): Promise<Map<string, SandboxChargeRow>> {
  if (keys.length === 0) return new Map();
  const rows = await db
    .select()
    .from(sandboxCharges)
    .where(anyOf(sandboxCharges.idempotencyKey, keys));
  return new Map(rows.map((r) => [r.idempotencyKey, r]));
}

/** findSandboxMethodOrigin of many payment methods, by payment method id. */
export async function findSandboxMethodOrigins(
  db: Db,
  paymentMethodIds: string[],
): Promise<Map<string, SandboxChargeRow>> {
  if (paymentMethodIds.length === 0) return new Map();
  const rows = await db
    .select()
    .from(sandboxCharges)
    .where(
      and(
        anyOf(sandboxCharges.paymentMethodId, paymentMethodIds),
        eq(sandboxCharges.status, "succeeded"),
        ne(sandboxCharges.kind, "off_session"),
      ),
    );
  const first = new Map<string, SandboxChargeRow>();
  for (const r of rows) if (!first.has(r.paymentMethodId!)) first.set(r.paymentMethodId!, r);
  return first;
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
export function listPaymentMethods(
  db: Db,
  scope: OrgScope,
  customerId: string,
): Promise<PaymentMethodRow[]> {
  return listPaymentMethodsOfCustomers(db, scope, [customerId]);
}

/** listPaymentMethods of many customers, in the same order within each customer. */
export async function listPaymentMethodsOfCustomers(
  db: Db,
  scope: OrgScope,
  customerIds: string[],
): Promise<PaymentMethodRow[]> {
  if (customerIds.length === 0 || scope.length === 0) return [];
  return db
    .select()
    .from(paymentMethods)
    .where(
      and(
        inArray(paymentMethods.organizationId, [...scope]),
        anyOf(paymentMethods.customerId, customerIds),
        isNull(paymentMethods.deletedAt),
      ),
    )
    .orderBy(desc(paymentMethods.isDefault), desc(paymentMethods.createdAt));
}

/** Soft-deletes every customer's copy of a processor payment method (detached at the processor). */
export async function deletePaymentMethodsByProcessorId(
  db: Db,
  processorPaymentMethodId: string,
  now: Date,
): Promise<number> {
  const rows = await db
    .update(paymentMethods)
    .set({ deletedAt: now, isDefault: false, modifiedAt: now })
    .where(
      and(
        eq(paymentMethods.processorPaymentMethodId, processorPaymentMethodId),
        isNull(paymentMethods.deletedAt),
      ),
    )
    .returning({ id: paymentMethods.id });
  return rows.length;
}

export async function stripeEventSeen(db: Db, id: string): Promise<boolean> {
  const [row] = await db
    .select({ id: stripeEvents.id })
    .from(stripeEvents)
    .where(eq(stripeEvents.id, id))
    .limit(1);
  return row !== undefined;
}

export async function recordStripeEvent(db: Db, id: string, type: string): Promise<void> {
  await db.insert(stripeEvents).values({ id, type }).onConflictDoNothing();
}

export type PaymentRow = typeof payments.$inferSelect;
export type PaymentInsert = typeof payments.$inferInsert;

/** Records an attempt once per idempotency key. */
export async function insertPayment(db: Db, row: PaymentInsert): Promise<void> {
  await insertPayments(db, [row]);
}

export async function insertPayments(db: Db, rows: PaymentInsert[]): Promise<void> {
  if (rows.length === 0) return;
  if (rows.length === 1) {
    await db.insert(payments).values(rows).onConflictDoNothing({ target: payments.idempotencyKey });
    return;
  }
  await db.execute(sql`${insertJsonRows(payments, rows)} on conflict (idempotency_key) do nothing`);
}

export interface PaymentFilter {
  scope: OrgScope;
  checkoutIds?: string[] | undefined;
  orderIds?: string[] | undefined;
  customerIds?: string[] | undefined;
  statuses?: string[] | undefined;
  methods?: string[] | undefined;
  customerEmails?: string[] | undefined;
}

const PAYMENT_SORTS = {
  created_at: payments.createdAt,
  status: payments.status,
  amount: payments.amount,
  method: payments.method,
} as const;
export type PaymentSort = keyof typeof PAYMENT_SORTS;

export async function listPayments(
  db: Db,
  f: PaymentFilter,
  sorting: { key: PaymentSort; desc: boolean }[],
  limit: number,
  offset: number,
): Promise<{ rows: PaymentRow[]; total: number }> {
  if (f.scope.length === 0) return { rows: [], total: 0 };
  const conds: SQL[] = [inArray(payments.organizationId, [...f.scope])];
  if (f.checkoutIds?.length) conds.push(anyOf(payments.checkoutId, f.checkoutIds));
  if (f.orderIds?.length) conds.push(anyOf(payments.orderId, f.orderIds));
  if (f.customerIds?.length) conds.push(anyOf(payments.customerId, f.customerIds));
  if (f.statuses?.length)
    conds.push(inArray(payments.status, f.statuses as PaymentRow["status"][]));
  if (f.methods?.length) conds.push(inArray(payments.method, f.methods));
  if (f.customerEmails?.length)
    conds.push(
      inArray(
        payments.customerId,
        sql`(select ${customers.id} from ${customers} where ${and(inArray(customers.organizationId, [...f.scope]), inArray(customers.email, f.customerEmails))})`,
      ),
    );
  const where = and(...conds);
  const order = sorting.map((s) =>
    s.desc ? desc(PAYMENT_SORTS[s.key]) : asc(PAYMENT_SORTS[s.key]),
  );
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(payments)
      .where(where)
      .orderBy(...order, asc(payments.id))
      .limit(limit)
      .offset(offset),
    db.select({ n: count() }).from(payments).where(where),
  ]);
  return { rows, total: Number(total?.n ?? 0) };
}

export async function findPayment(db: Db, scope: OrgScope, id: string): Promise<PaymentRow | null> {
  if (scope.length === 0) return null;
  const [row] = await db
    .select()
    .from(payments)
    .where(and(eq(payments.id, id), inArray(payments.organizationId, [...scope])))
    .limit(1);
  return row ?? null;
}

/**
 * Soft-deletes one of a customer's methods; the next newest live one becomes the default. Answers
 * the processor's id of the method removed, null when there was none to remove.
 */
export async function deleteCustomerMethod(
  db: Db,
  scope: OrgScope,
  customerId: string,
  id: string,
  now: Date,
): Promise<string | null> {
  if (scope.length === 0) return null;
  const [gone] = await db
    .update(paymentMethods)
    .set({ deletedAt: now, isDefault: false, modifiedAt: now })
    .where(
      and(
        eq(paymentMethods.id, id),
        inArray(paymentMethods.organizationId, [...scope]),
        eq(paymentMethods.customerId, customerId),
        isNull(paymentMethods.deletedAt),
      ),
    )
    .returning({ processorPaymentMethodId: paymentMethods.processorPaymentMethodId });
  if (!gone) return null;
  const live = await listPaymentMethods(db, scope, customerId);
  // The newest remaining card becomes the default when the default was the one removed.
  const next = live.some((m) => m.isDefault)
    ? null
    : live.sort((a, b) => +b.createdAt - +a.createdAt)[0];
  if (next)
    await db
      .update(paymentMethods)
      .set({ isDefault: true, modifiedAt: now })
      .where(eq(paymentMethods.id, next.id));
  return gone.processorPaymentMethodId;
}

/** Makes the customer's live method with this processor id the default (and no other). */
/** Two updates that must commit together, so the customer never has two defaults or none. */
export async function makeDefaultMethod(
  tx: Tx,
  scope: OrgScope,
  customerId: string,
  processorPaymentMethodId: string,
  now: Date,
): Promise<void> {
  const mine = and(
    inScope(paymentMethods.organizationId, scope),
    eq(paymentMethods.customerId, customerId),
    isNull(paymentMethods.deletedAt),
  );
  await tx
    .update(paymentMethods)
    .set({ isDefault: false, modifiedAt: now })
    .where(and(mine, eq(paymentMethods.isDefault, true)));
  await tx
    .update(paymentMethods)
    .set({ isDefault: true, modifiedAt: now })
    .where(and(mine, eq(paymentMethods.processorPaymentMethodId, processorPaymentMethodId)));
}

/**
 * The succeeded attempt a processor's payment id stands for, for a processor's dispute webhook,
 * which names only its payment (processor ids are global): no scope applies, and the row read is
 * the scope of everything read after.
 */
export async function succeededPaymentForProcessor(
  db: Db,
  processorPaymentId: string,
): Promise<PaymentRow | null> {
  const [row] = await db
    .select()
    .from(payments)
    .where(
      and(eq(payments.processorPaymentId, processorPaymentId), eq(payments.status, "succeeded")),
    )
    .limit(1);
  return row ?? null;
}
