// Refunds: money back on a paid order through the payment processor. A refund is reserved first
// (pending, under a lock on the order row, counted against what is left), then sent to the processor
// outside any transaction, then settled: on success the order's refunded amounts and status move
// and, for one-time orders when asked, the order's benefit grants are revoked. Partial refunds add
// up and never pass the order's net amount; tax is refunded in proportion (the last refund takes
// whatever tax is left, so rounding never strands a cent).
import { inTransaction, type Db } from "../../../db/client.ts";
import type { QueueHandle } from "../../jobs/queue.ts";
import type { AuthContext } from "../../lib/auth-context.ts";
import type { Clock } from "../../lib/clock.ts";
import { ApiError, RequestValidationError, ResourceNotFound } from "../../lib/errors.ts";
import { scopeOfCaller, scopeOfResource } from "../../lib/org-scope.ts";
import { offsetOf, pageOf, type Pagination } from "../../lib/pagination.ts";
import { revokeBenefitsForOrder } from "../grants/service.ts";
import {
  dueAmountOf,
  findOrderRow,
  lockOrder,
  recordOrderRefund,
  serializeOrders,
} from "../orders/service.ts";
import { queueReceiptMail } from "../invoices/receipt-queue.ts";
import type { PaymentProcessor } from "../payments/processor.ts";
import { recordEvent } from "../webhooks/outbox.ts";
import * as repo from "./repository.ts";
import { refundOut, type RefundCreate, type RefundListQuery } from "./schemas.ts";

export interface RefundDeps {
  db: Db;
  clock: Clock;
  processor: PaymentProcessor;
  queue: QueueHandle | null;
  baseUrl: string;
}

export class RefundedAlready extends ApiError {
  constructor() {
    super(403, "RefundedAlready", "Order is already fully refunded.");
  }
}

export async function listRefunds(
  deps: RefundDeps,
  ctx: AuthContext,
  q: RefundListQuery,
  page: Pagination,
) {
  const { rows, total } = await repo.listRefunds(
    deps.db,
    {
      scope: scopeOfCaller(ctx, q.organization_id),
      ids: q.id,
      orderIds: q.order_id,
      subscriptionIds: q.subscription_id,
      customerIds: q.customer_id,
      externalCustomerIds: q.external_customer_id,
      succeeded: q.succeeded,
    },
    q.sorting,
    page.limit,
    offsetOf(page),
  );
  return pageOf(rows.map(refundOut), total, page);
}

export async function createRefund(deps: RefundDeps, ctx: AuthContext, input: RefundCreate) {
  const found = await findOrderRow(deps.db, scopeOfCaller(ctx), input.order_id);
  if (!found) throw RequestValidationError.field(["body", "order_id"], "Order not found.");
  if (input.revoke_benefits && found.subscriptionId) {
    throw RequestValidationError.field(
      ["body", "revoke_benefits"],
      "Benefits of a subscription order end with the subscription: revoke the subscription instead.",
    );
  }

  const pending = await inTransaction(deps.db, async (tx) => {
    const order = (await lockOrder(tx, scopeOfResource(found), found.id))!;
    if (order.status === "refunded") throw new RefundedAlready();
    if (order.status !== "paid" && order.status !== "partially_refunded")
      throw RequestValidationError.field(["body", "order_id"], "Only paid orders can be refunded.");
    // As Polar: an order nothing was charged for (free, paid from the balance, or below the
    // minimum charge and owed on the balance) has no payment to give back.
    if (!order.processorPaymentId)
      throw new ResourceNotFound(
        `Refund issued for unknown payment: nothing was charged for order ${order.id}.`,
      );
    const reserved = await repo.pendingOfOrder(tx, scopeOfResource(order), order.id);
    const left = order.netAmount - order.refundedAmount - reserved.amount;
    if (left <= 0) throw new RefundedAlready();
    if (input.amount > left)
      throw RequestValidationError.field(
        ["body", "amount"],
        `The amount exceeds what is left to refund on this order (${left}).`,
        "less_than_equal",
      );
    const taxLeft = order.taxAmount - order.refundedTaxAmount - reserved.tax;
    const taxAmount =
      input.amount === left
        ? taxLeft
        : Math.min(taxLeft, Math.round((input.amount * order.taxAmount) / order.netAmount));
    // What the balance paid was never charged: the card gives back at most what it was charged.
    const charged = dueAmountOf(order);
    const cashLeft =
      charged - order.refundedAmount - order.refundedTaxAmount - reserved.amount - reserved.tax;
    if (input.amount + taxAmount > cashLeft)
      throw RequestValidationError.field(
        ["body", "amount"],
        `The amount and its tax exceed what is left of the order's charge (${cashLeft}); the ` +
          `rest was paid from the customer's balance.`,
        "less_than_equal",
      );
    const row = await repo.insertRefund(tx, {
      organizationId: order.organizationId,
      orderId: order.id,
      subscriptionId: order.subscriptionId,
      customerId: order.customerId,
      status: "pending",
      reason: input.reason,
      amount: input.amount,
      taxAmount,
      currency: order.currency,
      comment: input.comment ?? null,
      revokeBenefits: input.revoke_benefits,
      metadata: input.metadata ?? {},
      createdAt: deps.clock.now(),
    });
    await recordEvent(tx, deps.clock, {
      organizationId: row.organizationId,
      type: "refund.created",
      data: refundOut(row),
    });
    return { row, processorPaymentId: order.processorPaymentId };
  });

  const result = await deps.processor
    .refund({
      processorPaymentId: pending.processorPaymentId,
      amount: pending.row.amount + pending.row.taxAmount,
      currency: pending.row.currency,
      idempotencyKey: pending.row.id,
    })
    .catch((err: unknown) => ({
      status: "failed" as const,
      message: `The refund could not be processed: ${(err as Error).message}`,
    }));

  return inTransaction(deps.db, async (tx) => {
    const now = deps.clock.now();
    const order = (await lockOrder(tx, scopeOfResource(pending.row), pending.row.orderId))!;
    const emit = (type: string, data: unknown) =>
      recordEvent(tx, deps.clock, { organizationId: order.organizationId, type, data });
    if (result.status === "failed") {
      const failed = await repo.updateRefund(tx, pending.row.id, {
        status: "failed",
        failureReason: result.message,
        modifiedAt: now,
      });
      await emit("refund.updated", refundOut(failed));
      return refundOut(failed);
    }
    const succeeded = await repo.updateRefund(tx, pending.row.id, {
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
    });
    await emit("order.updated", orderData);
    if (succeeded.revokeBenefits) await revokeBenefitsForOrder(tx, deps, order);
    return refundOut(succeeded);
  });
}
