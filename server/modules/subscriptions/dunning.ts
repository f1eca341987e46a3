// Failed renewals. The cycle order stays `pending` with next_payment_attempt_at and the
// subscription `past_due`; each retry charges the saved method again under a new attempt's key.
// A success pays the order and makes the subscription active again; after the last retry fails the
// subscription ends as the organization chose (Polar's default: revoked, status canceled; or
// unpaid), its pending order is voided and its benefits are revoked. The customer is emailed after
// each failure: the mail's job is queued with the change and sends it once that has committed.
import { inTransaction, type Tx } from "../../../db/client.ts";
import { fixedClock, organizationClock } from "../sandbox-clock/queries.ts";
import type { CustomerContext } from "../../lib/customer-context.ts";
import { scopeOfCustomer, scopeOfResource } from "../../lib/org-scope.ts";
import { customersByIds } from "../customers/queries.ts";
import { revokeBenefitsForSubscription } from "../grants/seam.ts";
import { revokeSeatsOfSubscription } from "../seats/subscription-end.ts";
import { cycleGrantsOfSubscription } from "../grants/cycle.ts";
import {
  dueAmountOf,
  pendingOrderOfSubscription,
  periodStartOfKey,
  serializeOrders,
  updateOrderRow,
  type OrderRow,
} from "../orders/service.ts";
import { dunningEndStatus } from "../organizations/queries.ts";
import { queueReceiptMail } from "../invoices/receipt-queue.ts";
import { recordEvent } from "../webhooks/outbox.ts";
import { returnBalanceOfVoidedOrder } from "../wallets/service.ts";
import { chargeKey, chargeSubscription, recordAttempt } from "./charge.ts";
import type { BillingDeps } from "./deps.ts";
import { recordCustomerState, recordSubscriptionEvents } from "./events.ts";
import { restoreBenefits, revokeAfterGrace } from "./grace.ts";
import { SubscriptionLocked, withLease } from "./lease.ts";
import { dunningDeadline, recordPaymentFailedMail } from "./payment-failed-mail.ts";
import * as repo from "./repository.ts";
import { scheduleAt, scheduleNext } from "./schedule.ts";

/** The period an order of the cycle was for, from its billing key. */
function periodStartOf(order: OrderRow): Date {
  return periodStartOfKey(order.billingKey) ?? order.createdAt;
}

function isMeterCycle(order: OrderRow): boolean {
  return order.billingReason === "subscription_meter_cycle";
}

/** The next attempt on a past_due subscription's pending order, as of `at`. */
export async function retryPayment(
  deps: BillingDeps,
  s: repo.SubscriptionRow,
  at: Date,
  trigger: "retry_dunning" | "retry_payment_method_update" = "retry_dunning",
): Promise<boolean> {
  const order = await pendingOrderOfSubscription(deps.db, s);
  if (!order) {
    // Nothing left to collect (paid or voided elsewhere): back to the period's schedule.
    await inTransaction(deps.db, async (tx) => {
      const locked = await repo.lockSubscription(tx, scopeOfResource(s), s.id);
      if (locked?.status !== "past_due") return;
      await scheduleNext(
        tx,
        deps.queue,
        await repo.updateSubscription(tx, s.id, { status: "active", pastDueAt: null }),
      );
      await restoreBenefits(tx, { clock: fixedClock(at), queue: deps.queue }, locked, null);
    });
    return false;
  }
  const attempt = order.paymentAttempts;
  const outcome = await chargeSubscription(
    deps,
    s,
    dueAmountOf(order),
    chargeKey(s.id, periodStartOf(order), attempt, isMeterCycle(order) ? "meter" : "renewal"),
    "Subscription renewal (retry)",
  );
  const clock = fixedClock(at);
  const result = await inTransaction(deps.db, async (tx) => {
    const locked = await repo.lockSubscription(tx, scopeOfResource(s), s.id);
    const current = await pendingOrderOfSubscription(tx, s);
    if (!locked || !current || current.id !== order.id || current.paymentAttempts !== attempt)
      return null;
    const emit = (type: string, data: unknown) =>
      recordEvent(tx, clock, { organizationId: s.organizationId, type, data });
    await recordAttempt(tx, clock, deps, s, order.id, outcome, trigger);
    if (outcome.status === "succeeded") {
      const paidOrder = await updateOrderRow(tx, order.id, {
        status: "paid",
        paymentAttempts: attempt + 1,
        nextPaymentAttemptAt: null,
        processorPaymentId: outcome.processorPaymentId,
        modifiedAt: at,
      });
      const updated = await scheduleNext(
        tx,
        deps.queue,
        await repo.updateSubscription(tx, s.id, {
          status: "active",
          pastDueAt: null,
          modifiedAt: at,
        }),
      );
      const [data] = await serializeOrders(tx, deps.baseUrl, [paidOrder]);
      await emit("order.updated", data);
      await emit("order.paid", data);
      await queueReceiptMail(tx, deps.queue, { orderId: paidOrder.id, kind: "paid" });
      await recordSubscriptionEvents(tx, { clock, baseUrl: deps.baseUrl }, updated, [
        "subscription.updated",
        "subscription.active",
      ]);
      await restoreBenefits(tx, { clock, queue: deps.queue }, locked, paidOrder.id);
      // A renewal's credits are for the period it started, whatever was used since.
      await cycleGrantsOfSubscription(
        tx,
        clock,
        s,
        isMeterCycle(order) ? "meter_credit" : "all",
        isMeterCycle(order) ? at : periodStartOf(order),
      );
      await recordCustomerState(tx, clock, s);
      return true;
    }
    const attempts = attempt + 1;
    const deadline = locked.pastDueAt ? dunningDeadline(deps, locked.pastDueAt) : null;
    const [customer] = await customersByIds(tx, scopeOfResource(s), [s.customerId]);
    const email = customer?.email ?? null;
    if (attempts > deps.retryDays.length || (deadline && at >= deadline)) {
      const voided = await endForNonPayment(tx, deps, locked, order, at);
      await recordPaymentFailedMail(tx, deps, {
        email,
        productName: null,
        order: voided,
        final: true,
      });
      return true;
    }
    // An issuer's "do not retry" leaves one last attempt, at the deadline.
    const next =
      outcome.doNotRetry && deadline
        ? deadline
        : new Date(at.getTime() + (deps.retryDays[attempts - 1] ?? 0) * 86_400_000);
    const failedOrder = await updateOrderRow(tx, order.id, {
      paymentAttempts: attempts,
      nextPaymentAttemptAt: next,
      modifiedAt: at,
    });
    await scheduleAt(tx, deps.queue, locked, next);
    await revokeAfterGrace(tx, { clock, queue: deps.queue }, [locked], at);
    const [data] = await serializeOrders(tx, deps.baseUrl, [failedOrder]);
    await emit("order.updated", data);
    await recordPaymentFailedMail(tx, deps, {
      email,
      productName: null,
      order: failedOrder,
      final: false,
      pastDueAt: locked.pastDueAt,
    });
    return true;
  });
  return result !== null;
}

