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
import { scopeOfResource } from "../../lib/org-scope.ts";

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

/** A one-time checkout confirmed with a 3-D Secure card the buyer passes or fails. */
async function payThrough3ds(pass: boolean) {
  const c = await checkout(false);
  const from = stripe.state.events.length;
  await confirm(c.clientSecret, await token("pm_card_threeDSecure2Required"));
  const [pi] = intentOf(c.id);
  stripe.state.completeAction(pi!.id, undefined, pass);
  const events = () => stripe.state.events.slice(from);
  const find = (type: string) => events().find((e) => e.type === type)!;
  return { c, pi: pi!, events: events(), find };
}

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
      const { c, events, find } = await payThrough3ds(true);
      const succeeded = find("payment_intent.succeeded");
      const action = find("payment_intent.requires_action");
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

  it("a 3-D Secure payment's success is applied before Stripe's search can find the payment", async () => {
    // Stripe's search lags behind writes; the event names its PaymentIntent, which is read directly.
    stripe.state.searchLagMs = 60_000;
    try {
      const c = await checkout(false);
      await confirm(c.clientSecret, await token("pm_card_threeDSecure2Required"));
      const [pi] = intentOf(c.id);
      stripe.state.completeAction(pi!.id, undefined, true);
      await stripe.idle();
      expect((await polar.checkouts.get({ id: c.id })).status).toBe("succeeded");
      expect(await orders(c.id)).toHaveLength(1);
    } finally {
      stripe.state.searchLagMs = 0;
    }
  });

  it("charge.refunded before payment_intent.succeeded: one order, refunded", async () => {
    stripe.deliverTo(null);
    try {
      const { c, pi, find } = await payThrough3ds(true);
      // Refunded in Stripe's dashboard before till heard of the payment.
      await stripe.sdk().refunds.create({ payment_intent: pi.id, amount: 200 });
      const refunded = find("charge.refunded");
      const succeeded = find("payment_intent.succeeded");
      expect(await stripe.deliver(refunded)).toBe(200);
      expect(await stripe.deliver(succeeded)).toBe(200);
      const [order] = await orders(c.id);
      expect(await orders(c.id)).toHaveLength(1);
      const o = await polar.orders.get({ id: order!.id });
      expect(o.status).toBe("partially_refunded");
      expect(o.refundedAmount + o.refundedTaxAmount).toBe(200);
    } finally {
      stripe.deliverTo({ url: webhookUrl, secret: WEBHOOK_SECRET });
    }
  });

  it("charge.dispute.created before payment_intent.succeeded: the dispute is recorded", async () => {
    stripe.deliverTo(null);
    try {
      const { c, pi, find } = await payThrough3ds(true);
      stripe.disputes.open(pi.id, { reason: "fraudulent" });
      expect(await stripe.deliver(find("charge.dispute.created"))).toBe(200);
      expect(await stripe.deliver(find("payment_intent.succeeded"))).toBe(200);
      const [order] = await orders(c.id);
      const disputes = await polar.disputes.list({ orderId: order!.id });
      expect(disputes.result.items).toMatchObject([{ status: "needs_response" }]);
    } finally {
      stripe.deliverTo({ url: webhookUrl, secret: WEBHOOK_SECRET });
    }
  });

  it("a failed 3-D Secure, delivered late, reopens the session", async () => {
    stripe.deliverTo(null);
    try {
      const { c, find } = await payThrough3ds(false);
      const failed = find("payment_intent.payment_failed");
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
      const { c, find } = await payThrough3ds(true);
      const succeeded = find("payment_intent.succeeded");
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
    const scope = scopeOfResource({ organizationId });
    const method = await defaultPaymentMethod(t.server.database.db, scope, done.customerId!);
    await stripe.sdk().paymentMethods.detach(method!.processorPaymentMethodId);
    await stripe.idle();
    expect(await defaultPaymentMethod(t.server.database.db, scope, done.customerId!)).toBeNull();
  });

  it("a refund made in Stripe's dashboard is recorded once; till's own refunds are not counted twice", async () => {
    const c = await checkout(false);
    await confirm(c.clientSecret, await token("pm_card_visa"));
    await stripe.idle();
    const [order] = await orders(c.id);
    const pi = order!.processor_payment_id;
    // Through till: one refund, even though Stripe's charge.refunded comes back for it too.
    await polar.refunds.create({ orderId: order!.id, reason: "customer_request", amount: 300 });
    await stripe.idle();
    // In Stripe's dashboard: 200 more, unknown to till until the webhook.
    const from = stripe.state.events.length;
    const outside = await stripe.sdk().refunds.create({ payment_intent: pi, amount: 200 });
    await stripe.idle();
    const rows = await t.server.database.rows<{
      amount: number;
      tax_amount: number;
      status: string;
      processor_refund_id: string;
    }>(
      sql`select amount, tax_amount, status, processor_refund_id from refunds where order_id = ${order!.id} order by created_at`,
    );
    expect(rows).toHaveLength(2);
    expect(rows[1]).toMatchObject({ status: "succeeded", processor_refund_id: outside.id });
    expect(Number(rows[1]!.amount) + Number(rows[1]!.tax_amount)).toBe(200);
    const after = await polar.orders.get({ id: order!.id });
    expect(after.status).toBe("partially_refunded");
    expect(after.refundedAmount + after.refundedTaxAmount).toBe(500);
    // The same event again changes nothing.
    const refunded = stripe.state.events.slice(from).find((e) => e.type === "charge.refunded")!;
    expect(await stripe.deliver({ ...refunded, id: `${refunded.id}_again` })).toBe(200);
    expect(await stripe.deliver(refunded)).toBe(200);
    const count = await t.server.database.rows(
      sql`select 1 from refunds where order_id = ${order!.id}`,
    );
    expect(count).toHaveLength(2);
    const [recorded] = await t.server.database.rows<{ id: string }>(
      sql`select id from refunds where processor_refund_id = ${outside.id}`,
    );
    const types = (
      await t.server.database.rows<{ type: string }>(
        sql`select type from webhook_events where organization_id = ${organizationId} and payload::text like ${`%${recorded!.id}%`}`,
      )
    ).map((r) => r.type);
    expect(types).toContain("refund.created");
  });
});
