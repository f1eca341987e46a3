// SQL for subscriptions. Every read takes an OrgScope (lib/org-scope.ts) and filters by it in SQL,
// except the engine's reads named ...ForJob and the cross-organization overdue scan: a job carries
// only ids (a subscription's, or the organization it wakes), so no caller's tenancy applies there,
// and what follows is scoped by the row or organization read (scopeOfResource). Writes go by the id of a row read under a scope.
import { and, asc, count, eq, gt, inArray, isNotNull, lte, sql } from "drizzle-orm";
import { rowsOf, type Db } from "../../../db/client.ts";
import { customerSeats, subscriptions } from "../../../db/schema/index.ts";
import type { OrgScope } from "../../lib/org-scope.ts";
import { anyOf, arrayLiteral, noneOf, tableRows } from "../../../db/bulk.ts";

export type SubscriptionRow = typeof subscriptions.$inferSelect;

const inScope = (scope: OrgScope) => inArray(subscriptions.organizationId, [...scope]);

export async function insertSubscription(
  db: Db,
  values: typeof subscriptions.$inferInsert,
): Promise<SubscriptionRow> {
  const [row] = await db.insert(subscriptions).values(values).returning();
  return row!;
}

export async function findSubscription(
  db: Db,
  scope: OrgScope,
  id: string,
): Promise<SubscriptionRow | null> {
  if (scope.length === 0) return null;
  const [row] = await db
    .select()
    .from(subscriptions)
    .where(and(eq(subscriptions.id, id), inScope(scope)))
    .limit(1);
  return row ?? null;
}

/** Locks the row for the rest of the transaction, so two updates of one subscription take turns. */
export async function lockSubscription(
  db: Db,
  scope: OrgScope,
  id: string,
): Promise<SubscriptionRow | null> {
  if (scope.length === 0) return null;
  const [row] = await db
    .select()
    .from(subscriptions)
    .where(and(eq(subscriptions.id, id), inScope(scope)))
    .for("update")
    .limit(1);
  return row ?? null;
}

export async function updateSubscription(
  db: Db,
  id: string,
  values: Partial<typeof subscriptions.$inferInsert>,
): Promise<SubscriptionRow> {
  const [row] = await db
    .update(subscriptions)
    .set(values)
    .where(eq(subscriptions.id, id))
    .returning();
  return row!;
}

export async function activeOfCustomer(
  db: Db,
  scope: OrgScope,
  customerId: string,
): Promise<SubscriptionRow[]> {
  if (scope.length === 0) return [];
  return db
    .select()
    .from(subscriptions)
    .where(
      and(
        inScope(scope),
        eq(subscriptions.customerId, customerId),
        inArray(subscriptions.status, ["active", "trialing", "past_due"]),
      ),
    )
    .orderBy(asc(subscriptions.createdAt));
}

export {
  listSubscriptions,
  type SubscriptionFilter,
  type SubscriptionSort,
} from "./list-repository.ts";

/** The subscriptions among `ids` in the scope (unknown and out-of-scope ones left out). */
export async function subscriptionsByIds(
  db: Db,
  scope: OrgScope,
  ids: string[],
): Promise<SubscriptionRow[]> {
  if (ids.length === 0 || scope.length === 0) return [];
  return db
    .select()
    .from(subscriptions)
    .where(and(anyOf(subscriptions.id, ids), inScope(scope)));
}

/**
 * System-level: the due-work job's read of subscriptions by id (jobs of the earlier
 * one-per-subscription shape, and a single row's due work). A job carries only the ids it was
 * queued with by the engine itself, with no caller whose tenancy could apply; what the job does next is scoped by each row's own organization.
 */
export async function subscriptionsByIdsForJob(db: Db, ids: string[]): Promise<SubscriptionRow[]> {
  if (ids.length === 0) return [];
  return db.select().from(subscriptions).where(anyOf(subscriptions.id, ids));
}

/** System-level: the due-work job's read of one subscription by id, as subscriptionsByIdsForJob. */
export async function subscriptionByIdForJob(db: Db, id: string): Promise<SubscriptionRow | null> {
  const [row] = await db.select().from(subscriptions).where(eq(subscriptions.id, id)).limit(1);
  return row ?? null;
}

