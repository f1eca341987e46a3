// SQL for orders and their items.
import {
  and,
  asc,
  count,
  desc,
  eq,
  getTableColumns,
  inArray,
  isNotNull,
  isNull,
  lt,
  ne,
  sql,
  type SQL,
} from "drizzle-orm";
import { anyOf, insertJsonRows, tableRows } from "../../../db/bulk.ts";
import { queryRows, rowsOf, type Db } from "../../../db/client.ts";
import { documentCounters, orderItems, orders } from "../../../db/schema/index.ts";
import type { OrgScope } from "../../lib/org-scope.ts";

export type OrderRow = typeof orders.$inferSelect;
export type OrderItemRow = typeof orderItems.$inferSelect;

export async function insertOrder(
  db: Db,
  values: typeof orders.$inferInsert,
  items: Omit<typeof orderItems.$inferInsert, "orderId">[],
): Promise<{ order: OrderRow; items: OrderItemRow[] }> {
  const [order] = await db.insert(orders).values(values).returning();
  return withItems(db, await numbered(db, order!), items);
}

/**
 * Gives a new order the organization's next invoice number (PREFIX-0001, the prefix from the
 * organization's slug). The counter row stays locked until the order's transaction ends, so a
 * rollback returns the number and concurrent orders of one organization never share or skip one.
 */
async function numbered(db: Db, order: OrderRow): Promise<OrderRow> {
  const invoiceNumber = await nextDocumentNumber(db, order.organizationId, "invoice");
  await db.update(orders).set({ invoiceNumber }).where(eq(orders.id, order.id));
  return { ...order, invoiceNumber };
}

/**
 * The organization's next invoice (PREFIX-0001) or receipt (PREFIX-R0001) number, the prefix from
 * its slug. Its counter row stays locked until the caller's transaction ends.
 */
export async function nextDocumentNumber(
  db: Db,
  organizationId: string,
  kind: "invoice" | "receipt",
): Promise<string> {
  const [row] = await queryRows<{ number: string }>(
    db,
    sql`
    with c as (
      insert into ${documentCounters} as dc (organization_id, kind, last)
      values (${organizationId}, ${kind}, 1)
      on conflict (organization_id, kind) do update set last = dc.last + 1
      returning last
    )
    select coalesce(nullif(upper(left(regexp_replace(o.slug, '[^a-zA-Z0-9]', '', 'g'), 12)), ''), 'INV')
      || ${kind === "invoice" ? "-" : "-R"} || lpad(c.last::text, 4, '0') as number
    from c, organization o where o.id = ${organizationId}`,
  );
  return row!.number;
}

