// What the Stripe event handlers need: the checkout and dispute services' deps, the Stripe client
// to read objects back, and a logger.
import type { Stripe } from "stripe";
import type { Logger } from "../../lib/logger.ts";
import type { CheckoutDeps } from "../checkouts/service.ts";
import type { DisputeDeps } from "../disputes/apply.ts";

export interface StripeWebhookDeps {
  checkout: CheckoutDeps;
  disputes: DisputeDeps;
  stripe: Stripe;
  log: Logger;
}
