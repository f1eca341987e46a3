// The reconciler of draft orders: a finalize that claimed an attempt and did not settle it within
// PAYMENTS_RECONCILE_AFTER_SECONDS died between the charge and its commit (or the processor never
// answered). The processor is asked what became of the attempt's key: charged → paid (exactly once:
// settling applies only to a draft still claimed under that attempt), declined or never charged →
// released (a draft again, finalizable anew), still processing → given up at the processor where it
// can be (nobody is present to finish it off-session), else asked again on the next run.
import { JOB_HEARTBEAT_SECONDS, type JobDefinition } from "../../jobs/queue.ts";
import type { Logger } from "../../lib/logger.ts";
import { staleFinalizingForJob } from "../orders/service.ts";
import { DECLINE_MESSAGES, type PaymentLookup } from "../payments/processor.ts";
import { type DraftOrderDeps, finalizeKey, markPaid, releaseAttempt } from "./settle.ts";

export const RECONCILE_DRAFT_ORDERS_JOB = "draft-orders.reconcile";
const BATCH = 100;

export interface DraftReconcileResult {
  paid: number;
  released: number;
  pending: number;
}

export async function reconcileDraftOrders(
  deps: DraftOrderDeps,
  log?: Logger,
): Promise<DraftReconcileResult> {
  const result: DraftReconcileResult = { paid: 0, released: 0, pending: 0 };
  const cutoff = new Date(deps.clock.now().getTime() - deps.reconcileAfterSeconds * 1000);
  for (const order of await staleFinalizingForJob(deps.db, cutoff, BATCH)) {
    const key = finalizeKey(order);
    const unanswered = (err: unknown): PaymentLookup => {
      log?.warn({ err, orderId: order.id }, "payment lookup failed; retried on the next run");
      return { status: "processing" };
    };
    // The charge as the claim asked it, asked again: Stripe answers with what it made under the
    // key (or makes it now, as the seller asked, if it never got there), with no search lag.
    const replay = order.finalizePaymentReplay ?? undefined;
    let lookup = await deps.processor.lookupPayment(key, undefined, replay).catch(unanswered);
    if (lookup.status === "processing" && deps.processor.cancelPayment)
      lookup = await deps.processor.cancelPayment(key, replay).catch(unanswered);
    if (lookup.status === "processing") {
      result.pending++;
    } else if (lookup.status === "succeeded") {
      const paid = await markPaid(deps, order, {
        processorPaymentId: order.totalAmount > 0 ? lookup.processorPaymentId : null,
        card: lookup.card,
      });
      if (paid) result.paid++;
    } else {
      const decline =
        lookup.status === "failed"
          ? { reason: "card_declined", message: DECLINE_MESSAGES.card_declined }
          : null;
      if (await releaseAttempt(deps, order, decline)) result.released++;
    }
  }
  if (result.paid + result.released > 0)
    log?.info({ ...result }, "reconciled draft orders left finalizing");
  return result;
}

export function reconcileDraftOrdersJob(deps: DraftOrderDeps, log: Logger): JobDefinition {
  return {
    name: RECONCILE_DRAFT_ORDERS_JOB,
    queue: { retryLimit: 3, heartbeatSeconds: JOB_HEARTBEAT_SECONDS },
    schedule: "* * * * *",
    handle: async () => reconcileDraftOrders(deps, log),
  };
}