/** The scope's subscriptions with work due at or before `at`, earliest first (an index range). */
export async function dueInScope(
  db: Db,
  scope: OrgScope,
  at: Date,
  limit: number,
): Promise<{ id: string; nextActionAt: Date }[]> {
  if (scope.length === 0) return [];
  const rows = await db
    .select({ id: subscriptions.id, nextActionAt: subscriptions.nextActionAt })
    .from(subscriptions)
    .where(
      and(
        inScope(scope),
        isNotNull(subscriptions.nextActionAt),
        lte(subscriptions.nextActionAt, at),
      ),
    )
    .orderBy(asc(subscriptions.nextActionAt), asc(subscriptions.id))
    .limit(limit);
  return rows.map((r) => ({ id: r.id, nextActionAt: r.nextActionAt! }));
}

/**
 * Moves a next_action_at that had nothing behind it to the row's own next boundary (or clears it),
 * only if it still holds that value (another worker may have moved it meanwhile).
 */
export async function resyncStaleAction(db: Db, id: string, at: Date): Promise<void> {
  const stale = at.toISOString();
  await db
    .update(subscriptions)
    .set({
      nextActionAt: sql`case
        when ${subscriptions.status} in ('active', 'trialing') and ${subscriptions.currentPeriodEnd} > ${stale}::timestamptz then ${subscriptions.currentPeriodEnd}
        when ${subscriptions.status} = 'paused' and ${subscriptions.resumesAt} > ${stale}::timestamptz then ${subscriptions.resumesAt}
        else null end`,
    })
    .where(and(eq(subscriptions.id, id), eq(subscriptions.nextActionAt, at)));
}

/**
 * System-level: the organizations of the (at most `limit` earliest) subscriptions whose next
 * boundary is at or before `at`, for the catch-up job to wake each.
 */
export async function overdue(
  db: Db,
  at: Date,
  limit: number,
): Promise<{ organizationId: string }[]> {
  return db.selectDistinct({ organizationId: subscriptions.organizationId }).from(
    db
      .select({ organizationId: subscriptions.organizationId })
      .from(subscriptions)
      .where(and(isNotNull(subscriptions.nextActionAt), lte(subscriptions.nextActionAt, at)))
      .orderBy(asc(subscriptions.nextActionAt))
      .limit(limit)
      .as("subscriptions"),
  );
}

/**
 * The scope's subscriptions due in (from, to] (from null: everything up to `to`), earliest first,
 * but those in `excluded` (being worked on, or left as they were by a failure): an index range of
 * (organization_id, next_action_at) that skips at most the excluded rows.
 */
export async function dueInWindow(
  db: Db,
  scope: OrgScope,
  window: { from: Date | null; to: Date },
  excluded: string[],
  limit: number,
): Promise<SubscriptionRow[]> {
  if (scope.length === 0) return [];
  return db
    .select()
    .from(subscriptions)
    .where(
      and(
        inScope(scope),
        window.from
          ? gt(subscriptions.nextActionAt, window.from)
          : isNotNull(subscriptions.nextActionAt),
        lte(subscriptions.nextActionAt, window.to),
        excluded.length > 0 ? noneOf(subscriptions.id, excluded) : undefined,
      ),
    )
    .orderBy(asc(subscriptions.nextActionAt))
    .limit(limit);
}

/**
 * The subscription's live (pending or claimed) seats, counted under the same per-purchase lock the
 * seats module assigns under, so seats cannot drop below those assigned by a concurrent assignment.
 */
export async function lockAndCountLiveSeats(
  db: Db,
  scope: OrgScope,
  subscriptionId: string,
): Promise<number> {
  if (scope.length === 0) return 0;
  await db.execute(sql`select pg_advisory_xact_lock(hashtextextended(${subscriptionId}, 0))`);
  const [row] = await db
    .select({ n: count() })
    .from(customerSeats)
    .where(
      and(
        inArray(customerSeats.organizationId, [...scope]),
        eq(customerSeats.subscriptionId, subscriptionId),
        sql`${customerSeats.status} <> 'revoked'`,
      ),
    );
  return row?.n ?? 0;
}

/**
 * Locks the rows among `ids` that no other transaction holds, skipping the held ones (another
 * worker is on them; the caller leaves them to the path that waits for the lock).
 */
