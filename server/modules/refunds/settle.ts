// Settling a pending refund with the processor's answer: on success the order's refunded amounts and
// status move, the events and the receipt follow, and, for one-time orders when asked, the order's
// benefit grants are revoked; on failure the reservation is released. An answer that the processor
// took the refund but has not given the money back yet (Stripe's pending) changes nothing but the
// processor's id: the refund stays pending and reserved, and the order is left as it is until the
// processor's later event reports success (as Polar, which touches the order only then). Only a
// refund still pending changes, so the answer given to the request, Stripe's events and the
// reconciler may all arrive and the refund is settled once.
import { type Db, inTransaction } from "../../../db/client.ts";
import type { QueueHandle } from "../../jobs/queue.ts";
import type { Clock } from "../../lib/clock.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import { revokeBenefitsForOrder } from "../grants/service.ts";
import { queueReceiptMail } from "../invoices/receipt-queue.ts";
import type { RefundResult } from "../payments/processor.ts";
import { lockOrder, recordOrderRefund, serializeOrders } from "../orders/service.ts";
import { recordEvent } from "../webhooks/outbox.ts";
import * as repo from "./repository.ts";
import { refundOut } from "./schemas.ts";

export interface SettleDeps {
  db: Db;
  clock: Clock;
  queue: QueueHandle | null;
  baseUrl: string;
}

/** The refund as it stands after the answer; null when no such refund exists. */
export async function settleRefund(deps: SettleDeps, refundId: string, result: RefundResult) {
  return inTransaction(deps.db, async (tx) => {
    const found = await repo.refundForProcessor(tx, refundId);
    if (!found) return null;
    const order = (await lockOrder(tx, scopeOfResource(found), found.orderId))!;
    // Read again under the order's lock: a racing settlement may have just applied it.
    const row = (await repo.refundForProcessor(tx, refundId))!;
    if (row.status !== "pending") return refundOut(row);
    if (result.status === "pending") {
      if (row.processorRefundId === result.processorRefundId) return refundOut(row);
      // Not on the wire: no event. It tells the reconciler the processor has this refund.
      const taken = await repo.updateRefund(tx, row.id, {
        processorRefundId: result.processorRefundId,
      });
      return refundOut(taken);
    }
    const now = deps.clock.now();
    const emit = (type: string, data: unknown) =>
      recordEvent(tx, deps.clock, { organizationId: order.organizationId, type, data });
    if (result.status === "failed") {
      const failed = await repo.updateRefund(tx, row.id, {
        status: "failed",
        failureReason: result.message,
        modifiedAt: now,
      });
      await emit("refund.updated", refundOut(failed));
      return refundOut(failed);
    }
    const succeeded = await repo.updateRefund(tx, row.id, {
      status: "succeeded",
      processorRefundId: result.processorRefundId,
      modifiedAt: now,
    });
    const updatedOrder = await recordOrderRefund(
      tx,
      order,
      succeeded.amount,
      succeeded.taxAmount,
      now,
    );
    const orderData = (await serializeOrders(tx, deps.baseUrl, [updatedOrder]))[0]!;
    await emit("refund.updated", refundOut(succeeded));
    await emit("order.refunded", orderData);
    await queueReceiptMail(tx, deps.queue, {
      orderId: order.id,
      kind: "refunded",
      amount: succeeded.amount + succeeded.taxAmount,
      refundId: succeeded.id,
    });
    await emit("order.updated", orderData);
    if (succeeded.revokeBenefits) await revokeBenefitsForOrder(tx, deps, order);
    return refundOut(succeeded);
  });
}
