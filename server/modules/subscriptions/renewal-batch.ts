// Renewals of many subscriptions of one organization due at the same time, set-based: products,
// customers, discounts and saved cards are read once for the batch, each subscription is charged
// off-session under the same idempotency key renewSubscription uses, and one transaction writes
// every order, item, payment, period move, wake-up job and webhook event with multi-row
// statements. The rows are locked with SKIP LOCKED: a row another worker holds is handed back for
// the per-subscription path, which waits for the lock and finds the period already moved. Orders
// are inserted under their (subscription, period) key, so a re-run after a crash or by a second
// worker inserts nothing for what was renewed, and its charges are answered from the processor's
// idempotency record rather than charged again.
import { inTransaction } from "../../../db/client.ts";
import { customerRecordsByIds, customersByIds } from "../customers/queries.ts";
import { customerOut } from "../customers/schemas.ts";
import { customerStatesOf } from "../customers/states.ts";
import { discountOf } from "../discounts/service.ts";
import { cycleGrantsOfSubscriptions } from "../grants/cycle.ts";
import { switchBenefits } from "./plan-benefits.ts";
import { queueReceiptMails } from "../invoices/receipt-queue.ts";
import { meterRetriesOf } from "../orders/queries.ts";
import { insertNumberedOrders, serializeOrders, type OrderRow } from "../orders/service.ts";
import { defaultPaymentMethods } from "../payments/queries.ts";
import { recordPayments } from "../payments/service.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import { serializeProductsByIds } from "../products/service.ts";
import { fixedClock } from "../sandbox-clock/queries.ts";
import { recordEvents, type OutboxEvent } from "../webhooks/outbox.ts";
import { holdBalances, releaseHold, settleOrderBalance } from "../wallets/service.ts";
import {
  attemptRecord,
  chargeKey,
  chargeMany,
  type OffSessionOutcome,
  recordDeferral,
} from "./charge.ts";
import type { BillingDeps } from "./deps.ts";
import { recordPaymentFailedMail } from "./payment-failed-mail.ts";
import { leaseMany, SubscriptionLocked } from "./lease.ts";
import {
  balanceOwnerOf,
  cycleBillingKey,
  cycleOrderOf,
  cycleProductId,
  pendingProrations,
  planCycleFrom,
  type CyclePlan,
} from "./renewal.ts";
import { revokeAfterGrace } from "./grace.ts";
import * as repo from "./repository.ts";
import { byTime, moveOf, renewableInBatch, type RenewalTime, timeOf } from "./renewal-rows.ts";
import { queueWakeUps } from "./schedule.ts";
import { serializeSubscriptions } from "./service.ts";

export interface BatchResult {
  /** The subscriptions this run renewed (made the cycle order of). */
  renewed: string[];
  /** Held by another transaction when the batch wrote: for the per-subscription path. */
  leftOver: string[];
  /** Charges that got no answer from the processor: retried with the job. */
  errors: unknown[];
}

interface Charged {
  s: repo.SubscriptionRow;
  plan: CyclePlan;
  outcome: OffSessionOutcome;
  /** What the customer's balance paid (holdBalances). */
  applied: number;
}

/**
 * Renews `subs` (all of one organization, each renewableInBatch at its time), each as of its time.
 * The orders and events are written in the order of `subs`.
 */
export async function renewBatch(
  deps: BillingDeps,
  subs: repo.SubscriptionRow[],
  at: RenewalTime,
): Promise<BatchResult> {
  if (subs.length === 0) return { renewed: [], leftOver: [], errors: [] };
  // Leased before anything is charged, and read again under the lease: a change that committed
  // meanwhile (a revoke, a plan change) is seen, and none can start until the page is written.
  const { leased, held, release } = await leaseMany(deps.db, subs);
  // The period moves give their rows' leases back as they commit; the others are given back here.
  let moved = new Set<string>();
  try {
    const place = new Map(subs.map((s, i) => [s.id, i]));
    const fresh = leased
      .filter((s) => renewableInBatch(s, timeOf(at, s.id)))
      .sort((a, b) => place.get(a.id)! - place.get(b.id)!);
    const result = await renewLeased(deps, fresh, at);
    moved = new Set(result.renewed);
    return {
      ...result,
      // No longer a plain renewal: the per-subscription path does what it is now due.
      leftOver: [...result.leftOver, ...leased.filter((s) => !fresh.includes(s)).map((s) => s.id)],
      errors: held.length > 0 ? [...result.errors, new SubscriptionLocked()] : result.errors,
    };
  } finally {
    await release(leased.filter((s) => !moved.has(s.id)).map((s) => s.id));
  }
}