export async function lockUnheld(
  db: Db,
  scope: OrgScope,
  ids: string[],
): Promise<SubscriptionRow[]> {
  if (ids.length === 0 || scope.length === 0) return [];
  return db
    .select()
    .from(subscriptions)
    .where(and(anyOf(subscriptions.id, ids), inScope(scope)))
    .orderBy(asc(subscriptions.id))
    .for("update", { skipLocked: true });
}

/** A renewed subscription's new period and state, as one row of applyRenewals. */
export interface RenewalMove {
  id: string;
  productId: string;
  seats: number | null;
  priceIds: string[];
  amount: number;
  currentPeriodStart: Date;
  currentPeriodEnd: Date;
  recurringInterval: string;
  recurringIntervalCount: number;
  discountId: string | null;
  discountAppliedAt: Date | null;
  currentMeterPeriodStart: Date | null;
  currentMeterPeriodEnd: Date | null;
  status: string;
  pastDueAt: Date | null;
  nextActionAt: Date | null;
  modifiedAt: Date;
}

/**
 * Moves many renewed subscriptions (locked under `scope`) in one statement, giving back their
 * leases with the move; answers the rows as they now are, as the statement returned them.
 */
export async function applyRenewals(
  db: Db,
  scope: OrgScope,
  moves: RenewalMove[],
): Promise<SubscriptionRow[]> {
  if (moves.length === 0) return [];
  const values = JSON.stringify(
    moves.map((m) => ({
      id: m.id,
      product_id: m.productId,
      seats: m.seats,
      price_ids: m.priceIds,
      amount: m.amount,
      current_period_start: m.currentPeriodStart,
      current_period_end: m.currentPeriodEnd,
      recurring_interval: m.recurringInterval,
      recurring_interval_count: m.recurringIntervalCount,
      discount_id: m.discountId,
      discount_applied_at: m.discountAppliedAt,
      current_meter_period_start: m.currentMeterPeriodStart,
      current_meter_period_end: m.currentMeterPeriodEnd,
      status: m.status,
      past_due_at: m.pastDueAt,
      next_action_at: m.nextActionAt,
      modified_at: m.modifiedAt,
    })),
  );
  const updated = await db.execute(sql`
    update ${subscriptions} s set product_id = v.product_id, seats = v.seats,
      price_ids = v.price_ids, amount = v.amount,
      pending_update = null, proration_amount = 0,
      current_period_start = v.current_period_start, current_period_end = v.current_period_end,
      recurring_interval = v.recurring_interval,
      recurring_interval_count = v.recurring_interval_count,
      discount_id = v.discount_id, discount_applied_at = v.discount_applied_at,
      current_meter_period_start = v.current_meter_period_start,
      current_meter_period_end = v.current_meter_period_end, status = v.status,
      past_due_at = v.past_due_at, next_action_at = v.next_action_at, modified_at = v.modified_at,
      locked_until = null
    from jsonb_to_recordset(${values}::jsonb) as v(id uuid, product_id uuid, seats integer,
      price_ids uuid[], amount bigint,
      current_period_start timestamptz, current_period_end timestamptz,
      recurring_interval text, recurring_interval_count integer,
      discount_id uuid, discount_applied_at timestamptz,
      current_meter_period_start timestamptz, current_meter_period_end timestamptz, status text,
      past_due_at timestamptz, next_action_at timestamptz, modified_at timestamptz)
    where s.id = v.id and s.organization_id = any(${arrayLiteral([...scope])}::uuid[])
    returning s.*`);
  return tableRows(subscriptions, rowsOf<Record<string, unknown>>(updated));
}

/** The active, trialing and past_due subscriptions of many customers, oldest first. */
export async function activeOfCustomers(
  db: Db,
  scope: OrgScope,
  customerIds: string[],
): Promise<SubscriptionRow[]> {
  if (customerIds.length === 0 || scope.length === 0) return [];
  return db
    .select()
    .from(subscriptions)
    .where(
      and(
        inScope(scope),
        anyOf(subscriptions.customerId, customerIds),
        inArray(subscriptions.status, ["active", "trialing", "past_due"]),
      ),
    )
    .orderBy(asc(subscriptions.createdAt));
}
