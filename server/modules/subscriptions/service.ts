// Subscriptions: created active when a recurring checkout is paid; the seller can cancel at period
// end (it stays active until then), uncancel, or revoke at once. Every change records its events and
// customer.state_changed in the same transaction. Renewal cycles come later through cycle.ts.
import { inTransaction, type Db } from "../../../db/client.ts";
import {
  assertAccessible,
  organizationsForRead,
  type AuthContext,
} from "../../lib/auth-context.ts";
import type { Clock } from "../../lib/clock.ts";
import { ApiError, ResourceNotFound } from "../../lib/errors.ts";
import type { MetadataFilter } from "../../lib/metadata.ts";
import { offsetOf, pageOf, type Pagination } from "../../lib/pagination.ts";
import { addInterval, type Interval } from "../../lib/periods.ts";
import { customersByIds, customerStateOf } from "../customers/service.ts";
import { discountById, discountForDisplay } from "../discounts/service.ts";
import { revokeBenefitsForSubscription } from "../grants/seam.ts";
import type { QueueHandle } from "../../jobs/queue.ts";
import { productsForDisplay } from "../products/service.ts";
import { recordEvent } from "../webhooks/outbox.ts";
import * as repo from "./repository.ts";
import { subscriptionOut, type SubscriptionListQuery, type SubscriptionUpdate } from "./schemas.ts";

export interface SubscriptionDeps {
  db: Db;
  clock: Clock;
  baseUrl: string;
  /** Revoking a subscription queues the revocation of its benefit grants. */
  queue: QueueHandle | null;
}

export async function renderSubscriptions(db: Db, baseUrl: string, rows: repo.SubscriptionRow[]) {
  if (rows.length === 0) return [];
  const [customers, products] = await Promise.all([
    customersByIds(db, [...new Set(rows.map((r) => r.customerId))]),
    productsForDisplay(db, baseUrl, [...new Set(rows.map((r) => r.productId))]),
  ]);
  const customerById = new Map(customers.map((c) => [c.id, c]));
  const productById = new Map(products.map((p) => [p.id, p]));
  return Promise.all(
    rows.map(async (s) => {
      const discount = s.discountId ? await discountById(db, s.discountId) : null;
      return subscriptionOut(s, {
        customer: customerById.get(s.customerId)!,
        product: productById.get(s.productId)!,
        discount: discount ? await discountForDisplay(db, discount) : null,
      });
    }),
  );
}

export async function renderSubscription(db: Db, baseUrl: string, row: repo.SubscriptionRow) {
  return (await renderSubscriptions(db, baseUrl, [row]))[0]!;
}

export async function listSubscriptions(
  deps: SubscriptionDeps,
  ctx: AuthContext,
  q: SubscriptionListQuery,
  page: Pagination,
  metadata: MetadataFilter = {},
) {
  const { rows, total } = await repo.listSubscriptions(
    deps.db,
    {
      organizationIds: organizationsForRead(ctx, q.organization_id),
      productIds: q.product_id,
      customerIds: q.customer_id,
      statuses: q.status,
      active: q.active,
      cancelAtPeriodEnd: q.cancel_at_period_end,
      metadata,
    },
    q.sorting,
    page.limit,
    offsetOf(page),
  );
  return pageOf(await renderSubscriptions(deps.db, deps.baseUrl, rows), total, page);
}

export async function getSubscription(deps: SubscriptionDeps, ctx: AuthContext, id: string) {
  const row = await repo.findSubscription(deps.db, ctx.organizationIds, id);
  if (!row) throw new ResourceNotFound("Subscription not found.");
  return renderSubscription(deps.db, deps.baseUrl, row);
}

export class AlreadyCanceledSubscription extends ApiError {
  constructor() {
    super(
      403,
      "AlreadyCanceledSubscription",
      "This subscription is already canceled or will be at the end of the period.",
    );
  }
}

