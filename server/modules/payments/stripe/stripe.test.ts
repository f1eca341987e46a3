// The Stripe processor end to end: a till server configured with Stripe keys talks through the
// official SDK to a local server speaking Stripe's REST API, which sends signed webhook events back.
// Purchases through Polar's official client, saved cards and off-session charges, declines,
// 3-D Secure finished by the page or abandoned, refunds, and the payments listed.
import type { Polar } from "@polar-sh/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStripeTill, type StripeTill } from "../../../../test/helpers/stripe-till.ts";
import { TestClock } from "../../../lib/clock.ts";
import { createSecretBox } from "../../../lib/secret-box.ts";
import { reconcileCheckouts } from "../../checkouts/reconcile.ts";
import { createTaxCalculator } from "../../tax/calculator.ts";
import { createProcessor } from "../factory.ts";
import { DECLINE_MESSAGES } from "../processor.ts";
import { defaultPaymentMethod } from "../queries.ts";
import { scopeOfResource } from "../../../lib/org-scope.ts";

const clock = new TestClock();
let s: StripeTill;
let polar: Polar;
let organizationId: string;
let stripe: StripeTill["stripe"];
let t: StripeTill["t"];

beforeAll(async () => {
  s = await startStripeTill({ clock });
  ({ polar, organizationId, stripe, t } = s);
});
afterAll(() => s?.stop());

const token = (pm: string) => s.token(pm);
const checkout = (recurring: boolean, email?: string) => s.checkout(recurring, email);
const confirm = (secret: string, tokenId: string) => s.confirm(secret, tokenId);
const orders = (checkoutId: string) => s.orders(checkoutId);
const intentOf = (checkoutId: string) => s.intentOf(checkoutId);

