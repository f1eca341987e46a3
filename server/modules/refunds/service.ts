// Refunds: money back on a paid order through the payment processor. A refund is reserved first
// (pending, under a lock on the order row, counted against what is left), then sent to the processor
// outside any transaction, then settled (settle.ts); one the processor did not answer, or answered
// that it holds as pending, stays pending for its webhook or the reconciler (reconcile.ts), and
// touches the order only once it succeeded. Partial refunds add
// up and never pass the order's net amount; tax is refunded in proportion (the last refund takes
// whatever tax is left, so rounding never strands a cent).
import { inTransaction, type Db } from "../../../db/client.ts";
import type { QueueHandle } from "../../jobs/queue.ts";
import type { AuthContext } from "../../lib/auth-context.ts";
import { formatMoney } from "../../lib/currency-units.ts";
import type { Clock } from "../../lib/clock.ts";
import { ApiError, RequestValidationError, ResourceNotFound } from "../../lib/errors.ts";
import { scopeOfCaller, scopeOfResource } from "../../lib/org-scope.ts";
import { offsetOf, pageOf, type Pagination } from "../../lib/pagination.ts";
import { dueAmountOf, findOrderRow, lockOrder } from "../orders/service.ts";
import type { PaymentProcessor, RefundRequest } from "../payments/processor.ts";
import { recordEvent } from "../webhooks/outbox.ts";
import * as repo from "./repository.ts";
import { refundOut, type RefundCreate, type RefundListQuery } from "./schemas.ts";
import { settleRefund } from "./settle.ts";

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
        `The amount exceeds what is left to refund on this order (${formatMoney(left, order.currency)}).`,
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
        `The amount and its tax exceed what is left of the order's charge ` +
          `(${formatMoney(cashLeft, order.currency)}); the ` +
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

  // No answer (the connection cut, Stripe's own error): the processor may have refunded, so the
  // refund stays pending and reserved until its webhook or the reconciler settles it.
  const result = await deps.processor
    .refund(refundRequest(pending.row, pending.processorPaymentId))
    .catch(() => null);
  if (!result) return refundOut(pending.row);
  return (await settleRefund(deps, pending.row.id, result))!;
}

/** What the processor is asked for a refund: the same every time, under the refund's own id. */
export function refundRequest(row: repo.RefundRow, processorPaymentId: string): RefundRequest {
  return {
    processorPaymentId,
    amount: row.amount + row.taxAmount,
    currency: row.currency,
    idempotencyKey: row.id,
  };
}
