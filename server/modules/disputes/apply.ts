// A processor's dispute applied to till: created on the first event about it (from the payment it
// names: order, customer, tax share), kept current from the processor's own view of it, and on a
// lost dispute the benefits go (a subscription is revoked now, or once a renewal in flight gives it
// back; a one-time order's grants are revoked) exactly once, with order.updated. Events may come
// twice or out of order: each applies the dispute as the processor reports it now, under the row
// lock.
import { inTransaction, type Db, type Tx } from "../../../db/client.ts";
import type { QueueHandle } from "../../jobs/queue.ts";
import type { Clock } from "../../lib/clock.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import { revokeBenefitsForOrder } from "../grants/service.ts";
import { lockOrder, lockOrderByPaymentForProcessor, serializeOrders } from "../orders/service.ts";
import type { PaymentProcessor, ProcessorDispute } from "../payments/processor.ts";
import { paymentForProcessor } from "../payments/queries.ts";
import { organizationClock } from "../sandbox-clock/queries.ts";
import { revokeSubscriptionNow } from "../subscriptions/revoke-now.ts";
import { recordEvent } from "../webhooks/outbox.ts";
import * as repo from "./repository.ts";
import { isClosed } from "./schemas.ts";

export interface DisputeDeps {
  db: Db;
  clock: Clock;
  baseUrl: string;
  queue: QueueHandle | null;
  processor: PaymentProcessor;
}

export type DisputeOutcome = "applied" | "unchanged" | "no_payment";

export async function applyProcessorDispute(
  deps: DisputeDeps,
  processor: repo.DisputeRow["processor"],
  pd: ProcessorDispute,
): Promise<DisputeOutcome> {
  return inTransaction(deps.db, async (tx) => {
    let row = await repo.lockByProcessorIdForProcessor(tx, processor, pd.processorDisputeId);
    const created = !row;
    if (!row) {
      const inserted = await insertFromPayment(tx, deps.clock, processor, pd);
      if (!inserted) return "no_payment";
      row = inserted;
    }
    const clock = await organizationClock(tx, deps.clock, row.organizationId);
    // A closed dispute stays closed, except a prevented one the network escalates after all.
    const status =
      created || !isClosed(row.status) || (row.status === "prevented" && !isClosed(pd.status))
        ? pd.status
        : row.status;
    const same =
      !created &&
      status === row.status &&
      row.reason === pd.reason &&
      row.pastDue === pd.pastDue &&
      row.evidenceDueBy?.getTime() === pd.evidenceDueBy?.getTime();
    if (same) return "unchanged";
    const now = clock.now();
    const updated = await repo.updateDispute(tx, row.id, {
      status,
      reason: pd.reason,
      evidenceDueBy: pd.evidenceDueBy,
      pastDue: pd.pastDue,
      modifiedAt: now,
      ...(status === "lost" && !row.revokedAt ? { revokedAt: now } : {}),
    });
    if (status === "lost" && !row.revokedAt) await revokeForLostDispute(tx, deps, clock, updated);
    return "applied";
  });
}

async function insertFromPayment(
  tx: Tx,
  clock: Clock,
  processor: repo.DisputeRow["processor"],
  pd: ProcessorDispute,
): Promise<repo.DisputeRow | null> {
  const payment = await paymentForProcessor(tx, pd.processorPaymentId);
  if (!payment) return null;
  const order = payment.orderId
    ? await lockOrder(tx, scopeOfResource(payment), payment.orderId)
    : await lockOrderByPaymentForProcessor(tx, pd.processorPaymentId);
  if (!order) return null;
  // The disputed amount includes tax; tax is its share in the order's proportion (as refunds).
  const gross = order.netAmount + order.taxAmount;
  const taxAmount =
    gross === 0 ? 0 : Math.min(order.taxAmount, Math.round((pd.amount * order.taxAmount) / gross));
  await repo.insertDispute(tx, {
    organizationId: order.organizationId,
    customerId: order.customerId,
    orderId: order.id,
    paymentId: payment.id,
    processor,
    processorDisputeId: pd.processorDisputeId,
    status: pd.status,
    amount: pd.amount - taxAmount,
    taxAmount,
    currency: pd.currency,
    reason: pd.reason,
    evidenceDueBy: pd.evidenceDueBy,
    pastDue: pd.pastDue,
    createdAt: (await organizationClock(tx, clock, order.organizationId)).now(),
  });
  return repo.lockByProcessorIdForProcessor(tx, processor, pd.processorDisputeId);
}

/** Polar's answer to a lost chargeback: the buyer keeps the money, so the purchase's benefits end. */
async function revokeForLostDispute(
  tx: Tx,
  deps: DisputeDeps,
  clock: Clock,
  d: repo.DisputeRow,
): Promise<void> {
  const order = (await lockOrder(tx, scopeOfResource(d), d.orderId))!;
  if (order.subscriptionId)
    await revokeSubscriptionNow(tx, deps, clock, scopeOfResource(order), order.subscriptionId);
  else await revokeBenefitsForOrder(tx, { clock, queue: deps.queue }, order);
  const [data] = await serializeOrders(tx, deps.baseUrl, [order]);
  await recordEvent(tx, clock, {
    organizationId: order.organizationId,
    type: "order.updated",
    data,
  });
}
