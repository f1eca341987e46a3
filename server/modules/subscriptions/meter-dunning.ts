// Retries of a declined meter-cycle settlement. As Polar: a small overage must not end a prepaid
// plan, so the subscription is left as it is; the order alone is retried on the dunning schedule
// (DUNNING_RETRY_DAYS) and voided, with an order.updated, once the retries are spent. A retry
// charges under its own attempt's key, outside any transaction; one transaction then applies the
// outcome if the order is still at that attempt, so a re-run changes nothing.
import { inTransaction } from "../../../db/client.ts";
import type { CustomerContext } from "../../lib/customer-context.ts";
import { scopeOfCustomer, scopeOfResource } from "../../lib/org-scope.ts";
import { customersByIds } from "../customers/queries.ts";
import { queueReceiptMail } from "../invoices/receipt-queue.ts";
import {
  dueAmountOf,
  findOrderRow,
  lockOrder,
  periodStartOfKey,
  serializeOrders,
  updateOrderRow,
  type OrderRow,
} from "../orders/service.ts";
import { fixedClock, organizationClock } from "../sandbox-clock/queries.ts";
import { recordEvent } from "../webhooks/outbox.ts";
import { returnBalanceOfVoidedOrder } from "../wallets/service.ts";
import { chargeKey, chargeSubscription, recordAttempt } from "./charge.ts";
import type { BillingDeps } from "./deps.ts";
import { recordPaymentFailedMail } from "./payment-failed-mail.ts";
import { recordCustomerState } from "./events.ts";
import * as repo from "./repository.ts";
import { scheduleNext, takesMeterRetries } from "./schedule.ts";

/** The next attempt on `order`, a pending meter-cycle order of `s` due at `at`. */
export async function retryMeterOrder(
  deps: BillingDeps,
  s: repo.SubscriptionRow,
  order: OrderRow,
  at: Date,
  trigger: "retry_dunning" | "retry_payment_method_update" = "retry_dunning",
): Promise<boolean> {
  const attempt = order.paymentAttempts;
  const outcome = await chargeSubscription(
    deps,
    s,
    dueAmountOf(order),
    chargeKey(s.id, periodStartOfKey(order.billingKey) ?? order.createdAt, attempt, "meter"),
    "Usage (retry)",
  );
  const clock = fixedClock(at);
  const result = await inTransaction(deps.db, async (tx) => {
    const locked = await repo.lockSubscription(tx, scopeOfResource(s), s.id);
    const current = await lockOrder(tx, scopeOfResource(s), order.id);
    if (!locked || current?.status !== "pending" || current.paymentAttempts !== attempt)
      return null;
    await recordAttempt(tx, clock, deps, s, order.id, outcome, trigger);
    const paid = outcome.status === "succeeded";
    const attempts = attempt + 1;
    const spent = !paid && attempts > deps.retryDays.length;
    const updated = await updateOrderRow(tx, order.id, {
      paymentAttempts: attempts,
      modifiedAt: at,
      ...(paid
        ? {
            status: "paid",
            nextPaymentAttemptAt: null,
            processorPaymentId: outcome.processorPaymentId,
          }
        : spent
          ? { status: "void", nextPaymentAttemptAt: null }
          : {
              nextPaymentAttemptAt: new Date(
                at.getTime() + (deps.retryDays[attempts - 1] ?? 0) * 86_400_000,
              ),
            }),
    });
    if (spent) await returnBalanceOfVoidedOrder(tx, updated, at);
    // The subscription's next action: its own boundary, or this order's next attempt.
    await scheduleNext(tx, deps.queue, locked);
    const [data] = await serializeOrders(tx, deps.baseUrl, [updated]);
    const emit = (type: string) =>
      recordEvent(tx, clock, { organizationId: s.organizationId, type, data });
    await emit("order.updated");
    if (paid) {
      await emit("order.paid");
      await queueReceiptMail(tx, deps.queue, { orderId: updated.id, kind: "paid" });
      await recordCustomerState(tx, clock, s);
    }
    if (paid || spent) return true;
    const [customer] = await customersByIds(tx, scopeOfResource(s), [s.customerId]);
    await recordPaymentFailedMail(tx, deps, {
      email: customer?.email ?? null,
      productName: null,
      order: updated,
      final: false,
    });
    return true;
  });
  return result !== null;
}

/**
 * The customer pays their pending meter-cycle order now (the portal's "pay again", after choosing
 * a card): its next attempt, at once. False when the order is not such an order of theirs.
 */
export async function retryMeterOrderOfCustomer(
  deps: BillingDeps,
  customer: CustomerContext,
  orderId: string,
): Promise<boolean> {
  const scope = scopeOfCustomer(customer);
  const order = await findOrderRow(deps.db, scope, orderId);
  if (
    order?.status !== "pending" ||
    order.billingReason !== "subscription_meter_cycle" ||
    order.customerId !== customer.customerId ||
    !order.subscriptionId
  )
    return false;
  const s = await repo.findSubscription(deps.db, scope, order.subscriptionId);
  if (!s || !takesMeterRetries(s)) return false;
  const now = (await organizationClock(deps.db, deps.clock, customer.organizationId)).now();
  return retryMeterOrder(deps, s, order, now, "retry_payment_method_update");
}
