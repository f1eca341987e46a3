// SQL for the grant lists: the seller's (GET /v1/benefit-grants/, a benefit's grants) and the
// customer portal's (one customer's grants, with every filter and sort key of Polar's contract, and
// one of them by id under the same rule of what the customer may read).
import {
  and,
  asc,
  count,
  eq,
  ilike,
  inArray,
  isNotNull,
  isNull,
  or,
  type SQL,
  sql,
} from "drizzle-orm";
import { anyOf } from "../../../db/bulk.ts";
import type { Db } from "../../../db/client.ts";
import {
  benefitGrants,
  benefits,
  orders,
  organization,
  productBenefits,
  subscriptions,
} from "../../../db/schema/index.ts";
import type { OrgScope } from "../../lib/org-scope.ts";
import { containsPattern } from "../../lib/query.ts";
import { customerIdsByExternalId } from "../customers/queries.ts";
import { referencedValue, sortTerms } from "../../lib/sort-sql.ts";
import type { GrantRow } from "./repository.ts";

export interface GrantFilter {
  scope: OrgScope;
  benefitIds?: string[] | undefined;
  customerIds?: string[] | undefined;
  externalCustomerIds?: string[] | undefined;
  isGranted?: boolean | undefined;
}

const GRANT_SORTS = {
  created_at: benefitGrants.createdAt,
  granted_at: benefitGrants.grantedAt,
  revoked_at: benefitGrants.revokedAt,
} as const;
export type GrantSort = keyof typeof GRANT_SORTS;

/** One page of the grants matching `where` in `order` (the id last, so pages never overlap). */
async function pageOfGrants(
  db: Db,
  where: SQL | undefined,
  order: SQL[],
  limit: number,
  offset: number,
): Promise<{ rows: GrantRow[]; total: number }> {
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(benefitGrants)
      .where(where)
      .orderBy(...order, asc(benefitGrants.id))
      .limit(limit)
      .offset(offset),
    db.select({ n: count() }).from(benefitGrants).where(where),
  ]);
  return { rows, total: Number(total?.n ?? 0) };
}

export async function listGrants(
  db: Db,
  f: GrantFilter,
  sorting: { key: GrantSort; desc: boolean }[],
  limit: number,
  offset: number,
) {
  if (f.scope.length === 0) return { rows: [] as GrantRow[], total: 0 };
  const conds: SQL[] = [inArray(benefitGrants.organizationId, [...f.scope])];
  if (f.benefitIds?.length) conds.push(anyOf(benefitGrants.benefitId, f.benefitIds));
  if (f.customerIds?.length) conds.push(anyOf(benefitGrants.customerId, f.customerIds));
  if (f.externalCustomerIds?.length) {
    conds.push(
      inArray(
        benefitGrants.customerId,
        customerIdsByExternalId(db, f.scope, f.externalCustomerIds),
      ),
    );
  }
  if (f.isGranted === true) conds.push(isNotNull(benefitGrants.grantedAt));
  if (f.isGranted === false) conds.push(isNull(benefitGrants.grantedAt));
  return pageOfGrants(db, and(...conds), sortTerms(sorting, GRANT_SORTS), limit, offset);
}

export interface CustomerGrantFilter {
  scope: OrgScope;
  customerId: string;
  /** Part of the benefit's description, as Polar's `query`. */
  query?: string | undefined;
  types?: string[] | undefined;
  benefitIds?: string[] | undefined;
  /** The checkout of the grant's subscription or of its order. */
  checkoutIds?: string[] | undefined;
  orderIds?: string[] | undefined;
  subscriptionIds?: string[] | undefined;
  memberIds?: string[] | undefined;
}

// The product a grant came from: its subscription's (the plan it is on now), else its order's.
const subscriptionProduct = referencedValue(
  subscriptions.productId,
  subscriptions.id,
  benefitGrants.subscriptionId,
);
const orderProduct = referencedValue(orders.productId, orders.id, benefitGrants.orderId);

