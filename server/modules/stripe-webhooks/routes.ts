// POST /v1/integrations/stripe/webhook: Stripe's events, verified against the endpoint's signing
// secret on the exact bytes Stripe sent (so mounted before the JSON parser).
import express from "express";
import { apiRouter, type Router } from "../../lib/api-router.ts";
import type { Stripe } from "stripe";
import { ApiError } from "../../lib/errors.ts";
import { handleStripeEvent, type StripeWebhookDeps } from "./service.ts";

export const STRIPE_WEBHOOK_PATH = "/v1/integrations/stripe/webhook";

export function stripeWebhookRouter(deps: StripeWebhookDeps & { secret: string }): Router {
  const r = apiRouter();
  r.post(STRIPE_WEBHOOK_PATH, express.raw({ type: () => true, limit: "1mb" }), async (req, res) => {
    const signature = req.header("stripe-signature");
    if (!signature)
      throw new ApiError(400, "WebhookVerificationError", "Missing Stripe-Signature.");
    let event: Stripe.Event;
    try {
      event = deps.stripe.webhooks.constructEvent(
        Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
        signature,
        deps.secret,
      );
    } catch (err) {
      throw new ApiError(400, "WebhookVerificationError", (err as Error).message);
    }
    const outcome = await handleStripeEvent(deps, event);
    res.json({ received: true, outcome });
  });
  return r;
}
