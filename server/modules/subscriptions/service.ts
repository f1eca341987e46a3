// Subscriptions: created active (or trialing) when a recurring checkout is paid, read by the seller
// and the portal. Changes are in update.ts; the billing engine (due.ts: renewal.ts, dunning.ts,
// period-end.ts) works each subscription at its next boundary, scheduled by schedule.ts.
import type { Db, Tx } from "../../../db/client.ts";
import type { AuthContext } from "../../lib/auth-context.ts";
import type { Clock } from "../../lib/clock.ts";
import { ResourceNotFound } from "../../lib/errors.ts";
import type { MetadataFilter } from "../../lib/metadata.ts";
import { offsetOf, pageOf, type Pagination } from "../../lib/pagination.ts";
import { addInterval, firstMeterPeriod, meterCycleOf, type Interval } from "../../lib/periods.ts";
import { customersByIds } from "../customers/queries.ts";
import type { CustomerOut } from "../customers/schemas.ts";
import { customerStateOf } from "../customers/states.ts";
import { serializeDiscount, discountOf } from "../discounts/service.ts";
import type { QueueHandle } from "../../jobs/queue.ts";
import { type OrgScope, scopeOfCaller, scopeOfResource } from "../../lib/org-scope.ts";
import type { ProductOut } from "../products/schemas.ts";
import { serializeProductsByIds } from "../products/service.ts";
import { organizationClock } from "../sandbox-clock/queries.ts";
import { recordEvent } from "../webhooks/outbox.ts";
import { subscriptionMeters } from "./meters.ts";
import * as repo from "./repository.ts";
import { scheduleNext } from "./schedule.ts";
import { subscriptionOut, type SubscriptionListQuery } from "./schemas.ts";

export interface SubscriptionDeps {
  db: Db;
  clock: Clock;
  baseUrl: string;
  /** Revoking a subscription queues the revocation of its benefit grants. */
  queue: QueueHandle | null;
}

/** The subscriptions as the API shows them; `known` as serializeOrders takes it. */
export async function serializeSubscriptions(
  db: Db,
  baseUrl: string,
  rows: repo.SubscriptionRow[],
  known: { customers?: CustomerOut[]; products?: ProductOut[] } = {},
) {
  if (rows.length === 0) return [];
  const scope = scopeOfResource(...rows);
  const [customers, products] = await Promise.all([
    known.customers ?? customersByIds(db, scope, [...new Set(rows.map((r) => r.customerId))]),
    known.products ??
      serializeProductsByIds(db, baseUrl, scope, [...new Set(rows.map((r) => r.productId))]),
  ]);
  const customerById = new Map(customers.map((c) => [c.id, c]));
  const productById = new Map(products.map((p) => [p.id, p]));
  const meters = await subscriptionMeters(db, rows, productById);
  return Promise.all(
    rows.map(async (s) => {
      const discount = s.discountId ? await discountOf(db, scopeOfResource(s), s.discountId) : null;
      return subscriptionOut(s, {
        customer: customerById.get(s.customerId)!,
        product: productById.get(s.productId)!,
        discount: discount ? await serializeDiscount(db, discount) : null,
        meters: meters.get(s.id) ?? [],
      });
    }),
  );
}

export async function serializeSubscription(db: Db, baseUrl: string, row: repo.SubscriptionRow) {
  return (await serializeSubscriptions(db, baseUrl, [row]))[0]!;
}

export async function listSubscriptions(
  deps: SubscriptionDeps,
  ctx: AuthContext,
  // The portal's keys too (organization), which the seller's list does not take.
  q: Omit<SubscriptionListQuery, "sorting"> & {
    sorting: { key: repo.SubscriptionSort; desc: boolean }[];
  },
  page: Pagination,
  metadata: MetadataFilter = {},
) {
  const { rows, total } = await repo.listSubscriptions(
    deps.db,
    scopeOfCaller(ctx, q.organization_id),
    {
      productIds: q.product_id,
      customerIds: q.customer_id,
      statuses: q.status,
      active: q.active,
      cancelAtPeriodEnd: q.cancel_at_period_end,
      externalCustomerIds: q.external_customer_id,
      discountIds: q.discount_id,
      cancellationReasons: q.customer_cancellation_reason,
      canceledAtAfter: q.canceled_at_after,
      canceledAtBefore: q.canceled_at_before,
      startedAfter: q.started_after,
      startedBefore: q.started_before,
      metadata,
    },
    q.sorting,
    page.limit,
    offsetOf(page),
  );
  return pageOf(await serializeSubscriptions(deps.db, deps.baseUrl, rows), total, page);
}