// Polar's CustomerBenefitGrantSortProperty: the benefit's type, the seller's slug (one seller per
// session, so it ties), and product_benefit, the benefit's place among its product's benefits
// (null, so last ascending, once the product no longer carries it).
const CUSTOMER_GRANT_SORTS = {
  granted_at: benefitGrants.grantedAt,
  type: referencedValue(benefits.type, benefits.id, benefitGrants.benefitId),
  organization: referencedValue(organization.slug, organization.id, benefitGrants.organizationId),
  product_benefit: sql`(select ${productBenefits.order} from ${productBenefits}
    where ${productBenefits.benefitId} = ${benefitGrants.benefitId}
      and ${productBenefits.productId} = coalesce(${subscriptionProduct}, ${orderProduct}))`,
} as const;
export type CustomerGrantSort = keyof typeof CUSTOMER_GRANT_SORTS;

/** Grants whose benefit, in the scope, matches `where`. */
const benefitIs = (db: Db, scope: OrgScope, where: SQL) =>
  inArray(
    benefitGrants.benefitId,
    db
      .select({ id: benefits.id })
      .from(benefits)
      .where(and(inArray(benefits.organizationId, [...scope]), where)),
  );

/**
 * What a customer may read in the portal, as Polar's readable grant statement: their own grants,
 * not revoked, of a public benefit. A grant queued for revocation is still readable, as in Polar,
 * where its job sets revoked_at; a deleted benefit's grants are left out too (its deletion queued
 * their revocation), where Polar would show them until then.
 */
function readableBy(db: Db, scope: OrgScope, customerId: string): SQL[] {
  return [
    inArray(benefitGrants.organizationId, [...scope]),
    eq(benefitGrants.customerId, customerId),
    isNull(benefitGrants.revokedAt),
    benefitIs(db, scope, and(eq(benefits.visibility, "public"), isNull(benefits.deletedAt))!),
  ];
}

function customerConditions(db: Db, f: CustomerGrantFilter): SQL[] {
  const conds = readableBy(db, f.scope, f.customerId);
  if (f.query)
    conds.push(benefitIs(db, f.scope, ilike(benefits.description, containsPattern(f.query))));
  if (f.types?.length) conds.push(benefitIs(db, f.scope, inArray(benefits.type, f.types)));
  if (f.benefitIds?.length) conds.push(anyOf(benefitGrants.benefitId, f.benefitIds));
  if (f.checkoutIds?.length) {
    const ids = f.checkoutIds;
    conds.push(
      or(
        inArray(
          benefitGrants.subscriptionId,
          db
            .select({ id: subscriptions.id })
            .from(subscriptions)
            .where(anyOf(subscriptions.checkoutId, ids)),
        ),
        inArray(
          benefitGrants.orderId,
          db.select({ id: orders.id }).from(orders).where(anyOf(orders.checkoutId, ids)),
        ),
      )!,
    );
  }
  if (f.orderIds?.length) conds.push(anyOf(benefitGrants.orderId, f.orderIds));
  if (f.subscriptionIds?.length) conds.push(anyOf(benefitGrants.subscriptionId, f.subscriptionIds));
  // A till grant has no member (its member_id is null), so as Polar's `member_id IN (…)`, none match.
  if (f.memberIds?.length) conds.push(sql`false`);
  return conds;
}

export async function listCustomerGrants(
  db: Db,
  f: CustomerGrantFilter,
  sorting: { key: CustomerGrantSort; desc: boolean }[],
  limit: number,
  offset: number,
) {
  if (f.scope.length === 0) return { rows: [] as GrantRow[], total: 0 };
  const order = sortTerms(sorting, CUSTOMER_GRANT_SORTS);
  return pageOfGrants(db, and(...customerConditions(db, f)), order, limit, offset);
}

/** One grant the customer may read (locked, for a write, when `lock`), or null. */
export async function readableGrant(
  db: Db,
  customer: { scope: OrgScope; customerId: string },
  id: string,
  lock = false,
): Promise<GrantRow | null> {
  if (customer.scope.length === 0) return null;
  const query = db
    .select()
    .from(benefitGrants)
    .where(and(eq(benefitGrants.id, id), ...readableBy(db, customer.scope, customer.customerId)));
  const [row] = lock ? await query.for("update") : await query;
  return row ?? null;
}
