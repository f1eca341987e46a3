// SQL for refunds: every read is limited to an OrgScope.
import { and, asc, count, desc, eq, inArray, lt, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { customers, refunds } from "../../../db/schema/index.ts";
import type { OrgScope } from "../../lib/org-scope.ts";
import { anyOf } from "../../../db/bulk.ts";

export type RefundRow = typeof refunds.$inferSelect;

export async function insertRefund(
  db: Db,
  values: typeof refunds.$inferInsert,
): Promise<RefundRow> {
  const [row] = await db.insert(refunds).values(values).returning();
  return row!;
}

export async function updateRefund(
  db: Db,
  id: string,
  values: Partial<typeof refunds.$inferInsert>,
): Promise<RefundRow> {
  const [row] = await db.update(refunds).set(values).where(eq(refunds.id, id)).returning();
  return row!;
}

/** Amounts of the order's refunds still pending: reserved, so racing refunds cannot pass the total. */
export async function pendingOfOrder(
  db: Db,
  scope: OrgScope,
  orderId: string,
): Promise<{ amount: number; tax: number }> {
  if (scope.length === 0) return { amount: 0, tax: 0 };
  const [row] = await db
    .select({
      amount: sql<string>`coalesce(sum(${refunds.amount}), 0)`,
      tax: sql<string>`coalesce(sum(${refunds.taxAmount}), 0)`,
    })
    .from(refunds)
    .where(
      and(
        eq(refunds.orderId, orderId),
        eq(refunds.status, "pending"),
        inArray(refunds.organizationId, [...scope]),
      ),
    );
  return { amount: Number(row?.amount ?? 0), tax: Number(row?.tax ?? 0) };
}

export interface RefundFilter {
  scope: OrgScope;
  ids?: string[] | undefined;
  orderIds?: string[] | undefined;
  subscriptionIds?: string[] | undefined;
  customerIds?: string[] | undefined;
  externalCustomerIds?: string[] | undefined;
  succeeded?: boolean | undefined;
}

const SORTS = { created_at: refunds.createdAt, amount: refunds.amount } as const;
export type RefundSort = keyof typeof SORTS;

export async function listRefunds(
  db: Db,
  f: RefundFilter,
  sorting: { key: RefundSort; desc: boolean }[],
  limit: number,
  offset: number,
) {
  if (f.scope.length === 0) return { rows: [] as RefundRow[], total: 0 };
  const orgs = [...f.scope];
  const conds: SQL[] = [inArray(refunds.organizationId, orgs)];
  if (f.ids?.length) conds.push(anyOf(refunds.id, f.ids));
  if (f.orderIds?.length) conds.push(anyOf(refunds.orderId, f.orderIds));
  if (f.subscriptionIds?.length) conds.push(anyOf(refunds.subscriptionId, f.subscriptionIds));
  if (f.customerIds?.length) conds.push(anyOf(refunds.customerId, f.customerIds));
  if (f.externalCustomerIds?.length)
    // External ids are unique per organization only: the subselect keeps to the scope too.
    conds.push(
      inArray(
        refunds.customerId,
        db
          .select({ id: customers.id })
          .from(customers)
          .where(
            and(
              anyOf(customers.externalId, f.externalCustomerIds),
              inArray(customers.organizationId, orgs),
            ),
          ),
      ),
    );
  if (f.succeeded === true) conds.push(eq(refunds.status, "succeeded"));
  if (f.succeeded === false) conds.push(sql`${refunds.status} <> 'succeeded'`);
  const where = and(...conds);
  const order = sorting.map((s) => (s.desc ? desc(SORTS[s.key]) : asc(SORTS[s.key])));
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(refunds)
      .where(where)
      .orderBy(...order, asc(refunds.id))
      .limit(limit)
      .offset(offset),
    db.select({ n: count() }).from(refunds).where(where),
  ]);
  return { rows, total: Number(total?.n ?? 0) };
}

export async function byProcessorRefund(
  db: Db,
  scope: OrgScope,
  processorRefundId: string,
): Promise<RefundRow | null> {
  if (scope.length === 0) return null;
  const [row] = await db
    .select()
    .from(refunds)
    .where(
      and(
        eq(refunds.processorRefundId, processorRefundId),
        inArray(refunds.organizationId, [...scope]),
      ),
    )
    .limit(1);
  return row ?? null;
}

/**
 * A refund by id alone, for the processor's webhook and the reconciler, which name it by the id it
 * was sent under: no scope to check it against. Null for an id that is not a refund's.
 */
export async function refundForProcessor(db: Db, id: string): Promise<RefundRow | null> {
  if (!UUID.test(id)) return null;
  const [row] = await db.select().from(refunds).where(eq(refunds.id, id)).limit(1);
  return row ?? null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Refunds still pending since before `cutoff`: their request died or went unanswered, or the
 * processor holds them as pending. Those the processor never acknowledged come first, so refunds
 * it keeps pending for days (and reports on by its own events) never crowd them out of a batch.
 */
export async function stalePendingForJob(db: Db, cutoff: Date, limit: number) {
  return db
    .select()
    .from(refunds)
    .where(and(eq(refunds.status, "pending"), lt(refunds.createdAt, cutoff)))
    .orderBy(sql`${refunds.processorRefundId} is not null`, asc(refunds.createdAt))
    .limit(limit);
}
