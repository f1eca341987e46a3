// Failed renewals. The cycle order stays `pending` with next_payment_attempt_at and the
// subscription `past_due`; each retry charges the saved method again under a new attempt's key.
// A success pays the order and makes the subscription active again; after the last retry fails the
// subscription ends as the organization chose (Polar's default: revoked, status canceled; or
// unpaid), its pending order is voided and its benefits are revoked. The customer is emailed after
// each failure, once the change has committed.
import { inTransaction, type Tx } from "../../../db/client.ts";
import { MAIL_SESSION_TTL_MS, openBuyerSession } from "../customer-sessions/service.ts";
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
import {
  customerEmailsOf,
  dunningEndStatus,
  subscriptionSettingsOf,
} from "../organizations/queries.ts";
import { queueReceiptMail } from "../invoices/receipt-queue.ts";
import { serializeProductsByIds } from "../products/service.ts";
import { recordEvent } from "../webhooks/outbox.ts";
import { returnBalanceOfVoidedOrder } from "../wallets/service.ts";
import { chargeKey, chargeSubscription, recordAttempt } from "./charge.ts";
import type { BillingDeps } from "./deps.ts";
import { recordCustomerState, recordSubscriptionEvents } from "./events.ts";
import { restoreBenefits, revokeAfterGrace } from "./grace.ts";
import { SubscriptionLocked, withLease } from "./lease.ts";
import * as repo from "./repository.ts";
import { scheduleAt, scheduleNext } from "./schedule.ts";

/**
 * When dunning gives up: the last retry's time, counted from the first failure (Polar's
 * past_due_deadline).
 */
export function dunningDeadline(deps: Pick<BillingDeps, "retryDays">, pastDueAt: Date): Date {
  const days = deps.retryDays.reduce((sum, d) => sum + d, 0);
  return new Date(pastDueAt.getTime() + days * 86_400_000);
}

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
      return { order: paidOrder, final: false, failed: false, pastDueAt: null };
    }
    const attempts = attempt + 1;
    const deadline = locked.pastDueAt ? dunningDeadline(deps, locked.pastDueAt) : null;
    if (attempts > deps.retryDays.length || (deadline && at >= deadline)) {
      const voided = await endForNonPayment(tx, deps, locked, order, at);
      return { order: voided, final: true, failed: true, pastDueAt: null };
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
    return { order: failedOrder, final: false, failed: true, pastDueAt: locked.pastDueAt };
  });
  if (result?.failed) {
    const [customer] = await customersByIds(deps.db, scopeOfResource(s), [s.customerId]);
    await sendPaymentFailedMail(deps, {
      email: customer?.email ?? null,
      productName: null,
      order: result.order,
      final: result.final,
      pastDueAt: result.pastDueAt,
    });
  }
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

function money(amount: number, currency: string): string {
  return `${(amount / 100).toFixed(2)} ${currency.toUpperCase()}`;
}

/**
 * What a past-due customer keeps meanwhile, as Polar's past-due email says it: access until the
 * organization's grace period ends, or no access until the payment goes through, with the date
 * dunning gives up.
 */
async function accessNote(
  deps: Pick<BillingDeps, "db" | "retryDays">,
  organizationId: string,
  pastDueAt: Date,
): Promise<string> {
  const settings = await subscriptionSettingsOf(deps.db, organizationId);
  const grace = settings?.benefit_revocation_grace_period ?? 0;
  const day = (d: Date) => d.toISOString().slice(0, 10);
  if (grace > 0)
    return ` You keep access until ${day(new Date(pastDueAt.getTime() + grace * 86_400_000))}; update your payment method before then to avoid any interruption.`;
  return ` Your access is paused until the payment goes through. If it still cannot be collected, the subscription ends on ${day(dunningDeadline(deps, pastDueAt))}.`;
}

export async function sendPaymentFailedMail(
  deps: Pick<BillingDeps, "db" | "clock" | "mailer" | "baseUrl" | "retryDays">,
  m: {
    email: string | null;
    productName: string | null;
    order: OrderRow;
    final: boolean;
    /** When the failure made (or keeps) the subscription past_due; none for a usage settlement. */
    pastDueAt?: Date | null;
  },
): Promise<void> {
  if (!deps.mailer || !m.email) return;
  // Polar's settings for these two: the failed payment, and the subscription it ends.
  const emails = await customerEmailsOf(deps.db, m.order.organizationId);
  if (emails?.[m.final ? "subscription_revoked" : "subscription_past_due"] === false) return;
  const productName = m.productName ?? (await productNameOf(deps, m.order));
  const what = productName ? `your ${productName} subscription` : "your subscription";
  const next = m.order.nextPaymentAttemptAt;
  const text = m.final
    ? `We could not collect ${money(dueAmountOf(m.order), m.order.currency)} for ${what} after several attempts, so it has ended.`
    : `We could not collect ${money(dueAmountOf(m.order), m.order.currency)} for ${what}. We will try again on ${next?.toISOString().slice(0, 10) ?? "a later date"}; update your payment method to pay now.${m.pastDueAt ? await accessNote(deps, m.order.organizationId, m.pastDueAt) : ""}`;
  const kind = m.final ? "subscription-ended-unpaid" : "payment-failed";
  await deps.mailer.send({
    kind,
    // Once per failed attempt of the order, however often the job that found it runs.
    key: `${kind}:${m.order.id}:${m.order.paymentAttempts}`,
    to: m.email,
    subject: m.final ? "Your subscription has ended" : "Your payment failed",
    text,
    // Signed in, so "update your payment method" is one click away.
    link: `${deps.baseUrl}/portal?customer_session_token=${await openBuyerSession(
      deps,
      m.order.organizationId,
      m.order.customerId,
      MAIL_SESSION_TTL_MS,
    )}`,
  });
}

/** The name of the product an order is for (a retry's mail names it as the first one did). */
async function productNameOf(
  deps: Pick<BillingDeps, "db" | "baseUrl">,
  order: OrderRow,
): Promise<string | null> {
  if (!order.productId) return null;
  const [product] = await serializeProductsByIds(deps.db, deps.baseUrl, scopeOfResource(order), [
    order.productId,
  ]);
  return product?.name ?? null;
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