async function renewLeased(
  deps: BillingDeps,
  subs: repo.SubscriptionRow[],
  at: RenewalTime,
): Promise<BatchResult> {
  if (subs.length === 0) return { renewed: [], leftOver: [], errors: [] };
  const plans = await planBatch(deps, subs);
  const applied = await holdBalances(
    deps.db,
    subs[0]!.organizationId,
    subs.map((s, i) => ({
      customerId: s.customerId,
      currency: s.currency,
      total: plans[i]!.amounts.totalAmount,
      reference: cycleBillingKey(s.id, plans[i]!.periodStart),
      subscriptionId: s.id,
      now: timeOf(at, s.id),
    })),
  );
  const methods = await defaultPaymentMethods(deps.db, scopeOfResource(...subs), [
    ...new Set(subs.map((s) => s.customerId)),
  ]);
  const outcomes = await chargeMany(
    deps,
    subs.map((s, i) => ({
      s,
      method: methods.get(s.customerId) ?? null,
      amount: plans[i]!.amounts.totalAmount - applied[i]!,
      idempotencyKey: chargeKey(s.id, plans[i]!.periodStart, 0),
      description: `${plans[i]!.productName} renewal`,
    })),
  );
  const errors: unknown[] = [];
  const charged: Charged[] = [];
  outcomes.forEach((outcome, i) => {
    if (outcome instanceof Error) errors.push(outcome);
    else charged.push({ s: subs[i]!, plan: plans[i]!, outcome, applied: applied[i]! });
  });
  const { made, leftOver } = await writeBatch(deps, charged, at);
  return { renewed: made.map((o) => o.subscriptionId!), leftOver, errors };
}

/** Each subscription's cycle order, from one read of every product, customer and discount. */
async function planBatch(deps: BillingDeps, subs: repo.SubscriptionRow[]): Promise<CyclePlan[]> {
  const discountIds = [...new Set(subs.flatMap((s) => (s.discountId ? [s.discountId] : [])))];
  // The subscriptions were read under tenancy: what they point at is of their organizations.
  const scope = scopeOfResource(...subs);
  const [products, customers, discounts] = await Promise.all([
    serializeProductsByIds(deps.db, deps.baseUrl, scope, [...new Set(subs.map(cycleProductId))]),
    customersByIds(deps.db, scope, [...new Set(subs.map((s) => s.customerId))]),
    Promise.all(discountIds.map(async (id) => [id, await discountOf(deps.db, scope, id)] as const)),
  ]);
  const productById = new Map(products.map((p) => [p.id, p]));
  const customerById = new Map(customers.map((c) => [c.id, c]));
  const discountById = new Map(discounts);
  return Promise.all(
    subs.map((s) =>
      planCycleFrom(
        deps,
        s,
        {
          product: productById.get(cycleProductId(s)),
          customer: customerById.get(s.customerId),
          discount: s.discountId ? (discountById.get(s.discountId) ?? null) : null,
        },
        pendingProrations(s),
      ),
    ),
  );
}

