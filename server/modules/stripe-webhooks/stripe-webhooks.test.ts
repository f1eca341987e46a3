// Stripe's webhooks at POST /v1/integrations/stripe/webhook, from the local Stripe API server:
// replayed and reordered events make one order, a late failure reopens the session, a forged
// signature is refused, a detached card is forgotten; and the local server's own idempotency.
import type { Polar } from "@polar-sh/sdk";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  startStripeTill,
  type StripeTill,
  WEBHOOK_SECRET,
} from "../../../test/helpers/stripe-till.ts";
import { defaultPaymentMethod } from "../payments/queries.ts";

let s: StripeTill;
let polar: Polar;
let organizationId: string;
let stripe: StripeTill["stripe"];
let t: StripeTill["t"];
let webhookUrl: string;

beforeAll(async () => {
  s = await startStripeTill();
  ({ polar, organizationId, stripe, t, webhookUrl } = s);
});
afterAll(() => s?.stop());

const token = (pm: string) => s.token(pm);
const checkout = (recurring: boolean, email?: string) => s.checkout(recurring, email);
const confirm = (secret: string, tokenId: string) => s.confirm(secret, tokenId);
const orders = (checkoutId: string) => s.orders(checkoutId);
const intentOf = (checkoutId: string) => s.intentOf(checkoutId);

describe("the local Stripe API", () => {
  it("replays a repeated Idempotency-Key and refuses it with other parameters", async () => {
    const sdk = stripe.sdk();
    const a = await sdk.customers.create({ email: "a@example.com" }, { idempotencyKey: "k-1" });
    const b = await sdk.customers.create({ email: "a@example.com" }, { idempotencyKey: "k-1" });
    expect(b.id).toBe(a.id);
    await expect(
      sdk.customers.create({ email: "b@example.com" }, { idempotencyKey: "k-1" }),
    ).rejects.toMatchObject({ type: "StripeIdempotencyError", statusCode: 400 });
    await expect(sdk.paymentIntents.retrieve("pi_missing")).rejects.toMatchObject({
      type: "StripeInvalidRequestError",
      code: "resource_missing",
      statusCode: 404,
    });
  });
});

describe("Stripe webhooks", () => {
  it("replayed and reordered events make exactly one order", async () => {
    stripe.deliverTo(null);
    try {
      const c = await checkout(false);
      const from = stripe.state.events.length;
      await confirm(c.clientSecret, await token("pm_card_threeDSecure2Required"));
      const [pi] = intentOf(c.id);
      stripe.state.completeAction(pi!.id, undefined, true);
      const events = stripe.state.events.slice(from);
      const succeeded = events.find((e) => e.type === "payment_intent.succeeded")!;
      const action = events.find((e) => e.type === "payment_intent.requires_action")!;
      // The success first, then again (a retry), then the older requires_action.
      expect(await stripe.deliver(succeeded)).toBe(200);
      expect(await stripe.deliver(succeeded)).toBe(200);
      expect(await stripe.deliver(action)).toBe(200);
      for (const e of events) expect(await stripe.deliver(e)).toBe(200);
      expect((await polar.checkouts.get({ id: c.id })).status).toBe("succeeded");
      expect(await orders(c.id)).toHaveLength(1);
      const [row] = await t.server.database.rows<{ n: number }>(
        sql`select count(*)::int as n from stripe_events where id = ${succeeded.id}`,
      );
      expect(row!.n).toBe(1);
    } finally {
      stripe.deliverTo({ url: webhookUrl, secret: WEBHOOK_SECRET });
    }
  });

  it("a failed 3-D Secure, delivered late, reopens the session", async () => {
    stripe.deliverTo(null);
    try {
      const c = await checkout(false);
      const from = stripe.state.events.length;
      await confirm(c.clientSecret, await token("pm_card_threeDSecure2Required"));
      const [pi] = intentOf(c.id);
      stripe.state.completeAction(pi!.id, undefined, false);
      const failed = stripe.state.events
        .slice(from)
        .find((e) => e.type === "payment_intent.payment_failed")!;
      expect(await stripe.deliver(failed)).toBe(200);
      const reopened = await polar.checkouts.get({ id: c.id });
      expect(reopened.status).toBe("open");
      // The same failure again is acknowledged and applies nothing more.
      expect(await stripe.deliver(failed)).toBe(200);
      expect((await polar.checkouts.get({ id: c.id })).status).toBe("open");
      expect(await orders(c.id)).toHaveLength(0);
    } finally {
      stripe.deliverTo({ url: webhookUrl, secret: WEBHOOK_SECRET });
    }
  });

  it("a forged or wrongly signed event is refused with 400 and applies nothing", async () => {
    stripe.deliverTo(null);
    try {
      const c = await checkout(false);
      const from = stripe.state.events.length;
      await confirm(c.clientSecret, await token("pm_card_threeDSecure2Required"));
      const [pi] = intentOf(c.id);
      stripe.state.completeAction(pi!.id, undefined, true);
      const succeeded = stripe.state.events
        .slice(from)
        .find((e) => e.type === "payment_intent.succeeded")!;
      const payload = JSON.stringify(succeeded);
      const forged = stripe
        .sdk()
        .webhooks.generateTestHeaderString({ payload, secret: "whsec_other" });
      expect(await stripe.deliver(succeeded, { signature: forged })).toBe(400);
      expect(await stripe.deliver(succeeded, { signature: "t=1,v1=00" })).toBe(400);
      const unsigned = await fetch(webhookUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: payload,
      });
      expect(unsigned.status).toBe(400);
      expect(await unsigned.json()).toMatchObject({ error: "WebhookVerificationError" });
      expect((await polar.checkouts.get({ id: c.id })).status).toBe("confirmed");
      expect(await orders(c.id)).toHaveLength(0);
      // Signed properly, the same event is applied.
      expect(await stripe.deliver(succeeded)).toBe(200);
      expect(await orders(c.id)).toHaveLength(1);
    } finally {
      stripe.deliverTo({ url: webhookUrl, secret: WEBHOOK_SECRET });
    }
  });

  it("payment_method.detached removes the saved card", async () => {
    const c = await checkout(true, "detach@example.com");
    await confirm(c.clientSecret, await token("pm_card_visa"));
    const done = await polar.checkouts.get({ id: c.id });
    const scope = { organizationId };
    const method = await defaultPaymentMethod(t.server.database.db, scope, done.customerId!);
    await stripe.sdk().paymentMethods.detach(method!.processorPaymentMethodId);
    await stripe.idle();
    expect(await defaultPaymentMethod(t.server.database.db, scope, done.customerId!)).toBeNull();
  });
});
