// SQL for orders and their items.
import {
  and,
  asc,
  desc,
  eq,
  getTableColumns,
  inArray,
  isNotNull,
  lt,
  lte,
  sql,
  type SQL,
} from "drizzle-orm";
import { anyOf, insertJsonRows, tableRows } from "../../../db/bulk.ts";
import { rowsOf, type Db } from "../../../db/client.ts";
import {
  customers,
  orderItems,
  orders,
  products,
  subscriptions,
} from "../../../db/schema/index.ts";
import type { OrgScope } from "../../lib/org-scope.ts";

export type OrderRow = typeof orders.$inferSelect;
export type OrderItemRow = typeof orderItems.$inferSelect;

export async function insertOrder(
  db: Db,
  values: typeof orders.$inferInsert,
  items: Omit<typeof orderItems.$inferInsert, "orderId">[],
): Promise<{ order: OrderRow; items: OrderItemRow[] }> {
  const [order] = await db.insert(orders).values(values).returning();
  return withItems(db, order!, items);
}

/** Records the invoice number an order was given (numbers.ts). */
export async function setInvoiceNumber(db: Db, id: string, invoiceNumber: string): Promise<void> {
  await db.update(orders).set({ invoiceNumber }).where(eq(orders.id, id));
}

async function withItems(
  db: Db,
  order: OrderRow,
  items: Omit<typeof orderItems.$inferInsert, "orderId">[],
): Promise<{ order: OrderRow; items: OrderItemRow[] }> {
  const inserted = items.length
    ? await db
        .insert(orderItems)
        .values(items.map((i, position) => ({ ...i, orderId: order.id, position })))
        .returning()
    : [];
  return { order, items: inserted };
}

/**
 * Inserts the order unless one with its billing key exists (a renewal run twice, by a retried job or
 * a second worker): null then, and nothing is written. The unique key decides, not a prior read.
 */
export async function insertOrderOnce(
  db: Db,
  values: typeof orders.$inferInsert & { billingKey: string },
  items: Omit<typeof orderItems.$inferInsert, "orderId">[],
): Promise<{ order: OrderRow; items: OrderItemRow[] } | null> {
  const [order] = await db
    .insert(orders)
    .values(values)
    .onConflictDoNothing({ target: orders.billingKey })
    .returning();
  if (!order) return null;
  return withItems(db, order, items);
}

/**
 * Many insertOrderOnce in a few statements: the orders whose billing key is new are inserted and
 * given their items; the others (made by an earlier run) are left. Answers what was inserted, as
 * the statements returned it (no read back).
 */
export async function insertOrdersOnce(
  db: Db,
  list: {
    values: typeof orders.$inferInsert & { billingKey: string };
    items: Omit<typeof orderItems.$inferInsert, "orderId">[];
  }[],
): Promise<{ orders: OrderRow[]; items: OrderItemRow[] }> {
  if (list.length === 0) return { orders: [], items: [] };
  const inserted = tableRows(
    orders,
    rowsOf<Record<string, unknown>>(
      await db.execute(
        sql`${insertJsonRows(
          orders,
          list.map((l) => l.values),
        )} on conflict (billing_key) do nothing returning *`,
      ),
    ),
  );
  const itemsByKey = new Map(list.map((l) => [l.values.billingKey, l.items]));
  const items = inserted.flatMap((o) =>
    (itemsByKey.get(o.billingKey!) ?? []).map((i, position) => ({ ...i, orderId: o.id, position })),
  );
  if (items.length === 0) return { orders: inserted, items: [] };
  const insertedItems = tableRows(
    orderItems,
    rowsOf<Record<string, unknown>>(
      await db.execute(sql`${insertJsonRows(orderItems, items)} returning *`),
    ),
  );
  return { orders: inserted, items: insertedItems };
}

/** Pending orders of the subscriptions (the partial index on subscription_id), under `scope`. */
function pendingOf(scope: OrgScope, subscriptionIds: string[], ...more: (SQL | undefined)[]) {
  return and(
    anyOf(orders.subscriptionId, subscriptionIds),
    eq(orders.status, "pending"),
    inArray(orders.organizationId, [...scope]),
    ...more,
  );
}

const meterCycle = eq(orders.billingReason, "subscription_meter_cycle");