/** PATCH (cancel at period end, uncancel, or revoke) and DELETE (revoke) of the seller's API. */
export async function updateSubscription(
  deps: SubscriptionDeps,
  ctx: AuthContext,
  id: string,
  input: SubscriptionUpdate,
) {
  const found = await repo.findSubscription(deps.db, ctx.organizationIds, id);
  if (!found) throw new ResourceNotFound("Subscription not found.");
  assertAccessible(ctx, found.organizationId, "Subscription not found.");
  return inTransaction(deps.db, async (tx) => {
    const s = (await repo.lockSubscription(tx, id))!;
    const now = deps.clock.now();
    const reason = {
      customerCancellationReason:
        input.customer_cancellation_reason ?? s.customerCancellationReason,
      customerCancellationComment:
        input.customer_cancellation_comment ?? s.customerCancellationComment,
    };
    const events: string[] = [];
    let updated: repo.SubscriptionRow;
    if ("revoke" in input) {
      if (s.status === "canceled") throw new AlreadyCanceledSubscription();
      updated = await repo.updateSubscription(tx, id, {
        ...reason,
        status: "canceled",
        canceledAt: s.canceledAt ?? now,
        endsAt: now,
        endedAt: now,
        cancelAtPeriodEnd: false,
        modifiedAt: now,
      });
      events.push(
        "subscription.updated",
        ...(s.cancelAtPeriodEnd ? [] : ["subscription.canceled"]),
        "subscription.revoked",
      );
      await revokeBenefitsForSubscription(tx, deps, updated);
    } else if (input.cancel_at_period_end) {
      if (s.status === "canceled" || s.cancelAtPeriodEnd) throw new AlreadyCanceledSubscription();
      updated = await repo.updateSubscription(tx, id, {
        ...reason,
        cancelAtPeriodEnd: true,
        canceledAt: now,
        endsAt: s.currentPeriodEnd,
        modifiedAt: now,
      });
      events.push("subscription.updated", "subscription.canceled");
    } else {
      if (s.status === "canceled") throw new AlreadyCanceledSubscription();
      if (!s.cancelAtPeriodEnd) return renderSubscription(tx, deps.baseUrl, s);
      updated = await repo.updateSubscription(tx, id, {
        cancelAtPeriodEnd: false,
        canceledAt: null,
        endsAt: null,
        customerCancellationReason: null,
        customerCancellationComment: null,
        modifiedAt: now,
      });
      events.push("subscription.updated", "subscription.uncanceled");
    }
    const data = await renderSubscription(tx, deps.baseUrl, updated);
    for (const type of events)
      await recordEvent(tx, deps.clock, { organizationId: s.organizationId, type, data });
    await recordCustomerState(tx, deps.clock, updated.organizationId, updated.customerId);
    return data;
  });
}

export interface NewSubscription {
  organizationId: string;
  customerId: string;
  productId: string;
  priceId: string;
  checkoutId: string;
  discountId: string | null;
  amount: number;
  currency: string;
  interval: Interval;
  intervalCount: number;
  metadata: Record<string, string | number | boolean>;
  customFieldData: Record<string, unknown>;
}

/** A paid recurring checkout's subscription, active from now for one period. */
export async function createSubscription(tx: Db, clock: Clock, input: NewSubscription) {
  const now = clock.now();
  return repo.insertSubscription(tx, {
    organizationId: input.organizationId,
    customerId: input.customerId,
    productId: input.productId,
    checkoutId: input.checkoutId,
    discountId: input.discountId,
    priceIds: [input.priceId],
    status: "active",
    amount: input.amount,
    currency: input.currency,
    recurringInterval: input.interval,
    recurringIntervalCount: input.intervalCount,
    currentPeriodStart: now,
    currentPeriodEnd: addInterval(now, input.interval, input.intervalCount),
    startedAt: now,
    metadata: input.metadata,
    customFieldData: input.customFieldData,
    createdAt: now,
  });
}

/** customer.state_changed with the customer's state as it is inside this transaction. */
export async function recordCustomerState(
  tx: Db,
  clock: Clock,
  organizationId: string,
  customerId: string,
): Promise<void> {
  const state = await customerStateOf(tx, customerId);
  if (state)
    await recordEvent(tx, clock, { organizationId, type: "customer.state_changed", data: state });
}

export function activeSubscriptionsOf(db: Db, customerId: string) {
  return repo.activeOfCustomer(db, customerId);
}

export async function subscriptionsByIds(db: Db, ids: string[]) {
  return repo.subscriptionsByIds(db, ids);
}