async function withItems(
  db: Db,
  order: OrderRow,
  items: Omit<typeof orderItems.$inferInsert, "orderId">[],
): Promise<{ order: OrderRow; items: OrderItemRow[] }> {
  const inserted = items.length
    ? await db
        .insert(orderItems)
        .values(items.map((i) => ({ ...i, orderId: order.id })))
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
  return withItems(db, await numbered(db, order), items);
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
    (itemsByKey.get(o.billingKey!) ?? []).map((i) => ({ ...i, orderId: o.id })),
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

/**
 * insertOrdersOnce of orders that are all new, each given the next invoice number of its
 * organization, in the order given. The caller calls it as late as it can in its transaction: the
 * organization's counter row stays locked from here to commit. An order whose billing key exists
 * would leave a gap in the numbers, so one throws instead, and the caller's transaction rolls back.
 */
export async function insertNumberedOrders(
  db: Db,
  list: Parameters<typeof insertOrdersOnce>[1],
): Promise<{ orders: OrderRow[]; items: OrderItemRow[] }> {
  const numbered = [...list];
  for (const organizationId of new Set(list.map((l) => l.values.organizationId))) {
    const at = list.flatMap((l, i) => (l.values.organizationId === organizationId ? [i] : []));
    const reserved = await nextDocumentNumbers(db, organizationId, "invoice", at.length);
    for (const [k, i] of at.entries())
      numbered[i] = { ...list[i]!, values: { ...list[i]!.values, invoiceNumber: reserved[k]! } };
  }
  const inserted = await insertOrdersOnce(db, numbered);
  if (inserted.orders.length !== list.length)
    throw new Error(
      `${list.length - inserted.orders.length} of ${list.length} orders were made before: not numbered`,
    );
  return inserted;
}

/** `n` consecutive document numbers of the organization, as nextDocumentNumber gives one. */
async function nextDocumentNumbers(
  db: Db,
  organizationId: string,
  kind: "invoice" | "receipt",
  n: number,
): Promise<string[]> {
  const rows = rowsOf<{ number: string }>(
    await db.execute(sql`
    with c as (
      insert into ${documentCounters} as dc (organization_id, kind, last)
      values (${organizationId}, ${kind}, ${n})
      on conflict (organization_id, kind) do update set last = dc.last + ${n}
      returning last
    )
    select coalesce(nullif(upper(left(regexp_replace(o.slug, '[^a-zA-Z0-9]', '', 'g'), 12)), ''), 'INV')
      || ${kind === "invoice" ? "-" : "-R"} || lpad((c.last - ${n} + g)::text, 4, '0') as number
    from c, organization o, generate_series(1, ${n}::int) g
    where o.id = ${organizationId} order by g`),
  );
  return rows.map((r) => r.number);
}

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
    .where(
      and(
        eq(orders.subscriptionId, subscriptionId),
        eq(orders.status, "pending"),
        inArray(orders.organizationId, [...scope]),
      ),
    )
    .orderBy(desc(orders.createdAt))
    .limit(1);
  return row ?? null;
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

/**
 * By id alone, for a job that holds only order ids (their tenancy was checked when the job was
 * queued): no scope applies, and the rows read are the scope of everything read after.
 */
export async function findOrdersForJob(db: Db, ids: string[]): Promise<OrderRow[]> {
  if (ids.length === 0) return [];
  return db.select().from(orders).where(anyOf(orders.id, ids));
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
    .orderBy(asc(orderItems.createdAt), asc(orderItems.id));
}

export interface OrderFilter {
  scope: OrgScope;
  productIds?: string[] | undefined;
  customerIds?: string[] | undefined;
  subscriptionIds?: string[] | undefined;
  checkoutIds?: string[] | undefined;
  /** Orders of a subscription (recurring products) or not (one-time purchases). */
  recurring?: boolean | undefined;
  /** Leave out drafts: a seller's unfinalized order is not yet the customer's to see. */
  excludeDrafts?: boolean | undefined;
}

const SORTS = {
  created_at: orders.createdAt,
  amount: orders.totalAmount,
  net_amount: orders.netAmount,
} as const;
export type OrderSort = keyof typeof SORTS;

export async function listOrders(
  db: Db,
  f: OrderFilter,
  sorting: { key: OrderSort; desc: boolean }[],
  limit: number,
  offset: number,
) {
  if (f.scope.length === 0) return { rows: [], total: 0 };
  const conds: SQL[] = [inArray(orders.organizationId, [...f.scope])];
  if (f.productIds?.length) conds.push(anyOf(orders.productId, f.productIds));
  if (f.customerIds?.length) conds.push(anyOf(orders.customerId, f.customerIds));
  if (f.subscriptionIds?.length) conds.push(anyOf(orders.subscriptionId, f.subscriptionIds));
  if (f.checkoutIds?.length) conds.push(anyOf(orders.checkoutId, f.checkoutIds));
  if (f.recurring !== undefined)
    conds.push(f.recurring ? isNotNull(orders.subscriptionId) : isNull(orders.subscriptionId));
  if (f.excludeDrafts) conds.push(ne(orders.status, "draft"));
  const where = and(...conds);
  const order = sorting.map((s) => (s.desc ? desc(SORTS[s.key]) : asc(SORTS[s.key])));
  const [rows, [totals]] = await Promise.all([
    db
      .select()
      .from(orders)
      .where(where)
      .orderBy(...order, asc(orders.id))
      .limit(limit)
      .offset(offset),
    db.select({ n: count() }).from(orders).where(where),
  ]);
  return { rows, total: totals!.n };
}

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
