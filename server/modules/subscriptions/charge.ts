// Off-session charges of a subscription: the customer's default saved payment method, through the
// processor, under an idempotency key per (subscription, period, attempt) so a renewal re-run after
// a crash asks the processor the same question and gets the same answer instead of a second charge.
import type { Tx } from "../../../db/client.ts";
import type { Clock } from "../../lib/clock.ts";
import { ServiceUnavailable } from "../../lib/errors.ts";
import type { ChargeResult, DeclineCode, OffSessionChargeRequest } from "../payments/processor.ts";
import { defaultPaymentMethod, type PaymentMethodRecord } from "../payments/queries.ts";
import { type PaymentAttemptRecord, recordPayment } from "../payments/service.ts";
import type { BillingDeps } from "./deps.ts";
import type { SubscriptionRow } from "./repository.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import { minimumChargeOf } from "../products/currencies.ts";
import { deferToBalance } from "../wallets/service.ts";

/** What was asked of the processor, for the payment record; null when nothing was charged. */
interface Attempt {
  key: string;
  amount: number;
  card: { brand: string; last4: string } | null;
}

export type OffSessionOutcome = { attempt: Attempt | null } & (
  | {
      status: "succeeded";
      processorPaymentId: string | null;
      /** Below the smallest charge the networks take: not charged, owed on the balance. */
      deferred?: number;
    }
  | {
      status: "failed";
      code: DeclineCode | "no_payment_method";
      message: string;
      /** The issuer said not to retry (ChargeResult's). */
      doNotRetry?: boolean;
      /** The issuer's reason, when more precise than `code` (ChargeResult's). */
      reason?: string;
    }
);

/**
 * Records the attempt as a payment of `orderId` (GET /v1/payments/, the portal's payment status),
 * in the transaction that applies its outcome; once per idempotency key. An amount too small to
 * charge is owed on the customer's balance instead (recordDeferral).
 */
export async function recordAttempt(
  tx: Tx,
  clock: Clock,
  deps: Pick<BillingDeps, "processor">,
  s: SubscriptionRow,
  /** Null for a plan change whose charge failed: no order was made for it. */
  orderId: string | null,
  outcome: OffSessionOutcome,
  trigger: PaymentAttemptRecord["trigger"],
): Promise<void> {
  const record = attemptRecord(deps, s, orderId, outcome, trigger);
  if (record) await recordPayment(tx, clock, record);
  if (orderId) await recordDeferral(tx, clock, s, orderId, outcome);
}

/**
 * An order paid without a charge because its amount was below the currency's minimum: the amount
 * is owed on the customer's balance, collected by their next order, as Polar does.
 */
export async function recordDeferral(
  tx: Tx,
  clock: Clock,
  s: SubscriptionRow,
  orderId: string,
  outcome: OffSessionOutcome,
): Promise<void> {
  if (outcome.status !== "succeeded" || !outcome.deferred) return;
  await deferToBalance(
    tx,
    { organizationId: s.organizationId, customerId: s.customerId, currency: s.currency },
    { amount: outcome.deferred, orderId, subscriptionId: s.id, now: clock.now() },
  );
}

/** The payment record of an off-session attempt; null when nothing was asked of the processor. */
export function attemptRecord(
  deps: Pick<BillingDeps, "processor">,
  s: SubscriptionRow,
  orderId: string | null,
  outcome: OffSessionOutcome,
  trigger: PaymentAttemptRecord["trigger"],
): PaymentAttemptRecord | null {
  if (!outcome.attempt) return null;
  return {
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
      outcome.status === "failed"
        ? { reason: outcome.reason ?? outcome.code, message: outcome.message }
        : null,
  };
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
  const method = await defaultPaymentMethod(deps.db, scopeOfResource(s), s.customerId);
  return chargeMethod(deps, s, method, amount, idempotencyKey, description);
}

