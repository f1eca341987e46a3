// SQL for checkout sessions, read under an OrgScope but where a reader is named for why none
// applies (the client secret, a processor webhook, the reconciler's sweep).
import { and, asc, count, desc, eq, inArray, lte, or, sql, type SQL } from "drizzle-orm";
import type { Db, Tx } from "../../../db/client.ts";
import { checkouts } from "../../../db/schema/index.ts";
import type { PaymentReplay } from "../../../db/schema/checkouts.ts";
import { customerIdsByExternalId } from "../customers/queries.ts";
import type { OrgScope } from "../../lib/org-scope.ts";
import { containsPattern } from "../../lib/query.ts";
import { encodeValues, preparedQuery, valuePlaceholders } from "../../lib/prepared.ts";
import { outboxInsert, outboxTable, type OutboxRow } from "../webhooks/outbox.ts";
import { anyOf } from "../../../db/bulk.ts";

export type CheckoutRow = typeof checkouts.$inferSelect;
export type CheckoutInsert = typeof checkouts.$inferInsert;

/**
 * Inserts a session and its outbox event in one statement (the event's insert as a data-modifying
 * CTE): atomic on its own, so creating a checkout needs no begin/commit round trips. Every column
 * is given, so nothing is returned: the caller already holds the row (returning its 44 columns cost
 * PostgreSQL and this process more than the insert). Prepared once per handle (see lib/prepared.ts):
 * building this insert was the largest CPU cost of a create.
 */
export async function insertCheckoutWithEvent(
  db: Db,
  values: CheckoutRow,
  event: OutboxRow,
): Promise<void> {
  const query = preparedQuery(db, "checkouts.insertWithEvent", (d) => {
    const { organizationId, type, payload } = valuePlaceholders(outboxTable, "event_");
    const recorded = d
      .$with("recorded_event")
      .as(outboxInsert(d, { organizationId, type, payload }));
    return d
      .with(recorded)
      .insert(checkouts)
      .values(valuePlaceholders(checkouts))
      .prepare("checkouts_insert_with_event");
  });
  await query.execute({
    ...encodeValues(checkouts, values),
    ...encodeValues(outboxTable, event, "event_"),
  });
}

const inScope = (scope: OrgScope) => inArray(checkouts.organizationId, [...scope]);

/** A session in the scope. */
export async function findCheckout(
  db: Db,
  scope: OrgScope,
  id: string,
): Promise<CheckoutRow | null> {
  if (scope.length === 0) return null;
  const [row] = await db
    .select()
    .from(checkouts)
    .where(and(eq(checkouts.id, id), inScope(scope)))
    .limit(1);
  return row ?? null;
}

/**
 * A session by id alone, for processor webhooks, which name it in the payment's metadata: no scope
 * applies, and the row read is the scope of everything read after.
 */
export async function findCheckoutForProcessor(db: Db, id: string): Promise<CheckoutRow | null> {
  const [row] = await db.select().from(checkouts).where(eq(checkouts.id, id)).limit(1);
  return row ?? null;
}

/** The public page's session by its client secret: the secret is the credential, not a scope. */
export async function findBySecretHash(db: Db, hash: string): Promise<CheckoutRow | null> {
  const [row] = await db
    .select()
    .from(checkouts)
    .where(eq(checkouts.clientSecretHash, hash))
    .limit(1);
  return row ?? null;
}

export async function statusOf(
  db: Db,
  scope: OrgScope,
  id: string,
): Promise<CheckoutRow["status"] | null> {
  if (scope.length === 0) return null;
  const [row] = await db
    .select({ status: checkouts.status })
    .from(checkouts)
    .where(and(eq(checkouts.id, id), inScope(scope)))
    .limit(1);
  return row?.status ?? null;
}

/** The checkout as it is now, locked until the transaction ends (one update of it at a time). */
export async function lockCheckout(tx: Tx, id: string): Promise<CheckoutRow | null> {
  const [row] = await tx.select().from(checkouts).where(eq(checkouts.id, id)).for("update");
  return row ?? null;
}

export async function updateCheckout(
  db: Db,
  id: string,
  values: Partial<CheckoutInsert>,
): Promise<CheckoutRow> {
  const [row] = await db.update(checkouts).set(values).where(eq(checkouts.id, id)).returning();
  return row!;
}

/** Moves an open checkout to confirmed; only one of several racing confirms gets the row. */
export async function claimForPayment(
  db: Db,
  id: string,
  now: Date,
  paymentReplay: PaymentReplay | null,
): Promise<CheckoutRow | null> {
  const [row] = await db
    .update(checkouts)
    .set({
      status: "confirmed",
      paymentAttempts: sql`${checkouts.paymentAttempts} + 1`,
      paymentError: null,
      paymentReplay,
      modifiedAt: now,
    })
    .where(and(eq(checkouts.id, id), eq(checkouts.status, "open")))
    .returning();
  return row ?? null;
}

/**
 * Updates a session only while it is confirmed under this payment attempt: the one way a payment's
 * outcome is applied, so of several racing appliers exactly one gets the row.
 */