/** The batch's one transaction; answers the orders it made and the rows it left to others. */
async function writeBatch(
  deps: BillingDeps,
  charged: Charged[],
  at: RenewalTime,
): Promise<{ made: OrderRow[]; leftOver: string[] }> {
  if (charged.length === 0) return { made: [], leftOver: [] };
  const organizationId = charged[0]!.s.organizationId;
  const when = (subscriptionId: string) => timeOf(at, subscriptionId);
  return inTransaction(deps.db, async (tx) => {
    const locked = new Map(
      (
        await repo.lockUnheld(
          tx,
          scopeOfResource(...charged.map((c) => c.s)),
          charged.map((c) => c.s.id),
        )
      ).map((r) => [r.id, r]),
    );
    const leftOver = charged.filter((c) => !locked.has(c.s.id)).map((c) => c.s.id);
    // A period already moved was renewed by an earlier run: nothing to write for it.
    const ready = charged.filter(
      (c) => locked.get(c.s.id)?.currentPeriodEnd.getTime() === c.plan.periodStart.getTime(),
    );
    for (const c of charged.filter((c) => locked.has(c.s.id) && !ready.includes(c)))
      await releaseHold(
        tx,
        balanceOwnerOf(c.s),
        cycleBillingKey(c.s.id, c.plan.periodStart),
        when(c.s.id),
      );
    if (ready.length === 0) return { made: [], leftOver };
    const orderOf = new Map(
      ready.map((c) => [
        c.s.id,
        cycleOrderOf(deps, c.s, c.plan, c.outcome, when(c.s.id), c.applied),
      ]),
    );
    const meterRetries = await meterRetriesOf(
      tx,
      ready.map((c) => c.s),
    );
    const updated = await repo.applyRenewals(
      tx,
      scopeOfResource(...charged.map((c) => c.s)),
      ready.map((c) =>
        moveOf(
          locked.get(c.s.id)!,
          c.plan,
          orderOf.get(c.s.id)!.values,
          when(c.s.id),
          meterRetries.get(c.s.id),
        ),
      ),
    );
    await queueWakeUps(tx, deps.queue, organizationId, updated);
    // A next_period plan change applies now: its benefits switch before the grants are cycled.
    for (const u of updated)
      if (u.productId !== locked.get(u.id)!.productId)
        await switchBenefits(tx, { clock: fixedClock(when(u.id)), queue: deps.queue }, u);
    const pastDue = updated.filter((u) => u.status === "past_due");
    for (const [t, group] of byTime(pastDue, (u) => when(u.id)))
      await revokeAfterGrace(tx, { clock: fixedClock(t), queue: deps.queue }, group, t);
    const paid = ready.filter((c) => orderOf.get(c.s.id)!.values.status === "paid");
    // Grants first: a meter credit they renew is part of the customer's state.
    const grantData = new Map<string, unknown[]>();
    for (const [t, group] of byTime(paid, (c) => when(c.s.id)))
      for (const [id, data] of await cycleGrantsOfSubscriptions(
        tx,
        fixedClock(t),
        group.map((c) => c.s),
      ))
        grantData.set(id, data);
    // One read of the batch's customers and products for every payload below.
    const scope = scopeOfResource(...ready.map((c) => c.s));
    const customerIds = [...new Set(ready.map((c) => c.s.customerId))];
    const [records, products] = await Promise.all([
      customerRecordsByIds(tx, scope, customerIds),
      serializeProductsByIds(tx, deps.baseUrl, scope, [
        ...new Set(updated.map((u) => u.productId)),
      ]),
    ]);
    const known = { customers: records.map(customerOut), products };
    const [subscriptionData, states] = await Promise.all([
      serializeSubscriptions(tx, deps.baseUrl, updated, known),
      customerStatesOf(tx, scope, customerIds, records),
    ]);
    // The orders go in this late, numbered as they go: the organization's invoice counter stays
    // locked from here to commit, so a concurrent batch of the same organization waits for it
    // only from its own orders on.
    const { orders: inserted, items } = await insertNumberedOrders(
      tx,
      ready.map((c) => orderOf.get(c.s.id)!),
    );
    for (const order of inserted) await settleOrderBalance(tx, order, when(order.subscriptionId!));
    const byId = new Map(ready.map((c) => [c.s.id, c]));
    const done = inserted.map((order) => ({ order, ...byId.get(order.subscriptionId!)! }));
    await recordPayments(
      tx,
      fixedClock(when(ready[0]!.s.id)),
      done.flatMap((d) => {
        const attempt = attemptRecord(deps, d.s, d.order.id, d.outcome, "subscription_cycle");
        return attempt ? { ...attempt, at: when(d.s.id) } : [];
      }),
    );
    for (const d of done)
      await recordDeferral(tx, fixedClock(when(d.s.id)), d.s, d.order.id, d.outcome);
    const orderData = await serializeOrders(tx, deps.baseUrl, inserted, {
      ...known,
      subscriptions: updated,
      items,
    });
    const subscriptionById = new Map(updated.map((u, i) => [u.id, subscriptionData[i]]));
    const events: OutboxEvent[] = [];
    done.forEach((d, i) => {
      const emit = (type: string, data: unknown) =>
        events.push({ organizationId, type, data, at: when(d.s.id) });
      const subscription = subscriptionById.get(d.s.id);
      emit("order.created", orderData[i]);
      if (d.order.status === "paid") {
        emit("order.paid", orderData[i]);
        emit("subscription.updated", subscription);
        if (locked.get(d.s.id)!.status === "trialing") emit("subscription.active", subscription);
        emit("subscription.cycled", subscription);
        for (const grant of grantData.get(d.s.id) ?? []) emit("benefit_grant.cycled", grant);
      } else {
        emit("subscription.updated", subscription);
        emit("subscription.past_due", subscription);
        emit("subscription.cycled", subscription);
      }
      const state = states.get(d.s.customerId);
      if (state) emit("customer.state_changed", state);
    });
    await recordEvents(tx, fixedClock(when(ready[0]!.s.id)), events);
    await queueReceiptMails(
      tx,
      deps.queue,
      done
        .filter((d) => d.order.status === "paid" && d.order.totalAmount > 0)
        .map((d) => ({ orderId: d.order.id, kind: "paid" as const })),
    );
    // Each declined renewal's mail, rendered with the batch; its job sends it once this commits.
    for (const d of done.filter((d) => d.order.status === "pending"))
      await recordPaymentFailedMail(tx, deps, {
        email: d.plan.customerEmail,
        productName: d.plan.productName,
        order: d.order,
        final: false,
        pastDueAt: when(d.s.id),
      });
    return { made: done.map((d) => d.order), leftOver };
  });
}
