// Orders: one per paid checkout (and later per renewal), with its line items and the amounts as
// charged. Read by the seller through the API; written only by checkout fulfilment and refunds.
import type { Db, Tx } from "../../../db/client.ts";
import type { AuthContext } from "../../lib/auth-context.ts";
import { ResourceNotFound } from "../../lib/errors.ts";
import type { MetadataFilter } from "../../lib/metadata.ts";
import { offsetOf, pageOf, type Pagination } from "../../lib/pagination.ts";
import { customersByIds } from "../customers/queries.ts";
import type { CustomerOut } from "../customers/schemas.ts";
import { serializeDiscount, discountOf } from "../discounts/service.ts";
import { type OrgScope, scopeOfCaller, scopeOfResource } from "../../lib/org-scope.ts";
import type { ProductOut } from "../products/schemas.ts";
import { serializeProductsByIds } from "../products/service.ts";
import { subscriptionsByIds } from "../subscriptions/service.ts";
import { takeDocumentNumber } from "./numbers.ts";
import * as repo from "./repository.ts";
import { orderOut, type OrderListQuery } from "./schemas.ts";

export { dueAmountOf, periodStartOfKey } from "./schemas.ts";
export type { ReceiptFacts } from "./repository.ts";

export interface OrderDeps {
  db: Db;
  baseUrl: string;
}

/**
 * The orders as the API shows them. `known` holds what the caller has already read or written in
 * its transaction (a batch of renewals renders its orders from one read of their customers and
 * products, and from the items it has just inserted); each list must cover every row.
 */
export async function serializeOrders(
  db: Db,
  baseUrl: string,
  rows: repo.OrderRow[],
  known: {
    customers?: CustomerOut[];
    products?: ProductOut[];
    subscriptions?: Awaited<ReturnType<typeof subscriptionsByIds>>;
    items?: repo.OrderItemRow[];
  } = {},
) {
  if (rows.length === 0) return [];
  const scope = scopeOfResource(...rows);
  const [items, customers, products, subscriptions] = await Promise.all([
    known.items ??
      repo.itemsOf(
        db,
        scope,
        rows.map((r) => r.id),
      ),
    known.customers ?? customersByIds(db, scope, [...new Set(rows.map((r) => r.customerId))]),
    known.products ??
      serializeProductsByIds(db, baseUrl, scope, [
        ...new Set(rows.flatMap((r) => (r.productId ? [r.productId] : []))),
      ]),
    known.subscriptions ??
      subscriptionsByIds(db, scope, [
        ...new Set(rows.flatMap((r) => (r.subscriptionId ? [r.subscriptionId] : []))),
      ]),
  ]);
  const customerById = new Map(customers.map((c) => [c.id, c]));
  const productById = new Map(products.map((p) => [p.id, p]));
  const subscriptionById = new Map(subscriptions.map((s) => [s.id, s]));
  // Grouped in itemsOf's order (position, then id), so known items render as a read would.
  const itemsByOrder = new Map<string, repo.OrderItemRow[]>();
  for (const i of [...items].sort(byPositionThenId)) {
    const list = itemsByOrder.get(i.orderId) ?? [];
    list.push(i);
    itemsByOrder.set(i.orderId, list);
  }
  return Promise.all(
    rows.map(async (o) => {
      const discount = o.discountId ? await discountOf(db, scopeOfResource(o), o.discountId) : null;
      return orderOut(o, {
        items: itemsByOrder.get(o.id) ?? [],
        customer: customerById.get(o.customerId)!,
        product: o.productId ? (productById.get(o.productId) ?? null) : null,
        discount: discount ? await serializeDiscount(db, discount) : null,
        subscription: o.subscriptionId ? (subscriptionById.get(o.subscriptionId) ?? null) : null,
      });
    }),
  );
}

