// Off-session charges of a subscription: the customer's default saved payment method, through the
// processor, under an idempotency key per (subscription, period, attempt) so a renewal re-run after
// a crash asks the processor the same question and gets the same answer instead of a second charge.
import type { Db } from "../../../db/client.ts";
import type { Clock } from "../../lib/clock.ts";
import { ServiceUnavailable } from "../../lib/errors.ts";
import type { ChargeResult, DeclineCode } from "../payments/processor.ts";
import { defaultPaymentMethod } from "../payments/queries.ts";
import { type PaymentAttemptRecord, recordPayment } from "../payments/service.ts";
import type { BillingDeps } from "./deps.ts";
import type { SubscriptionRow } from "./repository.ts";

/** What was asked of the processor, for the payment record; null when nothing was charged. */
interface Attempt {
  key: string;
  amount: number;
  card: { brand: string; last4: string } | null;
}

export type OffSessionOutcome = { attempt: Attempt | null } & (
  | { status: "succeeded"; processorPaymentId: string | null }
  | { status: "failed"; code: DeclineCode | "no_payment_method"; message: string }
);

/**
 * Records the attempt as a payment of `orderId` (GET /v1/payments/, the portal's payment status),
 * in the transaction that applies its outcome; once per idempotency key.
 */
export async function recordAttempt(
  tx: Db,
  clock: Clock,
  deps: Pick<BillingDeps, "processor">,
  s: SubscriptionRow,
  /** Null for a plan change whose charge failed: no order was made for it. */
  orderId: string | null,
  outcome: OffSessionOutcome,
  trigger: PaymentAttemptRecord["trigger"],
): Promise<void> {
  if (!outcome.attempt) return;
  await recordPayment(tx, clock, {
    organizationId: s.organizationId,
    customerId: s.customerId,
    checkoutId: null,
    orderId,
    idempotencyKey: outcome.attempt.key,
    processor: deps.processor.name,
    processorPaymentId: outcome.status === "succeeded" ? outcome.processorPaymentId : null,
    status: outcome.status,
    amount: outcome.attempt.amount,
    currency: s.currency,
    card: outcome.attempt.card,
    trigger,
    decline:
      outcome.status === "failed" ? { reason: outcome.code, message: outcome.message } : null,
  });
}

/** A meter cycle's settlement may start at the same instant as a period: its own key prefix. */
export function chargeKey(
  subscriptionId: string,
  periodStart: Date,
  attempt: number,
  kind: "renewal" | "meter" = "renewal",
): string {
  return `${kind}:${subscriptionId}:${periodStart.toISOString()}:${attempt}`;
}

export async function chargeSubscription(
  deps: BillingDeps,
  s: SubscriptionRow,
  amount: number,
  idempotencyKey: string,
  description: string,
): Promise<OffSessionOutcome> {
  if (amount <= 0) return { status: "succeeded", processorPaymentId: null, attempt: null };
  const method = await defaultPaymentMethod(
    deps.db,
    { organizationId: s.organizationId },
    s.customerId,
  );
  if (!method)
    return {
      status: "failed",
      code: "no_payment_method",
      message: "The customer has no saved payment method.",
      attempt: null,
    };
  const attempt = {
    key: idempotencyKey,
    amount,
    card: { brand: method.brand, last4: method.last4 },
  };
  const result: ChargeResult = await deps.processor
    .chargeOffSession({
      amount,
      currency: s.currency,
      paymentMethod: {
        processorPaymentMethodId: method.processorPaymentMethodId,
        processorCustomerId: method.processorCustomerId,
      },
      idempotencyKey,
      description,
      metadata: { subscription_id: s.id },
    })
    .catch((err: unknown) => {
      // Not an answer about the card: nothing is recorded and the work is tried again (the
      // job's retry, or the next advance), under the same idempotency key.
      throw new ServiceUnavailable(
        `The payment processor could not be reached: ${(err as Error).message}`,
      );
    });
  if (result.status === "succeeded")
    return { status: "succeeded", processorPaymentId: result.processorPaymentId, attempt };
  if (result.status === "requires_action")
    // Off-session there is nobody to authenticate: dunning until the customer updates the card.
    return {
      status: "failed",
      code: "card_declined",
      message: "The payment needs the customer to authenticate it.",
      attempt,
    };
  return { ...result, attempt };
}
