// The reconciler of change charges: a claim still there PAYMENTS_RECONCILE_AFTER_SECONDS after it was
// made belongs to an `invoice` plan or seat change that never committed (its process died after
// the charge, or the processor did not answer it). The claim is taken over first, so the change can
// no longer commit, and the processor is asked what became of its key: charged → refunded (the
// customer keeps the plan they had, and asks again if they still want the change), declined →
// recorded as the declined payment it was, never charged → dropped, still processing → given up
// at the processor where it can be, else asked again on the next run.
import { inTransaction } from "../../../db/client.ts";
import { JOB_HEARTBEAT_SECONDS, type JobDefinition } from "../../jobs/queue.ts";
import type { Logger } from "../../lib/logger.ts";
import { DECLINE_MESSAGES, type PaymentLookup } from "../payments/processor.ts";
import { type PaymentAttemptRecord, recordPayment } from "../payments/service.ts";
import {
  abandonStaleChangeCharges,
  type ChangeChargeRow,
  dropChangeCharge,
} from "./change-charge-repository.ts";
import type { BillingDeps } from "./deps.ts";

export const RECONCILE_CHANGE_CHARGES_JOB = "subscriptions.reconcile-change-charges";
const BATCH = 100;

type SettleDeps = Pick<BillingDeps, "db" | "clock" | "processor">;

export type ChangeReconcileDeps = SettleDeps & {
  reconcileAfterSeconds: number;
};

export interface ChangeReconcileResult {
  refunded: number;
  declined: number;
  dropped: number;
  pending: number;
}

export async function reconcileChangeCharges(
  deps: ChangeReconcileDeps,
  log?: Logger,
): Promise<ChangeReconcileResult> {
  const result: ChangeReconcileResult = { refunded: 0, declined: 0, dropped: 0, pending: 0 };
  const cutoff = new Date(deps.clock.now().getTime() - deps.reconcileAfterSeconds * 1000);
  for (const claim of await abandonStaleChangeCharges(deps.db, cutoff, BATCH)) {
    // One claim that cannot be settled must not hold up the others: it is tried again next run.
    const outcome = await settleChangeClaim(deps, claim, log).catch((err: unknown) => {
      log?.error({ err, subscriptionId: claim.subscriptionId }, "a change charge was not settled");
      return "pending" as const;
    });
    result[outcome]++;
  }
  if (result.refunded + result.declined + result.dropped > 0)
    log?.info({ ...result }, "reconciled change charges left unsettled");
  return result;
}

/**
 * Settles one claim taken over (by the reconciler, or by a change refused after its charge): the
 * processor is asked what became of its key and a charge is refunded.
 */
export async function settleChangeClaim(
  deps: SettleDeps,
  claim: ChangeChargeRow,
  log?: Logger,
): Promise<keyof ChangeReconcileResult> {
  const key = claim.idempotencyKey;
  const unanswered = (err: unknown): PaymentLookup => {
    log?.warn({ err, subscriptionId: claim.subscriptionId }, "payment lookup failed; retried");
    return { status: "processing" };
  };
  // The charge as the change asked it, asked again under its key: Stripe answers with what it
  // made, read after write, where its search may not see it yet. One that never reached Stripe is
  // made now and then refunded below: a charge and its refund, never a charge kept for nothing.
  const replay = claim.paymentReplay ?? undefined;
  let lookup = await deps.processor.lookupPayment(key, undefined, replay).catch(unanswered);
  if (lookup.status === "processing" && deps.processor.cancelPayment)
    lookup = await deps.processor.cancelPayment(key, replay).catch(unanswered);
  return settleAnswered(deps, claim, lookup, log);
}

async function settleAnswered(
  deps: SettleDeps,
  claim: ChangeChargeRow,
  lookup: PaymentLookup,
  log?: Logger,
): Promise<keyof ChangeReconcileResult> {
  const key = claim.idempotencyKey;
  if (lookup.status === "processing") return "pending";
  if (lookup.status === "not_found") {
    await dropChangeCharge(deps.db, key);
    return "dropped";
  }
  const record = (
    processorPaymentId: string | null,
    card: PaymentAttemptRecord["card"],
    decline: { reason: string; message: string },
  ): PaymentAttemptRecord => ({
    organizationId: claim.organizationId,
    customerId: claim.customerId,
    checkoutId: null,
    orderId: null,
    idempotencyKey: key,
    processor: deps.processor.name,
    processorPaymentId,
    status: "failed",
    amount: claim.amount,
    currency: claim.currency,
    card,
    trigger: "subscription_cycle",
    decline,
  });
  if (lookup.status !== "succeeded") {
    await resolve(
      deps,
      key,
      record(null, null, { reason: "card_declined", message: DECLINE_MESSAGES.card_declined }),
    );
    return "declined";
  }
  // The refund's own key: a run that dies after it asks the same question again.
  const refund = await deps.processor
    .refund({
      processorPaymentId: lookup.processorPaymentId,
      amount: claim.amount,
      currency: claim.currency,
      idempotencyKey: `${key}:refund`,
    })
    .catch((err: unknown) => ({ status: "failed" as const, message: (err as Error).message }));
  // A refund the processor took and holds as pending is on its way back: asking again would not
  // hurry it, and once Stripe forgets the key (a day) would ask for a second one.
  if (refund.status === "failed") {
    log?.warn({ subscriptionId: claim.subscriptionId, detail: refund.message }, "refund failed");
    return "pending";
  }
  // Recorded as failed: it paid for nothing, and its money went back.
  await resolve(
    deps,
    key,
    record(lookup.processorPaymentId, lookup.card, {
      reason: "refunded",
      message: "The change this charge was for was not made; the charge was refunded.",
    }),
  );
  return "refunded";
}

async function resolve(deps: SettleDeps, key: string, payment: PaymentAttemptRecord) {
  await inTransaction(deps.db, async (tx) => {
    await recordPayment(tx, deps.clock, payment);
    await dropChangeCharge(tx, key);
  });
}

export function reconcileChangeChargesJob(deps: ChangeReconcileDeps, log: Logger): JobDefinition {
  return {
    name: RECONCILE_CHANGE_CHARGES_JOB,
    queue: { retryLimit: 3, heartbeatSeconds: JOB_HEARTBEAT_SECONDS },
    schedule: "* * * * *",
    handle: async () => reconcileChangeCharges(deps, log),
  };
}
