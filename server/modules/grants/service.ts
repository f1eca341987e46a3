// Benefit grants: which grants a purchase creates and which a change takes back. Callers run these
// inside the transaction of the change (order paid, subscription revoked, customer or benefit
// deleted, benefit removed from a product, refund); the rows are marked with what is still to do
// and a pg-boss job per grant is sent through the same transaction, so a grant exists exactly when
// the change committed, and a third party that fails never fails the change itself.
import { sql } from "drizzle-orm";
import { fromDrizzle } from "pg-boss";
import type { Db, Tx } from "../../../db/client.ts";
import type { QueueHandle } from "../../jobs/queue.ts";
import type { AuthContext } from "../../lib/auth-context.ts";
import type { Clock } from "../../lib/clock.ts";
import { ResourceNotFound } from "../../lib/errors.ts";
import { offsetOf, pageOf, type Pagination } from "../../lib/pagination.ts";
import { benefitRowsByIds } from "../benefits/service.ts";
import { benefitOut } from "../benefits/schemas.ts";
import { type OrgScope, scopeOfCaller, scopeOfResource } from "../../lib/org-scope.ts";
import { customersByIds } from "../customers/queries.ts";
import * as lists from "./list-repository.ts";
import { customerMetersOf } from "./meter-repository.ts";
import * as repo from "./repository.ts";
import { STRATEGIES } from "./strategies.ts";
import {
  customerMeterOut,
  grantOut,
  type BenefitGrantListQuery,
  type CustomerGrantListQuery,
  type CustomerMeterListQuery,
  type CustomerMeterOut,
  type GrantListQuery,
} from "./schemas.ts";

export const APPLY_GRANT_JOB = "grants.apply";

export interface GrantQueueDeps {
  clock: Clock;
  /** Null only where no queue runs (then the rows wait, marked, for a process that has one). */
  queue: QueueHandle | null;
}

/** Queues the grant jobs of rows just marked, in the caller's transaction. */
export async function enqueue(
  tx: Tx,
  deps: GrantQueueDeps,
  grants: { id: string }[],
): Promise<void> {
  if (!deps.queue || grants.length === 0) return;
  // pg-boss inserts the job with our transaction's connection, so it commits or rolls back with it.
  const db = fromDrizzle(tx as unknown as Parameters<typeof fromDrizzle>[0], sql);
  for (const g of grants) await deps.queue.boss.send(APPLY_GRANT_JOB, { grantId: g.id }, { db });
}

export interface PaidOrder {
  organizationId: string;
  /** Null for a free subscription made without an order (POST /v1/subscriptions/). */
  id: string | null;
  customerId: string;
  productId: string | null;
  subscriptionId: string | null;
}

/** One grant per benefit of the product, scoped to the subscription when there is one, else the order. */
export async function grantBenefitsForOrder(
  tx: Tx,
  deps: GrantQueueDeps,
  order: PaidOrder,
): Promise<void> {
  if (!order.productId) return;
  const now = deps.clock.now();
  const scopeId = order.subscriptionId ?? order.id;
  if (!scopeId) return;
  const marked: repo.GrantRow[] = [];
  const scope = scopeOfResource(order);
  for (const benefit of await repo.benefitsOfProduct(tx, scope, order.productId)) {
    const existing = await repo.findByScope(tx, scope, order.customerId, benefit.id, scopeId);
    if (!existing) {
      marked.push(
        await repo.insertGrant(tx, {
          organizationId: benefit.organizationId,
          customerId: order.customerId,
          benefitId: benefit.id,
          orderId: order.id,
          subscriptionId: order.subscriptionId,
          scopeId,
          pendingAction: "grant",
          createdAt: now,
        }),
      );
    } else if (
      existing.pendingAction === "revoke" &&
      existing.grantedAt &&
      !STRATEGIES[benefit.type]?.remote
    ) {
      // Still granted, its revoke not yet run (a plan change undone at once): the revoke is called
      // off, so the benefit is not granted twice (a second credit or license key). A remote one's
      // revoke may already be under way, so it is granted again after it.
      await repo.updateGrant(tx, existing.id, { pendingAction: null, modifiedAt: now });
    } else if (
      existing.pendingAction === "revoke" ||
      (!existing.grantedAt && !existing.pendingAction)
    ) {
      marked.push(
        await repo.updateGrant(tx, existing.id, { pendingAction: "grant", modifiedAt: now }),
      );
    }
  }
  await enqueue(tx, deps, marked);
}