/** The last retry failed: the order is voided and the subscription ends with its benefits. */
async function endForNonPayment(
  tx: Tx,
  deps: BillingDeps,
  s: repo.SubscriptionRow,
  order: OrderRow,
  at: Date,
): Promise<OrderRow> {
  const clock = fixedClock(at);
  const status = await dunningEndStatus(tx, s.organizationId);
  const voided = await updateOrderRow(tx, order.id, {
    status: "void",
    paymentAttempts: order.paymentAttempts + 1,
    nextPaymentAttemptAt: null,
    modifiedAt: at,
  });
  await returnBalanceOfVoidedOrder(tx, voided, at);
  const ended = await scheduleAt(
    tx,
    deps.queue,
    await repo.updateSubscription(tx, s.id, {
      status,
      canceledAt: s.canceledAt ?? at,
      endsAt: at,
      endedAt: at,
      modifiedAt: at,
    }),
    null,
  );
  const [data] = await serializeOrders(tx, deps.baseUrl, [voided]);
  await recordEvent(tx, clock, {
    organizationId: s.organizationId,
    type: "order.updated",
    data,
  });
  await recordSubscriptionEvents(tx, { clock, baseUrl: deps.baseUrl }, ended, [
    "subscription.updated",
    ...(s.canceledAt ? [] : ["subscription.canceled"]),
    "subscription.revoked",
  ]);
  await revokeBenefitsForSubscription(tx, { clock, queue: deps.queue }, ended);
  await revokeSeatsOfSubscription(tx, clock, ended);
  await recordCustomerState(tx, clock, s);
  return voided;
}

/**
 * A customer who saves a new default payment method (the portal) is retried at once: each of
 * their past_due subscriptions gets its next attempt now, with the new card.
 */
export async function retryPastDueOfCustomer(
  deps: BillingDeps,
  customer: CustomerContext,
): Promise<{ retried: number; held: number }> {
  const now = (await organizationClock(deps.db, deps.clock, customer.organizationId)).now();
  let retried = 0;
  let held = 0;
  const scope = scopeOfCustomer(customer);
  for (const found of await repo.activeOfCustomer(deps.db, scope, customer.customerId)) {
    if (found.status !== "past_due") continue;
    // Under the lease, as of now: a seller's revoke meanwhile is seen, and none runs alongside.
    // One held by another change keeps its scheduled retry.
    const paid = await withLease(deps.db, found, (s) =>
      s.status === "past_due"
        ? retryPayment(deps, s, now, "retry_payment_method_update")
        : Promise.resolve(false),
    ).catch((err: unknown) => {
      if (err instanceof SubscriptionLocked) {
        held++;
        return false;
      }
      throw err;
    });
    if (paid) retried++;
  }
  return { retried, held };
}