/** The subscription's order still waiting for a payment (dunning), newest first. */
export async function pendingOrderOfSubscription(
  db: Db,
  scope: OrgScope,
  subscriptionId: string,
): Promise<OrderRow | null> {
  if (scope.length === 0) return null;
  const [row] = await db
    .select()
    .from(orders)
    .where(pendingOf(scope, [subscriptionId]))
    .orderBy(desc(orders.createdAt))
    .limit(1);
  return row ?? null;
}

/** Every order of the subscription still waiting for a payment, oldest first. */
export async function pendingOrdersOfSubscription(
  db: Db,
  scope: OrgScope,
  subscriptionId: string,
): Promise<OrderRow[]> {
  if (scope.length === 0) return [];
  return db
    .select()
    .from(orders)
    .where(pendingOf(scope, [subscriptionId]))
    .orderBy(asc(orders.createdAt), asc(orders.id));
}

/**
 * The subscription's oldest meter-cycle order whose next payment attempt is due at `at`: such an
 * order is retried on its own, without the subscription going past_due (as Polar).
 */
export async function dueMeterOrderOfSubscription(
  db: Db,
  scope: OrgScope,
  subscriptionId: string,
  at: Date,
): Promise<OrderRow | null> {
  if (scope.length === 0) return null;
  const [row] = await db
    .select()
    .from(orders)
    .where(pendingOf(scope, [subscriptionId], meterCycle, lte(orders.nextPaymentAttemptAt, at)))
    .orderBy(asc(orders.createdAt))
    .limit(1);
  return row ?? null;
}

/** The next payment attempt of each subscription's pending meter-cycle orders, the earliest. */
export async function meterRetriesOf(
  db: Db,
  scope: OrgScope,
  subscriptionIds: string[],
): Promise<Map<string, Date>> {
  if (scope.length === 0 || subscriptionIds.length === 0) return new Map();
  const rows = await db
    .select({
      subscriptionId: orders.subscriptionId,
      at: sql<Date>`min(${orders.nextPaymentAttemptAt})`.mapWith(orders.nextPaymentAttemptAt),
    })
    .from(orders)
    .where(pendingOf(scope, subscriptionIds, meterCycle, isNotNull(orders.nextPaymentAttemptAt)))
    .groupBy(orders.subscriptionId);
  return new Map(rows.map((r) => [r.subscriptionId!, r.at]));
}

export async function findOrder(db: Db, scope: OrgScope, id: string): Promise<OrderRow | null> {
  if (scope.length === 0) return null;
  const [row] = await db
    .select()
    .from(orders)
    .where(and(eq(orders.id, id), inArray(orders.organizationId, [...scope])))
    .limit(1);
  return row ?? null;
}

/**
 * The order a processor's payment paid for, locked (refunds and disputes made at the processor).
 * No scope applies: a processor webhook names only its payment, and the order it finds is the
 * scope of everything read after.
 */
export async function lockOrderByPaymentForProcessor(
  db: Db,
  processorPaymentId: string,
): Promise<OrderRow | null> {
  const [row] = await db
    .select()
    .from(orders)
    .where(eq(orders.processorPaymentId, processorPaymentId))
    .limit(1)
    .for("update");
  return row ?? null;
}

/**
 * By id alone, for a signed document URL: no scope applies, the signature over the order id is the
 * credential.
 */
export async function findOrderForSignedUrl(db: Db, id: string): Promise<OrderRow | null> {
  const [row] = await db.select().from(orders).where(eq(orders.id, id)).limit(1);
  return row ?? null;
}

/** What a receipt email says about its order (invoices/receipt-mail.ts). */
export interface ReceiptFacts {
  id: string;
  organizationId: string;
  customerId: string;
  invoiceNumber: string | null;
  billingReason: string;
  billingKey: string | null;
  currency: string;
  totalAmount: number;
  appliedBalanceAmount: number;
  processorPaymentId: string | null;
  customerEmail: string;
  productName: string | null;
  trialEnd: Date | null;
}

/**
 * By id alone, for a job that holds only order ids (their tenancy was checked when the job was
 * queued): no scope applies. Only what a receipt names, in one read: rendering the whole order
 * (customer, product with prices and benefits, subscription, items) cost a burst of renewals more
 * than writing the orders.
 */
