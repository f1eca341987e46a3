// Stripe objects and errors in the PaymentProcessor's terms.
import { Stripe } from "stripe";
import {
  DECLINE_MESSAGES,
  type ChargeResult,
  type DeclineCode,
  type PaymentLookup,
  type SavedPaymentMethod,
} from "../processor.ts";

/** The metadata key that finds a PaymentIntent again by the idempotency key it was made under. */
/** On refunds till makes: its own refund's id. */
export const TILL_REFUND_METADATA = "till_refund_id";

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

function declined(code: string | null, message: string | null) {
  const mapped: DeclineCode =
    code === "insufficient_funds"
      ? "insufficient_funds"
      : code === "resource_missing" || code === "payment_intent_unexpected_state"
        ? "invalid_token"
        : "card_declined";
  return { status: "failed" as const, code: mapped, message: message ?? DECLINE_MESSAGES[mapped] };
}

/**
 * A refusal Stripe answered (a card error, a bad or used token) as a failed result; anything else
 * (network, Stripe's own errors) is rethrown: the payment's fate is then unknown.
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
  throw err;
}
