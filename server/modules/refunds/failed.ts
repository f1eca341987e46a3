// A refund the processor failed or canceled after till counted it (Stripe: the card's bank sent the
// money back, the card being closed or lost): the refund takes that status and, if it had
// succeeded, its amounts come off the order's refunded amounts again, as Polar's
// update_from_stripe does; a refund still pending only releases its reservation. refund.updated
// (and order.updated when the order changed) are recorded in the same transaction. A refund
// already failed or canceled is left as it is, so every event Stripe sends for the failure, and
// every redelivery, applies it once.
import { inTransaction } from "../../../db/client.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import {
  lockOrderByPaymentForProcessor,
  recordOrderRefund,
  serializeOrders,
} from "../orders/service.ts";
import { recordEvent } from "../webhooks/outbox.ts";
import * as repo from "./repository.ts";
import { refundOut } from "./schemas.ts";
import type { SettleDeps } from "./settle.ts";

export interface ProcessorRefundFailure {
  processorPaymentId: string;
  processorRefundId: string;
  /** Till's own refund id, which its refunds carry at the processor; null for outside refunds. */
  refundId: string | null;
  status: "failed" | "canceled";
  /** Polar's RefundFailureReason. */
  failureReason: string | null;
}

export async function failRefundAtProcessor(
  deps: SettleDeps,
  failure: ProcessorRefundFailure,
): Promise<"applied" | "known" | "unknown"> {
  return inTransaction(deps.db, async (tx) => {
    const order = await lockOrderByPaymentForProcessor(tx, failure.processorPaymentId);
    if (!order) return "unknown";
    const own = failure.refundId ? await repo.refundForProcessor(tx, failure.refundId) : null;
    const row =
      own ?? (await repo.byProcessorRefund(tx, scopeOfResource(order), failure.processorRefundId));
    if (row?.orderId !== order.id) return "unknown";
    if (row.status === "failed" || row.status === "canceled") return "known";
    const now = deps.clock.now();
    const updated = await repo.updateRefund(tx, row.id, {
      status: failure.status,
      failureReason: failure.failureReason,
      processorRefundId: failure.processorRefundId,
      modifiedAt: now,
    });
    const emit = (type: string, data: unknown) =>
      recordEvent(tx, deps.clock, { organizationId: order.organizationId, type, data });
    await emit("refund.updated", refundOut(updated));
    if (row.status === "succeeded") {
      const restored = await recordOrderRefund(tx, order, -row.amount, -row.taxAmount, now);
      await emit("order.updated", (await serializeOrders(tx, deps.baseUrl, [restored]))[0]!);
    }
    return "applied";
  });
}
