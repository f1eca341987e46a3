// Stripe's refunds as they stand at Stripe, applied to till's: one that succeeded settles till's own
// pending refund or records one made outside till (Stripe's dashboard); one that failed or was
// canceled (the card's bank sent the money back) fails till's refund and restores the order.
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
  if (r.status !== "succeeded") return false;
  // One of till's own whose answer never reached it (a cut connection, a crash): settled now.
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
