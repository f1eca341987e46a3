// The two ends of a draft order's finalize attempt, each one transaction: paid (invoice number from
// the gapless counter, the payment row, order.updated + order.paid in the outbox, the receipt mail
// and benefit grants queued) or released (still a draft, the declined attempt recorded). Both start
// with a conditional update of the order (still a draft under that attempt; a release also needs
// the claim still open), so a finalize, a repeated finalize and the reconciler settling one charge
// apply it exactly once.
import { inTransaction, type Db } from "../../../db/client.ts";
import type { Clock } from "../../lib/clock.ts";
import type { QueueHandle } from "../../jobs/queue.ts";
import { grantBenefitsForOrder } from "../grants/seam.ts";
import { queueReceiptMail } from "../invoices/receipt-queue.ts";
import {
  nextInvoiceNumber,
  type OrderRow,
  serializeOrders,
  settleDraftAttempt,
  updateOrderRow,
} from "../orders/service.ts";
import type { OffSessionReplay } from "../../../db/schema/index.ts";
import type { PaymentProcessor } from "../payments/processor.ts";
import type { TaxCalculator } from "../tax/calculator.ts";
import { recordPayment } from "../payments/service.ts";
import { recordCustomerState } from "../subscriptions/service.ts";
import { recordEvent } from "../webhooks/outbox.ts";

export interface DraftOrderDeps {
  db: Db;
  clock: Clock;
  baseUrl: string;
  /** Null only where no queue runs (receipts and grants then wait for a process that has one). */
  queue: QueueHandle | null;
  processor: PaymentProcessor;
  /** Tax on top of the amount, by the customer's billing country, as on renewals. */
  tax: TaxCalculator;
  /** How long a claimed attempt may stay unsettled before the reconciler asks the processor. */
  reconcileAfterSeconds: number;
}

/** The processor's idempotency key of a draft's attempt: a repeated request is answered, not redone. */
export function finalizeKey(order: Pick<OrderRow, "id" | "paymentAttempts">): string {
  return `order_finalize:${order.id}:${order.paymentAttempts}`;
}

/**
 * The off-session charge of a draft's attempt with a saved method; kept with the claim, so a
 * repeated finalize and the reconciler ask the processor exactly the same again under its key.
 */
export function finalizeRequest(
  order: Pick<OrderRow, "id" | "organizationId" | "paymentAttempts" | "totalAmount" | "currency">,
  method: { processorPaymentMethodId: string; processorCustomerId: string | null },
): OffSessionReplay {
  return {
    amount: order.totalAmount,
    currency: order.currency,
    paymentMethod: {
      processorPaymentMethodId: method.processorPaymentMethodId,
      processorCustomerId: method.processorCustomerId,
    },
    idempotencyKey: finalizeKey(order),
    description: `Order ${order.id}`,
    metadata: { order_id: order.id, organization_id: order.organizationId },
  };
}

export interface Charged {
  /** Null when nothing was charged (a free order). */
  processorPaymentId: string | null;
  card: { brand: string; last4: string } | null;
}

function attemptOf(deps: DraftOrderDeps, order: OrderRow) {
  return {
    organizationId: order.organizationId,
    customerId: order.customerId,
    checkoutId: null,
    orderId: order.id,
    idempotencyKey: finalizeKey(order),
    processor: deps.processor.name,
    amount: order.totalAmount,
    currency: order.currency,
    trigger: "purchase" as const,
  };
}

/** The claimed attempt was paid. Null when it was already settled (the caller reads the order). */
export async function markPaid(
  deps: DraftOrderDeps,
  order: OrderRow,
  charged: Charged,
): Promise<OrderRow | null> {
  return inTransaction(deps.db, async (tx) => {
    const now = deps.clock.now();
    // A success applies even to an attempt already released (a charge that answered after the
    // reconciler gave up on it) while no newer attempt began: the money came in for this order.
    const settled = await settleDraftAttempt(
      tx,
      order.id,
      order.paymentAttempts,
      {
        status: "paid",
        finalizingAt: null,
        processorPaymentId: charged.processorPaymentId,
        modifiedAt: now,
      },
      false,
    );
    if (!settled) return null;
    // Numbered only once the row is ours: a lost race must not take (and waste) a number.
    const paid = await updateOrderRow(tx, order.id, {
      invoiceNumber: await nextInvoiceNumber(tx, order),
    });
    if (charged.processorPaymentId)
      await recordPayment(tx, deps.clock, {
        ...attemptOf(deps, paid),
        processorPaymentId: charged.processorPaymentId,
        status: "succeeded",
        card: charged.card,
        decline: null,
      });
    const data = (await serializeOrders(tx, deps.baseUrl, [paid]))[0]!;
    const emit = (type: string) =>
      recordEvent(tx, deps.clock, { organizationId: paid.organizationId, type, data });
    await emit("order.updated");
    await emit("order.paid");
    if (paid.totalAmount > 0)
      await queueReceiptMail(tx, deps.queue, { orderId: paid.id, kind: "paid" });
    await grantBenefitsForOrder(tx, deps, {
      organizationId: paid.organizationId,
      id: paid.id,
      customerId: paid.customerId,
      productId: paid.productId,
      subscriptionId: null,
    });
    await recordCustomerState(tx, deps.clock, paid);
    return paid;
  });
}

/**
 * The claimed attempt took no money: the order stays a draft that can be finalized again (a new
 * attempt, a new key). A decline is recorded as a failed payment. False when already settled.
 */
export async function releaseAttempt(
  deps: DraftOrderDeps,
  order: OrderRow,
  decline: { reason: string; message: string } | null,
  card: { brand: string; last4: string } | null = null,
): Promise<boolean> {
  return inTransaction(deps.db, async (tx) => {
    const released = await settleDraftAttempt(
      tx,
      order.id,
      order.paymentAttempts,
      { finalizingAt: null, finalizePaymentMethodId: null, finalizePaymentReplay: null },
      true,
    );
    if (!released) return false;
    if (decline)
      await recordPayment(tx, deps.clock, {
        ...attemptOf(deps, order),
        processorPaymentId: null,
        status: "failed",
        card,
        decline,
      });
    return true;
  });
}
