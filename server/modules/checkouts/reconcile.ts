// The reconciler: a session left confirmed longer than PAYMENTS_RECONCILE_AFTER_SECONDS lost its
// confirm between claim and fulfil (the process died, or 3-D Secure finished without its webhook).
// The processor is asked what became of the payment the attempt started, by its idempotency key
// (the charge asked again under it; one that never reached the processor is made now, as asked):
// succeeded → fulfilled (exactly once: fulfil only applies to a session still confirmed under that
// attempt), failed or never started → open again with the discount redemption released,
// still processing → asked again on the next run, and given up at the processor (then reopened)
// once it has waited ABANDONED_AFTER_SECONDS for a customer who never finished 3-D Secure.
import { JOB_HEARTBEAT_SECONDS, type JobDefinition } from "../../jobs/queue.ts";
import type { Logger } from "../../lib/logger.ts";
import { DECLINE_MESSAGES, type SavedPaymentMethod } from "../payments/processor.ts";
import { fulfil, reopen } from "./fulfil.ts";
import { buyerFor, chargeRequestOf, paymentKey } from "./payment.ts";
import * as repo from "./repository.ts";
import type { CheckoutDeps } from "./service.ts";

export const RECONCILE_CHECKOUTS_JOB = "checkouts.reconcile";
/** How long a customer may take over 3-D Secure before the payment is given up. */
export const ABANDONED_AFTER_SECONDS = 30 * 60;
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
  for (const row of await repo.staleConfirmedForJob(deps.db, cutoff, BATCH)) {
    // One session that cannot be settled (its fulfilment fails) must not hold up the others.
    const outcome = await settle(deps, row, log).catch((err: unknown) => {
      log?.error({ err, checkoutId: row.id }, "a confirmed checkout could not be reconciled");
      return "pending" as const;
    });
    if (outcome) result[outcome]++;
  }
  if (result.fulfilled + result.reopened > 0)
    log?.info({ ...result }, "reconciled checkouts left confirmed");
  return result;
}

/**
 * Applies what the processor says of a confirmed session's current attempt. Safe to call any number
 * of times from anywhere (reconciler, processor webhooks): only a session still confirmed under
 * that attempt changes, once.
 */
async function settle(
  deps: CheckoutDeps,
  row: repo.CheckoutRow,
  log?: Logger,
  processorPaymentId?: string,
): Promise<keyof ReconcileResult | null> {
  const key = paymentKey(row);
  const failedLookup = (err: unknown) => {
    log?.warn({ err, checkoutId: row.id }, "payment lookup failed; retried on the next run");
    return { status: "processing" as const };
  };
  // The charge as first asked, asked again under its key: found without the processor's search.
  const replay =
    row.paymentReplay && row.totalAmount > 0
      ? chargeRequestOf(row, row.paymentReplay, await buyerFor(deps, row))
      : undefined;
  let lookup = await deps.processor
    .lookupPayment(key, processorPaymentId, replay)
    .catch(failedLookup);
  // A payment still waiting for its customer (3-D Secure never finished) long after the claim is
  // given up at the processor, so the session can be paid again without a second charge.
  if (lookup.status === "processing" && deps.processor.cancelPayment && abandoned(deps, row))
    lookup = await deps.processor.cancelPayment(key, replay).catch(failedLookup);
  if (lookup.status === "processing") return "pending";
  if (lookup.status === "succeeded") {
    const done = await fulfil(deps, row, {
      processorPaymentId: row.totalAmount > 0 ? lookup.processorPaymentId : null,
      card: lookup.card,
      paymentMethod: lookup.paymentMethod,
    });
    // Null: a racing confirm, webhook or reconciler settled it first.
    return done ? "fulfilled" : null;
  }
  const message =
    lookup.status === "failed"
      ? DECLINE_MESSAGES.card_declined
      : "The payment was not completed. Please try again.";
  const declined = lookup.status === "failed" ? "card_declined" : null;
  return (await reopen(deps, row, message, declined)) ? "reopened" : null;
}

function abandoned(deps: CheckoutDeps, row: repo.CheckoutRow): boolean {
  const after = Math.max(ABANDONED_AFTER_SECONDS, deps.config.payments.reconcileAfterSeconds);
  const claimedAt = (row.modifiedAt ?? row.createdAt).getTime();
  return deps.clock.now().getTime() - claimedAt >= after * 1000;
}

/**
 * A processor webhook says something happened to the payment made under `idempotencyKey`: settle the
 * session if that is still its open attempt. The processor is asked again rather than the event
 * believed, so events applied late or out of order change nothing; by the payment's id, which the
 * event names, since a lookup by key alone may not see a payment made moments ago.
 */
export async function settleCheckoutPayment(
  deps: CheckoutDeps,
  checkoutId: string,
  idempotencyKey: string,
  processorPaymentId: string,
  log?: Logger,
): Promise<"settled" | "ignored"> {
  const row = await repo.findCheckoutForProcessor(deps.db, checkoutId);
  if (row?.status !== "confirmed" || paymentKey(row) !== idempotencyKey) return "ignored";
  const outcome = await settle(deps, row, log, processorPaymentId);
  return outcome === "fulfilled" || outcome === "reopened" ? "settled" : "ignored";
}

/** A zero-amount session's card saved by a SetupIntent that finished later (3-D Secure). */
export async function settleCheckoutSetup(
  deps: CheckoutDeps,
  checkoutId: string,
  idempotencyKey: string,
  method: SavedPaymentMethod,
): Promise<"settled" | "ignored"> {
  const row = await repo.findCheckoutForProcessor(deps.db, checkoutId);
  if (row?.status !== "confirmed" || paymentKey(row) !== idempotencyKey) return "ignored";
  if (row.totalAmount > 0) return "ignored";
  const done = await fulfil(deps, row, {
    processorPaymentId: null,
    card: { brand: method.brand, last4: method.last4 },
    paymentMethod: method,
  });
  return done ? "settled" : "ignored";
}

export function reconcileCheckoutsJob(deps: CheckoutDeps, log: Logger): JobDefinition {
  return {
    name: RECONCILE_CHECKOUTS_JOB,
    queue: { retryLimit: 3, heartbeatSeconds: JOB_HEARTBEAT_SECONDS },
    schedule: "* * * * *",
    handle: async () => reconcileCheckouts(deps, log),
  };
}