/** The row whose grants are revoked (a subscription, order, customer, benefit or product). */
type Owner = { id: string; organizationId: string };

async function revokeWhere(
  tx: Tx,
  deps: GrantQueueDeps,
  owner: { organizationId: string },
  where: Parameters<typeof repo.markForRevoke>[2],
): Promise<number> {
  const marked = await repo.markForRevoke(tx, scopeOfResource(owner), where, deps.clock.now());
  await enqueue(tx, deps, marked);
  return marked.length;
}

export const revokeBenefitsForSubscription = (tx: Tx, deps: GrantQueueDeps, subscription: Owner) =>
  revokeWhere(tx, deps, subscription, repo.bySubscription(subscription.id));
/** A subscription moved to `productId`: the grants of benefits it no longer includes. */
export const revokeBenefitsOutsideProduct = (
  tx: Tx,
  deps: GrantQueueDeps,
  subscription: Owner,
  productId: string,
) =>
  revokeWhere(
    tx,
    deps,
    subscription,
    repo.bySubscriptionOutsideProduct(subscription.id, productId),
  );
export const revokeBenefitsForOrder = (tx: Tx, deps: GrantQueueDeps, order: Owner) =>
  revokeWhere(tx, deps, order, repo.byOneTimeOrder(order.id));
export const revokeBenefitsOfCustomer = (tx: Tx, deps: GrantQueueDeps, customer: Owner) =>
  revokeWhere(tx, deps, customer, repo.byCustomer(customer.id));
/** A seat holder's grants from the purchase their seat belonged to. */
export const revokeBenefitsOfSeatHolder = (
  tx: Tx,
  deps: GrantQueueDeps,
  seat: { organizationId: string; customerId: string; purchaseId: string },
) => revokeWhere(tx, deps, seat, repo.byCustomerScope(seat.customerId, seat.purchaseId));
export const revokeGrantsOfBenefit = (tx: Tx, deps: GrantQueueDeps, benefit: Owner) =>
  revokeWhere(tx, deps, benefit, repo.byBenefit(benefit.id));
export async function revokeBenefitsRemovedFromProduct(
  tx: Tx,
  deps: GrantQueueDeps,
  product: Owner,
  removedBenefitIds: string[],
): Promise<number> {
  if (removedBenefitIds.length === 0) return 0;
  return revokeWhere(tx, deps, product, repo.byProductBenefits(product.id, removedBenefitIds));
}

// Reading grants.

export async function serializeGrants(db: Db, rows: repo.GrantRow[]) {
  const [customers, benefits] = await Promise.all([
    customersByIds(db, scopeOfResource(...rows), [...new Set(rows.map((r) => r.customerId))]),
    benefitRowsByIds(db, scopeOfResource(...rows), [...new Set(rows.map((r) => r.benefitId))]),
  ]);
  const customerById = new Map(customers.map((c) => [c.id, c]));
  const benefitById = new Map(benefits.map((b) => [b.id, benefitOut(b)]));
  return rows.map((r) =>
    grantOut(r, customerById.get(r.customerId)!, benefitById.get(r.benefitId)!),
  );
}

export interface GrantReadDeps {
  db: Db;
}

export async function listGrants(
  deps: GrantReadDeps,
  ctx: AuthContext,
  q: GrantListQuery,
  page: Pagination,
) {
  const { rows, total } = await lists.listGrants(
    deps.db,
    {
      scope: scopeOfCaller(ctx, q.organization_id),
      customerIds: q.customer_id,
      externalCustomerIds: q.external_customer_id,
      isGranted: q.is_granted,
    },
    q.sorting,
    page.limit,
    offsetOf(page),
  );
  return pageOf(await serializeGrants(deps.db, rows), total, page);
}

/** GET /v1/benefits/{id}/grants; the benefits module has checked the benefit is the caller's. */
export async function listGrantsOfBenefit(
  db: Db,
  scope: OrgScope,
  benefitId: string,
  q: BenefitGrantListQuery,
  page: Pagination,
) {
  const { rows, total } = await lists.listGrants(
    db,
    {
      scope,
      benefitIds: [benefitId],
      customerIds: q.customer_id,
      isGranted: q.is_granted,
    },
    [{ key: "created_at", desc: true }],
    page.limit,
    offsetOf(page),
  );
  return pageOf(await serializeGrants(db, rows), total, page);
}

