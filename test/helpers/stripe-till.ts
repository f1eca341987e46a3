// A till server paying with Stripe against the local Stripe API server, which delivers its signed
// events back to till's webhook endpoint; and the purchase steps the Stripe tests share.
import { Polar } from "@polar-sh/sdk";
import { sql } from "drizzle-orm";
import type { Clock } from "../../server/lib/clock.ts";
import { createSeller } from "./auth.ts";
import { startTestServer } from "./server.ts";
import { type StripeServer, startStripeServer } from "./stripe-server/index.ts";
import { US_ADDRESS_SDK } from "./addresses.ts";

export const WEBHOOK_SECRET = "whsec_tilltest";

export type StripeTill = Awaited<ReturnType<typeof startStripeTill>>;

/** A till server's environment for paying with Stripe through the local server (and its Stripe.js). */
export function stripeEnv(stripe: StripeServer): Record<string, string> {
  return {
    TILL_PAYMENTS: "stripe",
    STRIPE_SECRET_KEY: "sk_test_till",
    STRIPE_PUBLISHABLE_KEY: "pk_test_till",
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_API_BASE: stripe.url,
    STRIPE_JS_URL: stripe.jsUrl,
  };
}

export async function startStripeTill(options: { clock?: Clock; worker?: boolean } = {}) {
  const stripe = await startStripeServer();
  const t = await startTestServer({
    env: stripeEnv(stripe),
    ...(options.clock ? { clock: options.clock } : {}),
    worker: options.worker ?? false,
  });
  const webhookUrl = `${t.url}/v1/integrations/stripe/webhook`;
  stripe.deliverTo({ url: webhookUrl, secret: WEBHOOK_SECRET });
  const seller = await createSeller(t.url, [
    "products:write",
    "checkouts:write",
    "orders:read",
    "orders:write",
    "refunds:write",
    "refunds:read",
    "payments:read",
    "benefits:write",
    "subscriptions:read",
    "subscriptions:write",
    "disputes:write",
    "customer_sessions:write",
    "organizations:write",
  ]);
  const polar = new Polar({ accessToken: seller.token, serverURL: t.url });
  return {
    stripe,
    t,
    polar,
    organizationId: seller.organization.id,
    accessToken: seller.token,
    webhookUrl,
    /** A ConfirmationToken for one of Stripe's test payment methods (pm_card_visa, …). */
    token: async (paymentMethod: string) =>
      (await stripe.sdk().testHelpers.confirmationTokens.create({ payment_method: paymentMethod }))
        .id,
    async checkout(recurring: boolean, email = "buyer@example.com") {
      const product = await polar.products.create({
        name: recurring ? "Monthly" : "Once",
        ...(recurring ? { recurringInterval: "month" as const } : {}),
        prices: [{ amountType: "fixed", priceAmount: 1500, priceCurrency: "usd" }],
      });
      return polar.checkouts.create({
        products: [product.id],
        customerEmail: email,
        customerBillingAddress: US_ADDRESS_SDK,
      });
    },
    async confirm(secret: string, confirmationTokenId: string) {
      const res = await fetch(`${t.url}/v1/checkouts/client/${secret}/confirm`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ confirmation_token_id: confirmationTokenId }),
      });
      return { status: res.status, body: await res.json() };
    },
    /** Runs `run` while one of the server's faults (cutAnswers, failing…) holds `request`. */
    async during<T>(fault: Set<string>, request: string, run: () => Promise<T>): Promise<T> {
      fault.add(request);
      try {
        return await run();
      } finally {
        fault.delete(request);
      }
    },
    /** A one-time purchase paid with a Stripe test card (Visa), its events applied: its order. */
    async paidOrder(paymentMethod = "pm_card_visa") {
      const c = await this.checkout(false);
      await this.confirm(c.clientSecret, await this.token(paymentMethod));
      await stripe.idle();
      const [order] = await this.orders(c.id);
      return order!;
    },
    orders: (checkoutId: string) =>
      t.server.database.rows<{ id: string; processor_payment_id: string }>(
        sql`select id, processor_payment_id from orders where checkout_id = ${checkoutId}`,
      ),
    intentOf: (checkoutId: string) =>
      [...stripe.state.intents.values()].filter(
        (pi) => (pi.metadata as Record<string, string>).checkout_id === checkoutId,
      ),
    async stop() {
      await t.stop();
      await stripe.close();
    },
  };
}
