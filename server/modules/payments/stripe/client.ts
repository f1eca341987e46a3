// The official Stripe SDK, pointed at api.stripe.com or at STRIPE_API_BASE (tests: a local server
// speaking Stripe's REST API).
import { Stripe } from "stripe";
import type { StripeConfig } from "../../../config.ts";

export function createStripeClient(config: StripeConfig): Stripe {
  const base = config.apiBase ? new URL(config.apiBase) : null;
  return new Stripe(config.secretKey, {
    maxNetworkRetries: 2,
    timeout: 30_000,
    ...(base
      ? {
          host: base.hostname,
          port: base.port || (base.protocol === "https:" ? 443 : 80),
          protocol: base.protocol === "https:" ? "https" : "http",
        }
      : {}),
  });
}
