// Stripe's refunds as they stand at Stripe, applied to till's: one that succeeded settles till's own
// pending refund (one Stripe held as pending, or whose answer was lost) or records one made outside
// till (Stripe's dashboard); one still pending changes nothing; one that failed or was canceled
// (the card's bank sent the money back) fails till's refund and restores the order if it counted.
import type { Stripe } from "stripe";
import { refundFailureOf, TILL_REFUND_METADATA } from "../payments/stripe/map.ts";
import { recordExternalRefund } from "../refunds/external.ts";
import { failRefundAtProcessor } from "../refunds/failed.ts";
import { type SettleDeps, settleRefund } from "../refunds/settle.ts";
import type { StripeWebhookDeps } from "./deps.ts";

export function refundDepsOf(deps: StripeWebhookDeps): SettleDeps {
  return {
    db: deps.checkout.db,
    clock: deps.checkout.clock,
    baseUrl: deps.checkout.config.baseUrl,
    queue: deps.checkout.queue,
  };
}

/** True when till's records changed. */
export async function applyStripeRefund(
  deps: SettleDeps,
  processorPaymentId: string,
  r: Stripe.Refund,
): Promise<boolean> {
  const own = r.metadata?.[TILL_REFUND_METADATA];
  if (r.status === "failed" || r.status === "canceled") {
    const outcome = await failRefundAtProcessor(deps, {
      processorPaymentId,
      processorRefundId: r.id,
      refundId: own ?? null,
      status: r.status,
      failureReason: refundFailureOf(r.failure_reason),
    });
    return outcome === "applied";
  }
  if (own && r.status !== "succeeded") {
    // Still pending at Stripe: only its id is kept; its later refund.updated settles it.
    await settleRefund(deps, own, { status: "pending", processorRefundId: r.id });
    return false;
  }
  // One made in Stripe's dashboard is recorded once it gave the money back.
  if (r.status !== "succeeded") return false;
  // One of till's own, pending until now or whose answer never reached it: settled now.
  if (own)
    return (
      (await settleRefund(deps, own, { status: "succeeded", processorRefundId: r.id }))?.status ===
      "succeeded"
    );
  const outcome = await recordExternalRefund(deps, {
    processorPaymentId,
    processorRefundId: r.id,
    grossAmount: r.amount,
  });
  return outcome === "recorded";
}
