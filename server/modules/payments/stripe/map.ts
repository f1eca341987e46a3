// Stripe objects and errors in the PaymentProcessor's terms.
import { Stripe } from "stripe";
import {
  DECLINE_MESSAGES,
  type ChargeResult,
  type DeclineCode,
  type DisputeStatus,
  type PaymentLookup,
  type ProcessorDispute,
  type SavedPaymentMethod,
} from "../processor.ts";

/** On refunds till makes: its own refund's id. */
export const TILL_REFUND_METADATA = "till_refund_id";

/** Stripe's refund failure_reason as Polar's RefundFailureReason. */
export function refundFailureOf(reason: string | null | undefined): string | null {
  if (!reason) return null;
  const known: Record<string, string> = {
    lost_or_stolen_card: "card_lost",
    expired_or_canceled_card: "card_expired",
    charge_for_pending_refund_disputed: "disputed",
    insufficient_funds: "insufficient_funds",
    merchant_request: "merchant_request",
  };
  return known[reason] ?? "unknown";
}

/** The metadata key that finds a PaymentIntent again by the idempotency key it was made under. */
export const KEY_METADATA = "till_idempotency_key";

const idOf = (v: string | { id: string } | null | undefined): string | null =>
  v == null ? null : typeof v === "string" ? v : v.id;

export function cardOf(pm: Stripe.PaymentMethod | string | null): { brand: string; last4: string } {
  if (pm && typeof pm !== "string" && pm.card)
    return { brand: pm.card.brand, last4: pm.card.last4 };
  return { brand: "card", last4: "????" };
}

export function savedMethodOf(
  pm: Stripe.PaymentMethod | string | null,
  customer: string | { id: string } | null,
): SavedPaymentMethod | null {
  if (!pm || typeof pm === "string") return null;
  return {
    processorPaymentMethodId: pm.id,
    processorCustomerId: idOf(customer) ?? idOf(pm.customer),
    type: "card",
    brand: pm.card?.brand ?? "card",
    last4: pm.card?.last4 ?? "????",
    expMonth: pm.card?.exp_month ?? null,
    expYear: pm.card?.exp_year ?? null,
    fingerprint: pm.card?.fingerprint ?? null,
  };
}

/** A confirmed PaymentIntent as a charge result. */
export function intentResult(pi: Stripe.PaymentIntent, save: boolean): ChargeResult {
  const pm = pi.payment_method;
  if (pi.status === "succeeded")
    return {
      status: "succeeded",
      processorPaymentId: pi.id,
      card: cardOf(pm),
      paymentMethod: save ? savedMethodOf(pm, pi.customer) : null,
    };
  if (pi.status === "requires_action" || pi.status === "processing")
    return {
      status: "requires_action",
      processorPaymentId: pi.id,
      clientSecret: pi.client_secret ?? "",
    };
  const error = pi.last_payment_error;
  return declined(error?.decline_code ?? error?.code ?? null, error?.message ?? null);
}

export function lookupOf(pi: Stripe.PaymentIntent | undefined): PaymentLookup {
  if (!pi) return { status: "not_found" };
  if (pi.status === "succeeded")
    return {
      status: "succeeded",
      processorPaymentId: pi.id,
      card: cardOf(pi.payment_method),
      paymentMethod:
        pi.setup_future_usage === "off_session"
          ? savedMethodOf(pi.payment_method, pi.customer)
          : null,
    };
  if (pi.status === "requires_payment_method" || pi.status === "canceled")
    return { status: "failed" };
  return { status: "processing" };
}

/** Stripe's decline codes after which Polar (and the card networks) say not to retry. */
const DO_NOT_RETRY = new Set([
  "card_not_supported",
  "do_not_honor",
  "expired_card",
  "fraudulent",
  "incorrect_cvc",
  "incorrect_number",
  "invalid_account",
  "invalid_cvc",
  "invalid_expiry_year",
  "invalid_pin",
  "live_mode_test_card",
  "lost_card",
  "merchant_blacklist",
  "not_permitted",
  "pickup_card",
  "previously_declined_do_not_retry",
  "restricted_card",
  "revocation_of_all_authorizations",
  "revocation_of_authorization",
  "security_violation",
  "stolen_card",
  "stop_payment_order",
  "blocklist",
]);

export function declined(code: string | null, message: string | null) {
  const mapped: DeclineCode =
    code === "insufficient_funds"
      ? "insufficient_funds"
      : code === "resource_missing" || code === "payment_intent_unexpected_state"
        ? "invalid_token"
        : code === "authentication_required"
          ? "authentication_required"
          : "card_declined";
  return {
    status: "failed" as const,
    code: mapped,
    message: message ?? DECLINE_MESSAGES[mapped],
    doNotRetry: code !== null && DO_NOT_RETRY.has(code),
    ...(code !== null && code !== mapped ? { reason: code } : {}),
  };
}

/**
 * A refusal Stripe answered (a card error, a bad or used token, an amount it takes from no card)
 * as a failed result; anything else (network, Stripe's own errors) is rethrown: the payment's fate
 * is then unknown.
 */
export function refusal(err: unknown) {
  if (err instanceof Stripe.errors.StripeCardError)
    return declined(err.decline_code ?? err.code ?? null, err.message);
  if (err instanceof Stripe.errors.StripeInvalidRequestError && err.param === "confirmation_token")
    return {
      status: "failed" as const,
      code: "invalid_token" as const,
      message: DECLINE_MESSAGES.invalid_token,
    };
  // An amount Stripe takes from no card (beyond its maximum charge): the same answer however often
  // it is asked, so a failed payment that is not retried, not a question left open for ever.
  if (err instanceof Stripe.errors.StripeInvalidRequestError && AMOUNT_REFUSALS.has(err.code ?? ""))
    return { ...declined(null, err.message), doNotRetry: true };
  throw err;
}

const AMOUNT_REFUSALS = new Set(["amount_too_large", "amount_too_small"]);

/** Stripe's dispute statuses in Polar's terms (warnings count as the dispute they warn of). */
const DISPUTE_STATUS: Record<Stripe.Dispute.Status, DisputeStatus> = {
  lost: "lost",
  won: "won",
  needs_response: "needs_response",
  warning_needs_response: "needs_response",
  under_review: "under_review",
  warning_under_review: "under_review",
  warning_closed: "prevented",
  prevented: "prevented",
  // An appeal is the dispute open again, waiting on the merchant or the network.
  appeal_needs_response: "needs_response",
  appeal_under_review: "under_review",
};

export function disputeOf(d: Stripe.Dispute): ProcessorDispute {
  const pi = typeof d.payment_intent === "string" ? d.payment_intent : d.payment_intent?.id;
  const due = d.evidence_details?.due_by;
  return {
    processorDisputeId: d.id,
    processorPaymentId: pi ?? "",
    status: DISPUTE_STATUS[d.status] ?? "needs_response",
    amount: d.amount,
    currency: d.currency,
    reason: d.reason ?? null,
    evidenceDueBy: due ? new Date(due * 1000) : null,
    pastDue: d.evidence_details?.past_due ?? false,
  };
}