/** chargeSubscription with the customer's default payment method already read (null: none). */
export async function chargeMethod(
  deps: Pick<BillingDeps, "processor">,
  s: SubscriptionRow,
  method: PaymentMethodRecord | null,
  amount: number,
  idempotencyKey: string,
  description: string,
): Promise<OffSessionOutcome> {
  const [outcome] = await chargeMany(deps, [{ s, method, amount, idempotencyKey, description }]);
  if (outcome instanceof Error) throw outcome;
  return outcome!;
}

export interface OffSessionCharge {
  s: SubscriptionRow;
  method: PaymentMethodRecord | null;
  amount: number;
  idempotencyKey: string;
  description: string;
}

/**
 * Off-session charges of many subscriptions, in the order given: one call when the processor takes
 * many at once, else one each (a few in flight). A charge the processor could not answer comes back
 * as a ServiceUnavailable for its subscription alone.
 */
export async function chargeMany(
  deps: Pick<BillingDeps, "processor">,
  charges: OffSessionCharge[],
): Promise<(OffSessionOutcome | ServiceUnavailable)[]> {
  // Below the currency's minimum a processor refuses the charge (Stripe's amount_too_small), so it
  // is not asked: the order is paid and the amount owed, as Polar does. The sandbox does the same.
  const chargeable = (c: OffSessionCharge) => c.amount >= minimumChargeOf(c.s.currency);
  const outcomes: (OffSessionOutcome | ServiceUnavailable)[] = charges.map((c) =>
    c.amount <= 0
      ? { status: "succeeded", processorPaymentId: null, attempt: null }
      : !chargeable(c)
        ? { status: "succeeded", processorPaymentId: null, attempt: null, deferred: c.amount }
        : {
            status: "failed",
            code: "no_payment_method",
            message: "The customer has no saved payment method.",
            attempt: null,
          },
  );
  const asked = charges.flatMap((c, i) =>
    chargeable(c) && c.method ? [{ i, c, method: c.method }] : [],
  );
  const requests = asked.map(({ c, method }) => offSessionRequest(c, method));
  // Not an answer about the card: nothing is recorded and the work is tried again (the job's
  // retry, or the next advance), under the same idempotency key.
  const unreachable = (err: unknown) =>
    new ServiceUnavailable(`The payment processor could not be reached: ${(err as Error).message}`);
  let results: (ChargeResult | ServiceUnavailable)[];
  const many = deps.processor.chargeOffSessionMany?.bind(deps.processor);
  if (many)
    results = await many(requests).catch((err: unknown) => requests.map(() => unreachable(err)));
  else {
    results = new Array<ChargeResult | ServiceUnavailable>(requests.length);
    let next = 0;
    const lane = async () => {
      while (next < requests.length) {
        const i = next++;
        results[i] = await deps.processor.chargeOffSession(requests[i]!).catch(unreachable);
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, requests.length) }, lane));
  }
  asked.forEach(({ i, c, method }, k) => {
    const result = results[k]!;
    outcomes[i] =
      result instanceof ServiceUnavailable
        ? result
        : outcomeOf(result, {
            key: c.idempotencyKey,
            amount: c.amount,
            card: { brand: method.brand, last4: method.last4 },
          });
  });
  return outcomes;
}

/** What the processor is asked for a charge: the same each time it is asked under its key. */
export function offSessionRequest(
  c: Omit<OffSessionCharge, "method">,
  method: PaymentMethodRecord,
): OffSessionChargeRequest {
  return {
    amount: c.amount,
    currency: c.s.currency,
    paymentMethod: {
      processorPaymentMethodId: method.processorPaymentMethodId,
      processorCustomerId: method.processorCustomerId,
    },
    idempotencyKey: c.idempotencyKey,
    description: c.description,
    metadata: { subscription_id: c.s.id },
  };
}

/** Charges in flight at once when the processor takes one per call (a network service). */
const CONCURRENCY = 16;

function outcomeOf(result: ChargeResult, attempt: Attempt): OffSessionOutcome {
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