export async function getGrant(deps: GrantReadDeps, ctx: AuthContext, id: string) {
  const row = await repo.findGrant(deps.db, scopeOfCaller(ctx), id);
  if (!row) throw new ResourceNotFound("Benefit grant not found.");
  return row;
}

/** A grant by id alone, for a signed download URL: the signature is the credential. */
export function grantForSignedUrl(db: Db, id: string) {
  return repo.findGrantForSignedUrl(db, id);
}

// For the customer portal: one customer's grants, scoped by the session's customer and organization.
export async function listGrantsOfCustomer(
  db: Db,
  customer: { organizationId: string; customerId: string },
  q: CustomerGrantListQuery,
  page: Pagination,
) {
  const { rows, total } = await lists.listCustomerGrants(
    db,
    {
      scope: scopeOfResource(customer),
      customerId: customer.customerId,
      query: q.query,
      types: q.type,
      benefitIds: q.benefit_id,
      checkoutIds: q.checkout_id,
      orderIds: q.order_id,
      subscriptionIds: q.subscription_id,
      memberIds: q.member_id,
    },
    q.sorting,
    page.limit,
    offsetOf(page),
  );
  return pageOf(await serializeGrants(db, rows), total, page);
}

/**
 * One of the customer's grants they may read (Polar's readable statement: not revoked, of a public
 * benefit), locked when `lock`; any other is a 404, as Polar's GET and PATCH answer.
 */
export async function readableGrantOfCustomer(
  db: Db,
  customer: { organizationId: string; customerId: string },
  id: string,
  lock = false,
) {
  const scope = scopeOfResource(customer);
  const row = await lists.readableGrant(db, { scope, customerId: customer.customerId }, id, lock);
  if (!row) throw new ResourceNotFound("Benefit grant not found.");
  return row;
}

export async function grantOfCustomer(
  db: Db,
  customer: { organizationId: string; customerId: string },
  id: string,
) {
  const row = await readableGrantOfCustomer(db, customer, id);
  return (await serializeGrants(db, [row]))[0]!;
}

// Customer meters for the customer portal: a customer has one per meter credited, so the page is cut
// from the whole (filtered, sorted) list.

const meterSortValue: Record<
  CustomerMeterListQuery["sorting"][number]["key"],
  (m: CustomerMeterOut) => string | number
> = {
  created_at: (m) => m.created_at,
  modified_at: (m) => m.modified_at ?? m.created_at,
  meter_id: (m) => m.meter_id,
  meter_name: (m) => m.meter.name.toLowerCase(),
  consumed_units: (m) => m.consumed_units,
  credited_units: (m) => m.credited_units,
  balance: (m) => m.balance,
};

export async function listMetersOfCustomer(
  db: Db,
  customer: { organizationId: string; customerId: string },
  q: CustomerMeterListQuery,
  page: Pagination,
) {
  const needle = q.query?.trim().toLowerCase();
  const all = (await customerMetersOf(db, scopeOfResource(customer), customer.customerId))
    .map(customerMeterOut)
    .filter(
      (m) =>
        (!q.meter_id?.length || q.meter_id.includes(m.meter_id)) &&
        (!needle || m.meter.name.toLowerCase().includes(needle)),
    );
  all.sort((a, b) => {
    for (const { key, desc } of q.sorting) {
      const [x, y] = [meterSortValue[key](a), meterSortValue[key](b)];
      if (x !== y) return (x < y ? -1 : 1) * (desc ? -1 : 1);
    }
    return a.id < b.id ? -1 : 1;
  });
  return pageOf(all.slice(offsetOf(page), offsetOf(page) + page.limit), all.length, page);
}

export async function meterOfCustomer(
  db: Db,
  customer: { organizationId: string; customerId: string },
  id: string,
) {
  const [found] = await customerMetersOf(db, scopeOfResource(customer), customer.customerId, {
    id,
  });
  if (!found) throw new ResourceNotFound("Customer meter not found.");
  return customerMeterOut(found);
}
