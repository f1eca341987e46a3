// Off-session charges of a subscription: the customer's default saved payment method, through the
// processor, under an idempotency key per (subscription, period, attempt) so a renewal re-run after
// a crash asks the processor the same question and gets the same answer instead of a second charge.
import { ServiceUnavailable } from "../../lib/errors.ts";
import type { ChargeResult, DeclineCode } from "../payments/processor.ts";
import { defaultPaymentMethod } from "../payments/queries.ts";
import type { BillingDeps } from "./deps.ts";
import type { SubscriptionRow } from "./repository.ts";

export type OffSessionOutcome =
  | { status: "succeeded"; processorPaymentId: string | null }
  | { status: "failed"; code: DeclineCode | "no_payment_method"; message: string };

export function chargeKey(subscriptionId: string, periodStart: Date, attempt: number): string {
  return `renewal:${subscriptionId}:${periodStart.toISOString()}:${attempt}`;
}

export async function chargeSubscription(
  deps: BillingDeps,
  s: SubscriptionRow,
  amount: number,
  idempotencyKey: string,
  description: string,
): Promise<OffSessionOutcome> {
  if (amount <= 0) return { status: "succeeded", processorPaymentId: null };
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
    return { status: "succeeded", processorPaymentId: result.processorPaymentId };
  if (result.status === "requires_action")
    // Off-session there is nobody to authenticate: dunning until the customer updates the card.
    return {
      status: "failed",
      code: "card_declined",
      message: "The payment needs the customer to authenticate it.",
    };
  return result;
}
