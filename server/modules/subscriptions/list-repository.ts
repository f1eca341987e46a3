// SQL for the subscriptions list (GET /v1/subscriptions/ and the customer portal's): every filter
// Polar's contract declares, under the caller's scope.
import { and, asc, count, eq, gt, gte, inArray, lt, lte, type SQL, sql } from "drizzle-orm";
import { anyOf } from "../../../db/bulk.ts";
import type { Db } from "../../../db/client.ts";
import {
  customers,
  discounts,
  organization,
  products,
  subscriptions,
} from "../../../db/schema/index.ts";
import { customerIdsByExternalId } from "../customers/queries.ts";
import { metadataCondition, type MetadataFilter } from "../../lib/metadata.ts";
import type { OrgScope } from "../../lib/org-scope.ts";
import { referencedValue, sortTerms } from "../../lib/sort-sql.ts";

export interface SubscriptionFilter {
  productIds?: string[] | undefined;
  customerIds?: string[] | undefined;
  /** Customers by the seller's own id for them (unique per organization, so read in the scope). */
  externalCustomerIds?: string[] | undefined;
  discountIds?: string[] | undefined;
  statuses?: string[] | undefined;
  active?: boolean | undefined;
  cancelAtPeriodEnd?: boolean | undefined;
  cancellationReasons?: string[] | undefined;
  /** Inclusive bounds, as Polar's contract says ("after or equal to"). */
  canceledAtAfter?: Date | undefined;
  canceledAtBefore?: Date | undefined;
  /** Strict bounds, as Polar compares them (and as the subscriptions export does). */
  startedAfter?: Date | undefined;
  startedBefore?: Date | undefined;
  metadata?: MetadataFilter | undefined;
}

// Polar's SubscriptionSortProperty and the portal's CustomerSubscriptionSortProperty: the keys
// naming another object sort by the customer's email, the product's and discount's name and the
// organization's slug.
const SORTS = {
  created_at: subscriptions.createdAt,
  customer: referencedValue(customers.email, customers.id, subscriptions.customerId),
  started_at: subscriptions.startedAt,
  current_period_end: subscriptions.currentPeriodEnd,
  ended_at: subscriptions.endedAt,
  ends_at: subscriptions.endsAt,
  amount: subscriptions.amount,
  status: subscriptions.status,
  product: referencedValue(products.name, products.id, subscriptions.productId),
  discount: referencedValue(discounts.name, discounts.id, subscriptions.discountId),
  organization: referencedValue(organization.slug, organization.id, subscriptions.organizationId),
  // The seller's list (SELLER_SORTS in schemas.ts), as Polar's SubscriptionRepository sorts.
  status_rank: sql`case ${subscriptions.status} when 'incomplete' then 1
    when 'incomplete_expired' then 2 when 'trialing' then 3
    when 'active' then case when ${subscriptions.cancelAtPeriodEnd} then 5 else 4 end
    when 'paused' then 6 when 'past_due' then 7 when 'canceled' then 8 when 'unpaid' then 9 end`,
  monthly_amount: sql`case ${subscriptions.recurringInterval} when 'year' then ${subscriptions.amount} / 12.0
    when 'week' then ${subscriptions.amount} * 4 when 'day' then ${subscriptions.amount} * 30
    else ${subscriptions.amount} end`,
} as const;
export type SubscriptionSort = keyof typeof SORTS;

function conditions(db: Db, scope: OrgScope, f: SubscriptionFilter): SQL[] {
  const conds: SQL[] = [inArray(subscriptions.organizationId, [...scope])];
  if (f.productIds?.length) conds.push(anyOf(subscriptions.productId, f.productIds));
  if (f.customerIds?.length) conds.push(anyOf(subscriptions.customerId, f.customerIds));
  if (f.externalCustomerIds?.length) {
    conds.push(
      inArray(subscriptions.customerId, customerIdsByExternalId(db, scope, f.externalCustomerIds)),
    );
  }
  if (f.discountIds?.length) conds.push(anyOf(subscriptions.discountId, f.discountIds));
  if (f.statuses?.length) conds.push(inArray(subscriptions.status, f.statuses));
  if (f.active !== undefined)
    conds.push(
      f.active
        ? inArray(subscriptions.status, ["active", "trialing", "past_due"])
        : inArray(subscriptions.status, ["canceled", "incomplete_expired", "unpaid"]),
    );
  if (f.cancelAtPeriodEnd !== undefined)
    conds.push(eq(subscriptions.cancelAtPeriodEnd, f.cancelAtPeriodEnd));
  if (f.cancellationReasons?.length)
    conds.push(inArray(subscriptions.customerCancellationReason, f.cancellationReasons));
  if (f.canceledAtAfter) conds.push(gte(subscriptions.canceledAt, f.canceledAtAfter));
  if (f.canceledAtBefore) conds.push(lte(subscriptions.canceledAt, f.canceledAtBefore));
  if (f.startedAfter) conds.push(gt(subscriptions.startedAt, f.startedAfter));
  if (f.startedBefore) conds.push(lt(subscriptions.startedAt, f.startedBefore));
  const metadata = f.metadata ? metadataCondition(subscriptions.metadata, f.metadata) : undefined;
  if (metadata) conds.push(metadata);
  return conds;
}

export async function listSubscriptions(
  db: Db,
  scope: OrgScope,
  f: SubscriptionFilter,
  sorting: { key: SubscriptionSort; desc: boolean }[],
  limit: number,
  offset: number,
) {
  if (scope.length === 0) return { rows: [], total: 0 };
  const where = and(...conditions(db, scope, f));
  const order = sortTerms(sorting, SORTS);
  const [rows, [totals]] = await Promise.all([
    db
      .select()
      .from(subscriptions)
      .where(where)
      .orderBy(...order, asc(subscriptions.id))
      .limit(limit)
      .offset(offset),
    db.select({ n: count() }).from(subscriptions).where(where),
  ]);
  return { rows, total: totals!.n };
}