describe("Stripe processor", () => {
  it("a one-time purchase through Polar's clientConfirm: a confirmed PaymentIntent and a paid order", async () => {
    const c = await checkout(false);
    // The page learns the publishable key for Stripe.js from the session, as from Polar.
    const page = await polar.checkouts.clientGet({ clientSecret: c.clientSecret });
    expect(page.paymentProcessorMetadata).toMatchObject({ publishable_key: "pk_test_till" });
    const confirmed = await polar.checkouts.clientConfirm({
      clientSecret: c.clientSecret,
      checkoutConfirmStripe: { confirmationTokenId: await token("pm_card_visa") },
    });
    expect(confirmed.status).toBe("confirmed");
    const done = await polar.checkouts.get({ id: c.id });
    expect(done.status).toBe("succeeded");
    const [pi] = intentOf(c.id);
    expect(pi).toMatchObject({
      status: "succeeded",
      amount: 1500,
      currency: "usd",
      setup_future_usage: null,
      metadata: { checkout_id: c.id, till_idempotency_key: `${c.id}:1` },
    });
    expect(await orders(c.id)).toEqual([{ id: expect.any(String), processor_payment_id: pi!.id }]);
    // The payment's own webhook arrives after the order exists and changes nothing.
    await stripe.idle();
    expect(await orders(c.id)).toHaveLength(1);
  });

  it("a recurring purchase saves the card on a Stripe customer; renewals charge it off session", async () => {
    const c = await checkout(true, "subscriber@example.com");
    const res = await confirm(c.clientSecret, await token("pm_card_visa"));
    expect(res.status).toBe(200);
    const done = await polar.checkouts.get({ id: c.id });
    expect(done.status).toBe("succeeded");
    const [pi] = intentOf(c.id);
    expect(pi).toMatchObject({ setup_future_usage: "off_session", customer: /^cus_/ });
    const method = await defaultPaymentMethod(
      t.server.database.db,
      scopeOfResource({ organizationId }),
      done.customerId!,
    );
    expect(method).toMatchObject({
      processor: "stripe",
      processorPaymentMethodId: pi!.payment_method,
      processorCustomerId: pi!.customer,
      brand: "visa",
      last4: "4242",
      isDefault: true,
    });
    expect(stripe.state.paymentMethods.get(String(pi!.payment_method))?.customer).toBe(
      pi!.customer,
    );

    const processor = createProcessor(t.config.payments, t.server.database.db);
    const renewal = {
      amount: 1500,
      currency: "usd",
      paymentMethod: {
        processorPaymentMethodId: method!.processorPaymentMethodId,
        processorCustomerId: method!.processorCustomerId,
      },
      idempotencyKey: `renewal:${c.id}:1`,
      description: "Monthly renewal",
      metadata: { subscription_id: "s1" },
    };
    const first = await processor.chargeOffSession(renewal);
    expect(first).toMatchObject({ status: "succeeded", card: { last4: "4242" } });
    // A retried renewal under the same key is the same payment, not a second charge.
    expect(await processor.chargeOffSession(renewal)).toEqual(first);
    if (first.status !== "succeeded") throw new Error("declined");
    expect(stripe.state.intent(first.processorPaymentId)).toMatchObject({
      customer: method!.processorCustomerId,
      amount_received: 1500,
    });
    expect(await processor.lookupPayment(renewal.idempotencyKey)).toMatchObject({
      status: "succeeded",
      processorPaymentId: first.processorPaymentId,
    });
    expect(await processor.lookupPayment("renewal:never")).toEqual({ status: "not_found" });
  });

  it("a card saved by a setup that declines every charge fails its off-session renewal", async () => {
    const processor = createProcessor(t.config.payments, t.server.database.db);
    const setup = await processor.setup({
      confirmationTokenId: await token("pm_card_chargeCustomerFail"),
      idempotencyKey: "setup:fail-later",
      customer: { id: null, email: "later@example.com", name: null, processorCustomerId: null },
      metadata: {},
    });
    if (setup.status !== "succeeded") throw new Error(`setup ${setup.status}`);
    expect(setup.paymentMethod).toMatchObject({ last4: "0341", processorCustomerId: /^cus_/ });
    const charge = await processor.chargeOffSession({
      amount: 900,
      currency: "usd",
      paymentMethod: setup.paymentMethod,
      idempotencyKey: "renewal:fail-later:1",
      description: "renewal",
      metadata: {},
    });
    expect(charge).toEqual({
      status: "failed",
      code: "card_declined",
      message: "Your card was declined.",
      doNotRetry: false,
      // Stripe's decline_code, recorded as the payment's decline_reason (Polar's outcome.reason).
      reason: "generic_decline",
    });
    expect(await processor.lookupPayment("renewal:fail-later:1")).toEqual({ status: "failed" });
  });

  it("a renewal re-run after its answer was lost is the payment Stripe made, even on a new card", async () => {
    const processor = createProcessor(t.config.payments, t.server.database.db);
    const customer = { id: null, email: "rerun@example.com", name: null };
    const save = async (pm: string, key: string, processorCustomerId: string | null) => {
      const setup = await processor.setup({
        confirmationTokenId: await token(pm),
        idempotencyKey: key,
        customer: { ...customer, processorCustomerId },
        metadata: {},
      });
      if (setup.status !== "succeeded") throw new Error(`setup ${setup.status}`);
      return setup.paymentMethod;
    };
    const first = await save("pm_card_visa", "setup:rerun-1", null);
    const renewal = (card: typeof first) => ({
      amount: 1500,
      currency: "usd",
      paymentMethod: card,
      idempotencyKey: "renewal:rerun:1",
      description: "renewal",
      metadata: {},
    });
    // Stripe charges, the answer is lost: the run dies without recording anything.
    stripe.cutAnswers.add("POST /v1/payment_intents");
    try {
      await expect(processor.chargeOffSession(renewal(first))).rejects.toThrow();
    } finally {
      stripe.cutAnswers.delete("POST /v1/payment_intents");
    }
    const charged = [...stripe.state.intents.values()].filter(
      (pi) => (pi.metadata as Record<string, string>).till_idempotency_key === "renewal:rerun:1",
    );
    expect(charged).toHaveLength(1);
    // Meanwhile the customer made another card the default; the re-run asks with it.
    const second = await save("pm_card_mastercard", "setup:rerun-2", first.processorCustomerId);
    expect(await processor.chargeOffSession(renewal(second))).toMatchObject({
      status: "succeeded",
      processorPaymentId: charged[0]!.id,
      card: { last4: "4242" },
    });
    expect(
      [...stripe.state.intents.values()].filter(
        (pi) => pi.status === "succeeded" && pi.customer === first.processorCustomerId,
      ),
    ).toHaveLength(1);
  });

  it("Stripe's rate limit at confirm reopens the session at once; the next confirm pays", async () => {
    const c = await checkout(false);
    stripe.rateLimited.add("POST /v1/payment_intents");
    try {
      expect(await confirm(c.clientSecret, await token("pm_card_visa"))).toEqual({
        status: 400,
        body: { error: "PaymentError", detail: DECLINE_MESSAGES.processing_error },
      });
    } finally {
      stripe.rateLimited.delete("POST /v1/payment_intents");
    }
    expect((await polar.checkouts.get({ id: c.id })).status).toBe("open");
    expect((await confirm(c.clientSecret, await token("pm_card_visa"))).status).toBe(200);
    expect(await orders(c.id)).toHaveLength(1);
    expect(intentOf(c.id)).toHaveLength(1);
  });

  it("a declined card leaves the checkout open with Stripe's message; another card then pays", async () => {
    const c = await checkout(false);
    expect(await confirm(c.clientSecret, await token("pm_card_chargeDeclined"))).toEqual({
      status: 400,
      body: {
        error: "PaymentError",
        detail:
          "The payment failed: Your card was declined. Please try again with a different payment method.",
      },
    });
    expect(
      await confirm(c.clientSecret, await token("pm_card_visa_chargeDeclinedInsufficientFunds")),
    ).toEqual({
      status: 400,
      body: {
        error: "PaymentError",
        detail:
          "The payment failed: Your card has insufficient funds. Please try again with a different payment method.",
      },
    });
    expect((await polar.checkouts.get({ id: c.id })).status).toBe("open");
    expect(await orders(c.id)).toHaveLength(0);
    // A used confirmation token is refused by Stripe, not charged again.
    const visa = await token("pm_card_visa");
    expect((await confirm(c.clientSecret, visa)).status).toBe(200);
    expect(await orders(c.id)).toHaveLength(1);
    // Every attempt is a payment: two declines and the one that paid.
    const listed = await polar.payments.list({ checkoutId: c.id, sorting: ["created_at"] });
    const shown = listed.result.items.map((p) => [
      p.status,
      p.declineReason,
      "methodMetadata" in p ? p.methodMetadata : null,
    ]);
    expect(shown).toEqual([
      ["failed", "card_declined", { brand: "card", last4: "" }],
      ["failed", "insufficient_funds", { brand: "card", last4: "" }],
      ["succeeded", null, { brand: "visa", last4: "4242" }],
    ]);
  });

  it("3-D Secure: confirm answers the intent's status and client secret; the page finishes it and the webhook makes the order", async () => {
    const c = await checkout(false);
    const res = await confirm(c.clientSecret, await token("pm_card_threeDSecure2Required"));
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("confirmed");
    const [pi] = intentOf(c.id);
    expect(res.body.payment_processor_metadata).toEqual({
      publishable_key: "pk_test_till",
      stripe_js_url: stripe.jsUrl,
      intent_status: "requires_action",
      intent_client_secret: pi!.client_secret,
    });
    expect((await polar.checkouts.get({ id: c.id })).status).toBe("confirmed");
    expect(await orders(c.id)).toHaveLength(0);
    // What Stripe.js does with the client secret once the customer passed the challenge.
    const finish = await fetch(`${stripe.url}/v1/payment_intents/${pi!.id}/confirm`, {
      method: "POST",
      headers: {
        authorization: "Bearer pk_test_till",
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ client_secret: String(pi!.client_secret) }),
    });
    expect(finish.status).toBe(200);
    await stripe.idle();
    expect((await polar.checkouts.get({ id: c.id })).status).toBe("succeeded");
    expect(await orders(c.id)).toEqual([{ id: expect.any(String), processor_payment_id: pi!.id }]);
  });

  it("a 3-D Secure the customer never finishes is given up at Stripe and the session reopened", async () => {
    const c = await checkout(false);
    await confirm(c.clientSecret, await token("pm_card_threeDSecure2Required"));
    const [pi] = intentOf(c.id);
    const deps = {
      db: t.server.database.db,
      clock,
      config: t.config,
      secretBox: createSecretBox(t.config.authSecret),
      tax: createTaxCalculator(t.config.taxRates),
      processor: createProcessor(t.config.payments, t.server.database.db),
      queue: null,
    };
    clock.advance(121_000);
    await reconcileCheckouts(deps);
    // Still within the time a customer may take over the challenge.
    expect((await polar.checkouts.get({ id: c.id })).status).toBe("confirmed");
    expect(stripe.state.intent(pi!.id).status).toBe("requires_action");
    clock.advance(30 * 60_000);
    expect((await reconcileCheckouts(deps)).reopened).toBeGreaterThanOrEqual(1);
    expect((await polar.checkouts.get({ id: c.id })).status).toBe("open");
    expect(stripe.state.intent(pi!.id)).toMatchObject({
      status: "canceled",
      cancellation_reason: "abandoned",
    });
    // The customer comes back and pays with another card: one order, from the new attempt.
    expect((await confirm(c.clientSecret, await token("pm_card_visa"))).status).toBe(200);
    await stripe.idle();
    const paid = await orders(c.id);
    expect(paid).toHaveLength(1);
    expect(paid[0]!.processor_payment_id).not.toBe(pi!.id);
  });

  it("a refund goes back through Stripe Refunds", async () => {
    const c = await checkout(false);
    await confirm(c.clientSecret, await token("pm_card_visa"));
    const [order] = await orders(c.id);
    const refund = await polar.refunds.create({
      orderId: order!.id,
      reason: "customer_request",
      amount: 500,
    });
    expect(refund.status).toBe("succeeded");
    const refunds = [...stripe.state.refunds.values()].filter(
      (r) => r.payment_intent === order!.processor_payment_id,
    );
    expect(refunds).toMatchObject([{ amount: 500, status: "succeeded" }]);
  });
});