export async function getSubscription(deps: SubscriptionDeps, ctx: AuthContext, id: string) {
  const row = await repo.findSubscription(deps.db, scopeOfCaller(ctx), id);
  if (!row) throw new ResourceNotFound("Subscription not found.");
  return serializeSubscription(deps.db, deps.baseUrl, row);
}

export interface NewSubscription {
  organizationId: string;
  customerId: string;
  productId: string;
  priceId: string;
  /** Null for a subscription made through POST /v1/subscriptions/ (free products only). */
  checkoutId: string | null;
  discountId: string | null;
  amount: number;
  /** A custom (pay-what-you-want) price's chosen amount, before the discount. */
  customAmount?: number | null;
  /** Seats bought, for a seat-based price. */
  seats?: number | null;
  currency: string;
  interval: Interval;
  intervalCount: number;
  /** A trial: the subscription is trialing until its end, when the first charge happens. */
  trial?: { interval: Interval; count: number } | null;
  metadata: Record<string, string | number | boolean>;
  customFieldData: Record<string, unknown>;
}

/**
 * A paid (or trial) recurring checkout's subscription, from now on the organization's clock for one
 * period (or the trial), with every active price of the product (a metered price sold beside a fixed
 * one is billed at each cycle), and its renewal scheduled in the same transaction.
 */
export async function createSubscription(
  tx: Tx,
  deps: { clock: Clock; queue: QueueHandle | null },
  input: NewSubscription,
) {
  const terms = await termsOf(tx, deps.clock, input);
  const row = await repo.insertSubscription(tx, {
    organizationId: input.organizationId,
    customerId: input.customerId,
    ...terms,
    startedAt: terms.currentPeriodStart,
    metadata: input.metadata,
    createdAt: terms.currentPeriodStart,
  });
  return scheduleNext(tx, deps.queue, row);
}

/**
 * What a checkout sets on its subscription, a new one or one it upgrades: the product and its
 * prices, the amounts, and a period (or trial) starting now on the organization's clock.
 */
export async function termsOf(tx: Tx, clock: Clock, input: NewSubscription) {
  const now = (await organizationClock(tx, clock, input.organizationId)).now();
  const [product] = await serializeProductsByIds(tx, "", scopeOfResource(input), [input.productId]);
  const recurringPrices = (product?.prices ?? [])
    .filter((p) => !p.is_archived && p.id !== input.priceId && p.amount_type === "metered_unit")
    .map((p) => p.id);
  const trialEnd = input.trial ? addInterval(now, input.trial.interval, input.trial.count) : null;
  const periodEnd = trialEnd ?? addInterval(now, input.interval, input.intervalCount);
  return {
    productId: input.productId,
    checkoutId: input.checkoutId,
    discountId: input.discountId,
    // As Polar: the checkout's payment is the discount's first period; after a trial, the first
    // charge at its end is (until then it is pending, as one set by a PATCH).
    discountAppliedAt: input.discountId && !trialEnd ? now : null,
    priceIds: [input.priceId, ...recurringPrices],
    status: trialEnd ? "trialing" : "active",
    amount: input.amount,
    customAmount: input.customAmount ?? null,
    seats: input.seats ?? null,
    currency: input.currency,
    recurringInterval: input.interval,
    recurringIntervalCount: input.intervalCount,
    currentPeriodStart: now,
    currentPeriodEnd: periodEnd,
    anchorDay: (trialEnd ?? now).getUTCDate(),
    ...firstMeterPeriod(product ? meterCycleOf(product) : null, now, periodEnd),
    trialStart: trialEnd ? now : null,
    trialEnd,
    customFieldData: input.customFieldData,
  };
}

/**
 * customer.state_changed with the customer's state as it is inside this transaction. `owner` is the
 * row that changed (a subscription, seat, order or checkout), read under tenancy, naming its
 * customer: the customer is read under its organization.
 */
export async function recordCustomerState(
  tx: Tx,
  clock: Clock,
  owner: { organizationId: string; customerId: string },
): Promise<void> {
  const state = await customerStateOf(tx, scopeOfResource(owner), owner.customerId);
  if (state)
    await recordEvent(tx, clock, {
      organizationId: owner.organizationId,
      type: "customer.state_changed",
      data: state,
    });
}

/** The subscriptions among `ids` in the scope, for other modules rendering or checking them. */
export async function subscriptionsByIds(db: Db, scope: OrgScope, ids: string[]) {
  return repo.subscriptionsByIds(db, scope, ids);
}
