// Retries of a declined meter-cycle settlement. As Polar: a small overage must not end a prepaid
// plan, so the subscription is left as it is; the order alone is retried on the dunning schedule
// (DUNNING_RETRY_DAYS) and voided, with an order.updated, once the retries are spent. A retry
// charges under its own attempt's key, outside any transaction; one transaction then applies the
// outcome if the order is still at that attempt, so a re-run changes nothing.
import { inTransaction } from "../../../db/client.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import { customersByIds } from "../customers/queries.ts";
import { queueReceiptMail } from "../invoices/receipt-queue.ts";
import {
  dueAmountOf,
  lockOrder,
  periodStartOfKey,
  serializeOrders,
  updateOrderRow,
  type OrderRow,
} from "../orders/service.ts";
import { fixedClock } from "../sandbox-clock/queries.ts";
import { recordEvent } from "../webhooks/outbox.ts";
import { returnBalanceOfVoidedOrder } from "../wallets/service.ts";
import { chargeKey, chargeSubscription, recordAttempt } from "./charge.ts";
import type { BillingDeps } from "./deps.ts";
import { sendPaymentFailedMail } from "./dunning.ts";
import { recordCustomerState } from "./events.ts";
import * as repo from "./repository.ts";
import { scheduleNext } from "./schedule.ts";

/** The next attempt on `order`, a pending meter-cycle order of `s` due at `at`. */
export async function retryMeterOrder(
  deps: BillingDeps,
  s: repo.SubscriptionRow,
  order: OrderRow,
  at: Date,
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
    await recordAttempt(tx, clock, deps, s, order.id, outcome, "retry_dunning");
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
    return { order: updated, mail: !paid && !spent };
  });
  if (result?.mail) {
    const [customer] = await customersByIds(deps.db, scopeOfResource(s), [s.customerId]);
    await sendPaymentFailedMail(deps, {
      email: customer?.email ?? null,
      productName: null,
      order: result.order,
      final: false,
    });
  }
  return result !== null;
}
