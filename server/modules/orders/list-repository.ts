// SQL for the orders list (GET /v1/orders/ and the customer portal's): every filter Polar's
// contract declares, under the caller's scope.
import { and, asc, count, gt, inArray, isNotNull, isNull, lt, ne, type SQL } from "drizzle-orm";
import { anyOf } from "../../../db/bulk.ts";
import type { Db } from "../../../db/client.ts";
import { customers, discounts, orders, products } from "../../../db/schema/index.ts";
import { customerIdsByExternalId } from "../customers/queries.ts";
import { metadataCondition, type MetadataFilter } from "../../lib/metadata.ts";
import type { OrgScope } from "../../lib/org-scope.ts";
import { rankOf, referencedValue, sortTerms } from "../../lib/sort-sql.ts";

export interface OrderFilter {
  scope: OrgScope;
  productIds?: string[] | undefined;
  customerIds?: string[] | undefined;
  /** Customers by the seller's own id for them (unique per organization, so read in the scope). */
  externalCustomerIds?: string[] | undefined;
  subscriptionIds?: string[] | undefined;
  checkoutIds?: string[] | undefined;
  discountIds?: string[] | undefined;
  statuses?: string[] | undefined;
  /** Strictly after / before, as Polar compares them. */
  createdAfter?: Date | undefined;
  createdBefore?: Date | undefined;
  metadata?: MetadataFilter | undefined;
  /** Orders of a subscription (recurring products) or not (one-time purchases). */
  recurring?: boolean | undefined;
  /** Leave out drafts: a seller's unfinalized order is not yet the customer's to see. */
  excludeDrafts?: boolean | undefined;
}

// Polar's OrderSortProperty: status by its place in an order's life (not alphabetically), the keys
// naming another object by the customer's email, the product's and the discount's name, and the
// subscription's id (ordering orders of one subscription together).
const SORTS = {
  created_at: orders.createdAt,
  status: rankOf(orders.status, [
    "draft",
    "pending",
    "paid",
    "partially_refunded",
    "refunded",
    "void",
  ]),
  invoice_number: orders.invoiceNumber,
  // As Polar's OrderRepository: amount and net_amount both sort by the net amount.
  amount: orders.netAmount,
  net_amount: orders.netAmount,
  customer: referencedValue(customers.email, customers.id, orders.customerId),
  product: referencedValue(products.name, products.id, orders.productId),
  discount: referencedValue(discounts.name, discounts.id, orders.discountId),
  subscription: orders.subscriptionId,
} as const;
export type OrderSort = keyof typeof SORTS;

function conditions(db: Db, f: OrderFilter): SQL[] {
  const conds: SQL[] = [inArray(orders.organizationId, [...f.scope])];
  if (f.productIds?.length) conds.push(anyOf(orders.productId, f.productIds));
  if (f.customerIds?.length) conds.push(anyOf(orders.customerId, f.customerIds));
  if (f.externalCustomerIds?.length) {
    conds.push(
      inArray(orders.customerId, customerIdsByExternalId(db, f.scope, f.externalCustomerIds)),
    );
  }
  if (f.subscriptionIds?.length) conds.push(anyOf(orders.subscriptionId, f.subscriptionIds));
  if (f.checkoutIds?.length) conds.push(anyOf(orders.checkoutId, f.checkoutIds));
  if (f.discountIds?.length) conds.push(anyOf(orders.discountId, f.discountIds));
  if (f.statuses?.length) conds.push(inArray(orders.status, f.statuses));
  if (f.createdAfter) conds.push(gt(orders.createdAt, f.createdAfter));
  if (f.createdBefore) conds.push(lt(orders.createdAt, f.createdBefore));
  const metadata = f.metadata ? metadataCondition(orders.metadata, f.metadata) : undefined;
  if (metadata) conds.push(metadata);
  if (f.recurring !== undefined)
    conds.push(f.recurring ? isNotNull(orders.subscriptionId) : isNull(orders.subscriptionId));
  if (f.excludeDrafts) conds.push(ne(orders.status, "draft"));
  return conds;
}

export async function listOrders(
  db: Db,
  f: OrderFilter,
  sorting: { key: OrderSort; desc: boolean }[],
  limit: number,
  offset: number,
) {
  if (f.scope.length === 0) return { rows: [], total: 0 };
  const where = and(...conditions(db, f));
  const order = sortTerms(sorting, SORTS);
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