export async function settleAttempt(
  db: Db,
  id: string,
  attempt: number,
  values: Partial<CheckoutInsert>,
): Promise<CheckoutRow | null> {
  const [row] = await db
    .update(checkouts)
    .set(values)
    .where(
      and(
        eq(checkouts.id, id),
        eq(checkouts.status, "confirmed"),
        eq(checkouts.paymentAttempts, attempt),
      ),
    )
    .returning();
  return row ?? null;
}

/**
 * Sessions confirmed before the cutoff and not settled since (a crash or a lost webhook), of every
 * organization, for the reconciler's sweep; each row is the scope of what it reads after.
 */
export async function staleConfirmedForJob(
  db: Db,
  cutoff: Date,
  limit: number,
): Promise<CheckoutRow[]> {
  return db
    .select()
    .from(checkouts)
    .where(and(eq(checkouts.status, "confirmed"), lte(checkouts.modifiedAt, cutoff)))
    .orderBy(asc(checkouts.modifiedAt))
    .limit(limit);
}

/** Open sessions past their expiry at `now` become expired (one organization's, when given). */
/** Expires the scope's open sessions past their expiry as of `now` (a sandbox clock's move). */
export function expireDue(tx: Tx, scope: OrgScope, now: Date): Promise<CheckoutRow[]> {
  return expireWhere(tx, now, inScope(scope));
}

/** The minute job's sweep: every organization's open sessions past their expiry. */
export function expireDueForJob(tx: Tx, now: Date): Promise<CheckoutRow[]> {
  return expireWhere(tx, now, undefined);
}

function expireWhere(tx: Tx, now: Date, scope: SQL | undefined): Promise<CheckoutRow[]> {
  return tx
    .update(checkouts)
    .set({ status: "expired", modifiedAt: now })
    .where(and(eq(checkouts.status, "open"), lte(checkouts.expiresAt, now), scope))
    .returning();
}

export interface CheckoutFilter {
  scope: OrgScope;
  productIds?: string[] | undefined;
  customerIds?: string[] | undefined;
  /** The seller's own id for the customer: the customer's, or the one the checkout was opened with. */
  externalCustomerIds?: string[] | undefined;
  statuses?: string[] | undefined;
  query?: string | undefined;
}

const SORTS = {
  created_at: checkouts.createdAt,
  expires_at: checkouts.expiresAt,
  status: checkouts.status,
} as const;

export async function listCheckouts(
  db: Db,
  f: CheckoutFilter,
  sorting: { key: keyof typeof SORTS; desc: boolean }[],
  limit: number,
  offset: number,
) {
  if (f.scope.length === 0) return { rows: [], total: 0 };
  const conds: SQL[] = [inScope(f.scope)];
  if (f.productIds?.length) conds.push(anyOf(checkouts.productId, f.productIds));
  if (f.customerIds?.length) conds.push(anyOf(checkouts.customerId, f.customerIds));
  if (f.externalCustomerIds?.length) {
    // A checkout opened with an external id has no customer until it is paid: its own id counts.
    const byExternalId = customerIdsByExternalId(db, f.scope, f.externalCustomerIds);
    conds.push(
      or(
        inArray(checkouts.customerId, byExternalId),
        anyOf(checkouts.externalCustomerId, f.externalCustomerIds),
      )!,
    );
  }
  if (f.statuses?.length)
    conds.push(inArray(checkouts.status, f.statuses as CheckoutRow["status"][]));
  if (f.query) conds.push(sql`${checkouts.customerEmail} ilike ${containsPattern(f.query)}`);
  const where = and(...conds);
  const order = sorting.map((s) => (s.desc ? desc(SORTS[s.key]) : asc(SORTS[s.key])));
  const [rows, [totals]] = await Promise.all([
    db
      .select()
      .from(checkouts)
      .where(where)
      .orderBy(...order, asc(checkouts.id))
      .limit(limit)
      .offset(offset),
    db.select({ n: count() }).from(checkouts).where(where),
  ]);
  return { rows, total: totals!.n };
}

/**
 * How many other sessions of this buyer hold a redemption of the discount: by the session's
 * customer or by its email, its +alias and case ignored, as Polar identifies a buyer.
 */
export async function countBuyerRedemptions(
  db: Db,
  checkout: Pick<CheckoutRow, "id" | "discountId" | "customerId" | "customerEmail">,
): Promise<number> {
  if (!checkout.discountId) return 0;
  const unalias = (email: SQL | string) => sql`lower(regexp_replace(${email}, '\\+[^@]*@', '@'))`;
  const sameBuyer = [
    ...(checkout.customerId ? [eq(checkouts.customerId, checkout.customerId)] : []),
    ...(checkout.customerEmail
      ? [sql`${unalias(sql`${checkouts.customerEmail}`)} = ${unalias(checkout.customerEmail)}`]
      : []),
  ];
  if (sameBuyer.length === 0) return 0;
  const [row] = await db
    .select({ n: count() })
    .from(checkouts)
    .where(
      and(
        eq(checkouts.discountId, checkout.discountId),
        eq(checkouts.discountRedeemed, true),
        sql`${checkouts.id} <> ${checkout.id}`,
        or(...sameBuyer),
      ),
    );
  return Number(row?.n ?? 0);
}
