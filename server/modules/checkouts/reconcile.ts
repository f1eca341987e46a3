// The reconciler: a session left confirmed longer than PAYMENTS_RECONCILE_AFTER_SECONDS lost its
// confirm between claim and fulfil (the process died, or 3-D Secure finished without its webhook).
// The processor is asked what became of the payment the attempt started, by its idempotency key:
// succeeded → fulfilled (exactly once: fulfil only applies to a session still confirmed under that
// attempt), failed or never started → open again with the discount redemption released,
// still processing → asked again on the next run.
import type { JobDefinition } from "../../jobs/queue.ts";
import type { Logger } from "../../lib/logger.ts";
import { DECLINE_MESSAGES } from "../payments/processor.ts";
import { fulfil, reopen } from "./fulfil.ts";
import { paymentKey } from "./payment.ts";
import * as repo from "./repository.ts";
import type { CheckoutDeps } from "./service.ts";

export const RECONCILE_CHECKOUTS_JOB = "checkouts.reconcile";
const BATCH = 100;

export interface ReconcileResult {
  fulfilled: number;
  reopened: number;
  pending: number;
}

export async function reconcileCheckouts(
  deps: CheckoutDeps,
  log?: Logger,
): Promise<ReconcileResult> {
  const result: ReconcileResult = { fulfilled: 0, reopened: 0, pending: 0 };
  const cutoff = new Date(
    deps.clock.now().getTime() - deps.config.payments.reconcileAfterSeconds * 1000,
  );
  for (const row of await repo.staleConfirmed(deps.db, cutoff, BATCH)) {
    const lookup = await deps.processor.lookupPayment(paymentKey(row)).catch((err: unknown) => {
      log?.warn({ err, checkoutId: row.id }, "payment lookup failed; retried on the next run");
      return { status: "processing" as const };
    });
    if (lookup.status === "processing") {
      result.pending++;
      continue;
    }
    if (lookup.status === "succeeded") {
      const done = await fulfil(deps, row, {
        processorPaymentId: row.totalAmount > 0 ? lookup.processorPaymentId : null,
        card: lookup.card,
        paymentMethod: lookup.paymentMethod,
      });
      if (done) result.fulfilled++;
      continue;
    }
    const message =
      lookup.status === "failed"
        ? DECLINE_MESSAGES.card_declined
        : "The payment was not completed. Please try again.";
    if (await reopen(deps, row, message)) result.reopened++;
  }
  if (result.fulfilled + result.reopened > 0)
    log?.info({ ...result }, "reconciled checkouts left confirmed");
  return result;
}

export function reconcileCheckoutsJob(deps: CheckoutDeps, log: Logger): JobDefinition {
  return {
    name: RECONCILE_CHECKOUTS_JOB,
    queue: { retryLimit: 3 },
    schedule: "* * * * *",
    handle: async () => reconcileCheckouts(deps, log),
  };
}
