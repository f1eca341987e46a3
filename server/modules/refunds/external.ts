// Refunds made at the processor rather than through till (a refund in Stripe's dashboard): recorded
// once, from the processor's own refund, as a succeeded refund on the order the payment paid for,
// with the order's amounts and status and the same webhook events as a refund made through till.
// Refunds till made itself are recognised by their id at the processor and left alone.
import { inTransaction, type Db } from "../../../db/client.ts";
import type { QueueHandle } from "../../jobs/queue.ts";
import type { Clock } from "../../lib/clock.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import {
  lockOrderByPaymentForProcessor,
  recordOrderRefund,
  serializeOrders,
} from "../orders/service.ts";
import { queueReceiptMail } from "../invoices/receipt-queue.ts";
import { recordEvent } from "../webhooks/outbox.ts";
import * as repo from "./repository.ts";
import { refundOut } from "./schemas.ts";

export interface ExternalRefund {
  processorPaymentId: string;
  processorRefundId: string;
  /** What the processor gave back, tax included, in the order's currency's minor units. */
  grossAmount: number;
}

export async function recordExternalRefund(
  deps: { db: Db; clock: Clock; baseUrl: string; queue: QueueHandle | null },
  refund: ExternalRefund,
): Promise<"recorded" | "known" | "no_order"> {
  return inTransaction(deps.db, async (tx) => {
    const order = await lockOrderByPaymentForProcessor(tx, refund.processorPaymentId);
    if (!order) return "no_order";
    if (await repo.byProcessorRefund(tx, scopeOfResource(order), refund.processorRefundId))
      return "known";
    const netLeft = order.netAmount - order.refundedAmount;
    const taxLeft = order.taxAmount - order.refundedTaxAmount;
    const gross = Math.min(refund.grossAmount, netLeft + taxLeft);
    if (gross <= 0) return "known";
    // Tax goes back in the order's proportion; a refund of everything left takes all of it.
    const taxAmount =
      gross === netLeft + taxLeft
        ? taxLeft
        : Math.min(
            taxLeft,
            Math.round((gross * order.taxAmount) / (order.netAmount + order.taxAmount)),
          );
    const now = deps.clock.now();
    const row = await repo.insertRefund(tx, {
      organizationId: order.organizationId,
      orderId: order.id,
      subscriptionId: order.subscriptionId,
      customerId: order.customerId,
      status: "succeeded",
      reason: "other",
      amount: gross - taxAmount,
      taxAmount,
      currency: order.currency,
      comment: "Refunded at the payment processor",
      revokeBenefits: false,
      processorRefundId: refund.processorRefundId,
      metadata: {},
      createdAt: now,
    });
    const updated = await recordOrderRefund(tx, order, row.amount, row.taxAmount, now);
    const orderData = (await serializeOrders(tx, deps.baseUrl, [updated]))[0]!;
    const emit = (type: string, data: unknown) =>
      recordEvent(tx, deps.clock, { organizationId: order.organizationId, type, data });
    await emit("refund.created", refundOut(row));
    await emit("order.refunded", orderData);
    await queueReceiptMail(tx, deps.queue, {
      orderId: order.id,
      kind: "refunded",
      amount: gross,
      refundId: row.id,
    });
    await emit("order.updated", orderData);
    return "recorded";
  });
}
