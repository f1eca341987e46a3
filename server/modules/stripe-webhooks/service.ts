// What each Stripe event means for till. Every handler is idempotent and order-independent: a
// payment's outcome is read back from Stripe (through the processor) rather than taken from the
// event, and applied only to a session still waiting for that attempt; repeated event ids are
// acknowledged without being applied again.
import type { Stripe } from "stripe";
import { settleCheckoutPayment, settleCheckoutSetup } from "../checkouts/reconcile.ts";
import { applyProcessorDispute } from "../disputes/apply.ts";
import { forgetPaymentMethod, stripeEvents } from "../payments/service.ts";
import { KEY_METADATA, savedMethodOf } from "../payments/stripe/map.ts";
import type { StripeWebhookDeps } from "./deps.ts";
import { applyStripeRefund, refundDepsOf } from "./refunds.ts";

export type { StripeWebhookDeps } from "./deps.ts";

export type Handled = "applied" | "ignored" | "duplicate";

export async function handleStripeEvent(
  deps: StripeWebhookDeps,
  event: Stripe.Event,
): Promise<Handled> {
  const { db } = deps.checkout;
  if (await stripeEvents.seen(db, event.id)) return "duplicate";
  const outcome = await apply(deps, event);
  // Recorded after it was applied: a crash in between means Stripe's retry applies it again,
  // which changes nothing the second time.
  await stripeEvents.record(db, event.id, event.type);
  deps.log.debug({ stripeEvent: event.id, type: event.type, outcome }, "stripe event");
  return outcome;
}

async function apply(deps: StripeWebhookDeps, event: Stripe.Event): Promise<Handled> {
  switch (event.type) {
    case "payment_intent.succeeded":
    case "payment_intent.payment_failed":
    case "payment_intent.requires_action":
    case "payment_intent.canceled": {
      return (await settleIntent(deps, event.data.object)) ? "applied" : "ignored";
    }
    case "setup_intent.succeeded": {
      const si = event.data.object;
      const checkoutId = si.metadata?.checkout_id;
      const key = si.metadata?.[KEY_METADATA];
      if (!checkoutId || !key || !si.payment_method) return "ignored";
      const pmId = typeof si.payment_method === "string" ? si.payment_method : si.payment_method.id;
      const pm = await deps.stripe.paymentMethods.retrieve(pmId);
      const method = savedMethodOf(pm, si.customer);
      if (!method) return "ignored";
      const r = await settleCheckoutSetup(deps.checkout, checkoutId, key, method);
      return r === "settled" ? "applied" : "ignored";
    }
    case "payment_method.detached": {
      const n = await forgetPaymentMethod(
        deps.checkout.db,
        deps.checkout.clock,
        event.data.object.id,
      );
      return n > 0 ? "applied" : "ignored";
    }
    case "charge.refunded": {
      // Refunds till made are recorded when made; one made in Stripe's dashboard is recorded here.
      const pi = idOf(event.data.object.payment_intent);
      if (!pi) return "ignored";
      await settleIntent(deps, await deps.stripe.paymentIntents.retrieve(pi));
      let applied = 0;
      const refundDeps = refundDepsOf(deps);
      // Every page: a payment may be refunded in more pieces than one page holds.
      for await (const r of deps.stripe.refunds.list({ payment_intent: pi, limit: 100 }))
        if (await applyStripeRefund(refundDeps, pi, r)) applied++;
      return applied > 0 ? "applied" : "ignored";
    }
    case "refund.created":
    case "refund.updated":
    case "refund.failed":
    case "charge.refund.updated": {
      // The refund as Stripe has it now, not the event's copy: replays and reordering agree.
      const r = await deps.stripe.refunds.retrieve(event.data.object.id);
      const pi = idOf(r.payment_intent);
      if (!pi) return "ignored";
      // Stripe does not order its events: the refund may come before the payment's own success.
      // A checkout still waiting for this payment is settled first, so the refund finds its order.
      await settleIntent(deps, await deps.stripe.paymentIntents.retrieve(pi));
      return (await applyStripeRefund(refundDepsOf(deps), pi, r)) ? "applied" : "ignored";
    }
    case "charge.dispute.created":
    case "charge.dispute.updated":
    case "charge.dispute.closed":
    case "charge.dispute.funds_withdrawn":
    case "charge.dispute.funds_reinstated": {
      // Applied as Stripe reports the dispute now, so replays and reordering change nothing.
      const now = await deps.disputes.processor.lookupDispute?.(event.data.object.id);
      if (!now) return "ignored";
      let r = await applyProcessorDispute(deps.disputes, "stripe", now);
      // Before the payment's own success event: the checkout it pays for is settled, then again.
      if (
        r === "no_payment" &&
        now.processorPaymentId &&
        (await settleIntent(
          deps,
          await deps.stripe.paymentIntents.retrieve(now.processorPaymentId),
        ))
      )
        r = await applyProcessorDispute(deps.disputes, "stripe", now);
      if (r === "no_payment")
        deps.log.warn(
          { stripeEvent: event.id, dispute: now.processorDisputeId },
          "dispute of an unknown payment",
        );
      return r === "applied" ? "applied" : "ignored";
    }
    default:
      return "ignored";
  }
}

const idOf = (v: string | { id: string } | null | undefined) =>
  typeof v === "string" ? v : (v?.id ?? null);

/** Settles the checkout a PaymentIntent pays for, if it still waits for it; true when it changed. */
async function settleIntent(
  deps: StripeWebhookDeps,
  pi: Pick<Stripe.PaymentIntent, "id" | "metadata">,
): Promise<boolean> {
  const checkoutId = pi.metadata?.checkout_id;
  const key = pi.metadata?.[KEY_METADATA];
  // Renewal charges carry no checkout: their outcome is the billing engine's answer.
  if (!checkoutId || !key) return false;
  return (
    (await settleCheckoutPayment(deps.checkout, checkoutId, key, pi.id, deps.log)) === "settled"
  );
}