function byPositionThenId(a: repo.OrderItemRow, b: repo.OrderItemRow): number {
  return a.position - b.position || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export async function listOrders(
  deps: OrderDeps,
  ctx: AuthContext,
  q: OrderListQuery,
  page: Pagination,
  metadata: MetadataFilter = {},
) {
  // Both billing types named (or none) filter nothing; one names the orders of subscriptions or not.
  const billingTypes = new Set(q.product_billing_type ?? []);
  const { rows, total } = await repo.listOrders(
    deps.db,
    {
      scope: scopeOfCaller(ctx, q.organization_id),
      productIds: q.product_id,
      customerIds: q.customer_id,
      externalCustomerIds: q.external_customer_id,
      checkoutIds: q.checkout_id,
      subscriptionIds: q.subscription_id,
      discountIds: q.discount_id,
      statuses: q.status,
      createdAfter: q.created_after,
      createdBefore: q.created_before,
      metadata,
      recurring: billingTypes.size === 1 ? billingTypes.has("recurring") : undefined,
    },
    q.sorting,
    page.limit,
    offsetOf(page),
  );
  return pageOf(await serializeOrders(deps.db, deps.baseUrl, rows), total, page);
}

/** An order rendered, read under the scope the caller holds (an API caller's or a portal session's). */
export async function getOrder(deps: OrderDeps, scope: OrgScope, id: string) {
  const row = await repo.findOrder(deps.db, scope, id);
  if (!row) throw new ResourceNotFound("Order not found.");
  return (await serializeOrders(deps.db, deps.baseUrl, [row]))[0]!;
}

export { insertNumberedOrders, insertOrder, insertOrderOnce } from "./numbers.ts";
export const updateOrderRow = repo.updateOrder;
export const insertDraftOrder = repo.insertDraftOrder;
export const settleDraftAttempt = repo.settleDraftAttempt;
export const staleFinalizingForJob = repo.staleFinalizingForJob;
export type { OrderRow } from "./repository.ts";

/** One customer's orders, for the customer portal, under its session's scope. */
export async function listCustomerOrders(
  deps: OrderDeps,
  scope: OrgScope,
  customerId: string,
  f: {
    productIds?: string[] | undefined;
    subscriptionIds?: string[] | undefined;
    recurring?: boolean | undefined;
  },
  sorting: { key: repo.OrderSort; desc: boolean }[],
  page: Pagination,
) {
  const { rows, total } = await repo.listOrders(
    deps.db,
    {
      scope,
      customerIds: [customerId],
      ...f,
      excludeDrafts: true,
    },
    sorting,
    page.limit,
    offsetOf(page),
  );
  return pageOf(await serializeOrders(deps.db, deps.baseUrl, rows), total, page);
}

// For refunds: the order row locked for the refund's amounts, and the amounts recorded on it.

export async function findOrderRow(db: Db, scope: OrgScope, id: string) {
  return repo.findOrder(db, scope, id);
}

/** The subscription's order still waiting for a payment (dunning), under the subscription's scope. */
export function pendingOrderOfSubscription(
  db: Db,
  subscription: { id: string; organizationId: string },
) {
  return repo.pendingOrderOfSubscription(db, scopeOfResource(subscription), subscription.id);
}

/** Every order of the subscription still waiting for a payment (what its revoke voids). */
export function pendingOrdersOfSubscription(
  db: Db,
  subscription: { id: string; organizationId: string },
) {
  return repo.pendingOrdersOfSubscription(db, scopeOfResource(subscription), subscription.id);
}

/** An order by id alone, for a signed document URL (the signature is the credential). */
export function orderForSignedUrl(db: Db, id: string) {
  return repo.findOrderForSignedUrl(db, id);
}

/** What receipts say of orders by id in any organization (their job checked tenancy). */
export function receiptFactsForJob(db: Db, ids: string[]) {
  return repo.findReceiptFactsForJob(db, ids);
}

type Numbered = Pick<repo.OrderRow, "organizationId" | "customerId">;

/** The order's next invoice number, taken in the caller's transaction (gapless). */
export function nextInvoiceNumber(tx: Tx, order: Numbered) {
  return takeDocumentNumber(tx, order, "invoice");
}

/** The order's next receipt number, taken in the caller's transaction (gapless). */
export function nextReceiptNumber(tx: Tx, order: Numbered) {
  return takeDocumentNumber(tx, order, "receipt");
}

export function lockOrder(tx: Tx, scope: OrgScope, id: string) {
  return repo.lockOrder(tx, scope, id);
}

/** For processor webhooks that name only the payment: see the repository's reader. */
export function lockOrderByPaymentForProcessor(tx: Tx, processorPaymentId: string) {
  return repo.lockOrderByPaymentForProcessor(tx, processorPaymentId);
}

/**
 * Adds a succeeded refund to the order (negative amounts take back one the processor failed):
 * refunded amounts, and the status they amount to.
 */
export async function recordOrderRefund(
  tx: Tx,
  order: repo.OrderRow,
  amount: number,
  taxAmount: number,
  now: Date,
) {
  const refundedAmount = order.refundedAmount + amount;
  return repo.updateOrder(tx, order.id, {
    refundedAmount,
    refundedTaxAmount: order.refundedTaxAmount + taxAmount,
    status:
      refundedAmount <= 0
        ? "paid"
        : refundedAmount >= order.netAmount
          ? "refunded"
          : "partially_refunded",
    modifiedAt: now,
  });
}