export async function findReceiptFactsForJob(db: Db, ids: string[]): Promise<ReceiptFacts[]> {
  if (ids.length === 0) return [];
  return db
    .select({
      id: orders.id,
      organizationId: orders.organizationId,
      customerId: orders.customerId,
      invoiceNumber: orders.invoiceNumber,
      billingReason: orders.billingReason,
      billingKey: orders.billingKey,
      currency: orders.currency,
      totalAmount: orders.totalAmount,
      appliedBalanceAmount: orders.appliedBalanceAmount,
      processorPaymentId: orders.processorPaymentId,
      customerEmail: customers.email,
      productName: products.name,
      trialEnd: subscriptions.trialEnd,
    })
    .from(orders)
    .innerJoin(customers, eq(customers.id, orders.customerId))
    .leftJoin(products, eq(products.id, orders.productId))
    .leftJoin(subscriptions, eq(subscriptions.id, orders.subscriptionId))
    .where(anyOf(orders.id, ids));
}

export async function lockOrder(db: Db, scope: OrgScope, id: string): Promise<OrderRow | null> {
  if (scope.length === 0) return null;
  const [row] = await db
    .select()
    .from(orders)
    .where(and(eq(orders.id, id), inArray(orders.organizationId, [...scope])))
    .for("update");
  return row ?? null;
}

export async function updateOrder(
  db: Db,
  id: string,
  values: Partial<typeof orders.$inferInsert>,
): Promise<OrderRow> {
  const [row] = await db.update(orders).set(values).where(eq(orders.id, id)).returning();
  return row!;
}

/** The items of the orders, read through their order so only the scope's orders give any. */
export async function itemsOf(
  db: Db,
  scope: OrgScope,
  orderIds: string[],
): Promise<OrderItemRow[]> {
  if (orderIds.length === 0 || scope.length === 0) return [];
  // A join, not `order_id in (…) and order_id in (select …)`: with both lists the planner chose a
  // nested loop that scanned the items once per order (quadratic in a renewal batch).
  return db
    .select(getTableColumns(orderItems))
    .from(orderItems)
    .innerJoin(orders, eq(orders.id, orderItems.orderId))
    .where(and(anyOf(orderItems.orderId, orderIds), inArray(orders.organizationId, [...scope])))
    .orderBy(asc(orderItems.position), asc(orderItems.id));
}

export { listOrders, type OrderFilter, type OrderSort } from "./list-repository.ts";

// Draft orders (POST /v1/orders/): inserted without an invoice number, numbered when paid.

export async function insertDraftOrder(
  db: Db,
  values: typeof orders.$inferInsert,
  items: Omit<typeof orderItems.$inferInsert, "orderId">[],
): Promise<{ order: OrderRow; items: OrderItemRow[] }> {
  const [order] = await db.insert(orders).values(values).returning();
  return withItems(db, order!, items);
}

/**
 * Applies the outcome of a draft's attempt: only while the order is still a draft under that attempt
 * (and, when `claimOpen`, with its claim not yet released), so a finalize, a repeated finalize and
 * the reconciler racing over one charge settle it once (the others get null).
 */
export async function settleDraftAttempt(
  db: Db,
  id: string,
  attempt: number,
  values: Partial<typeof orders.$inferInsert>,
  claimOpen: boolean,
): Promise<OrderRow | null> {
  const [row] = await db
    .update(orders)
    .set(values)
    .where(
      and(
        eq(orders.id, id),
        eq(orders.status, "draft"),
        eq(orders.paymentAttempts, attempt),
        claimOpen ? isNotNull(orders.finalizingAt) : undefined,
      ),
    )
    .returning();
  return row ?? null;
}

/**
 * Drafts whose finalize claimed an attempt before `cutoff` and never settled it (a crash), in every
 * organization: no scope applies to the reconciler's sweep, each row is the scope of what follows.
 */
export async function staleFinalizingForJob(
  db: Db,
  cutoff: Date,
  limit: number,
): Promise<OrderRow[]> {
  return db
    .select()
    .from(orders)
    .where(and(eq(orders.status, "draft"), lt(orders.finalizingAt, cutoff)))
    .orderBy(asc(orders.finalizingAt))
    .limit(limit);
}

/** Whether the organization has an order that charged anything (a total above zero). */
export async function anyChargedOrder(db: Db, scope: OrgScope): Promise<boolean> {
  const [row] = await db
    .select({ id: orders.id })
    .from(orders)
    .where(and(inArray(orders.organizationId, [...scope]), sql`${orders.totalAmount} > 0`))
    .limit(1);
  return row !== undefined;
}
