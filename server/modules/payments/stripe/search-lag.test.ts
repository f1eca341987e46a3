// Off-session charges settled while Stripe's search lags far behind (it is eventually consistent,
// minutes behind in an incident): a draft order's finalize and a plan change whose charge Stripe
// made but whose answer was lost are settled by their reconcilers from the charge asked again under
// its key (kept with the claim), so the order is paid and the change's charge refunded, never left
// charged for nothing nor charged twice; a renewal re-run on a new card finds the payment Stripe
// made among the customer's PaymentIntents.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { billingDepsOn } from "../../../../test/helpers/billing.ts";
import { startStripeTill, type StripeTill } from "../../../../test/helpers/stripe-till.ts";
import { TestClock } from "../../../lib/clock.ts";
import { reconcileDraftOrders } from "../../draft-orders/reconcile.ts";
import { reconcileChangeCharges } from "../../subscriptions/change-reconcile.ts";
import { createTaxCalculator } from "../../tax/calculator.ts";
import { createProcessor } from "../factory.ts";

const clock = new TestClock();
let s: StripeTill;

beforeAll(async () => {
  s = await startStripeTill({ clock });
  // Far past the reconcile delay: nothing made in this file is found by Stripe's search.
  s.stripe.state.searchLagMs = 3_600_000;
  const res = await call(`/v1/organizations/${s.organizationId}`, "PATCH", {
    feature_settings: { off_session_charges_enabled: true },
  });
  expect(res.status).toBe(200);
});
afterAll(() => s?.stop());

async function call(path: string, method: string, body?: unknown) {
  const res = await fetch(`${s.t.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${s.accessToken}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const processor = () => createProcessor(s.t.config.payments, s.t.server.database.db);
const stale = () => clock.advance((s.t.config.payments.reconcileAfterSeconds + 1) * 1000);

/** A subscriber whose Visa is saved on a Stripe customer: the subscription and the customer. */
async function subscriber(email: string) {
  const c = await s.checkout(true, email);
  expect((await s.confirm(c.clientSecret, await s.token("pm_card_visa"))).status).toBe(200);
  await s.stripe.idle();
  const done = await s.polar.checkouts.get({ id: c.id });
  return { subscriptionId: done.subscriptionId!, customerId: done.customerId! };
}

/** Stripe's PaymentIntents whose idempotency key starts with `prefix`. */
const intentsKeyed = (prefix: string) =>
  [...s.stripe.state.intents.values()].filter((pi) =>
    String((pi.metadata as Record<string, string>).till_idempotency_key ?? "").startsWith(prefix),
  );

/** Runs `run` with Stripe's answers to new PaymentIntents lost and its events held back. */
async function answersLost<T>(run: () => Promise<T>): Promise<T> {
  s.stripe.deliverTo(null);
  try {
    return await s.during(s.stripe.cutAnswers, "POST /v1/payment_intents", run);
  } finally {
    s.stripe.deliverTo({ url: s.webhookUrl, secret: "whsec_tilltest" });
  }
}

describe("with Stripe's search lagging", () => {
  it("a draft order Stripe charged without till hearing back is paid by the reconciler, once", async () => {
    const { customerId } = await subscriber("draft@example.com");
    const product = await s.polar.products.create({
      name: "Top-up",
      prices: [{ amountType: "fixed", priceAmount: 1200, priceCurrency: "usd" }],
    });
    const draft = await call("/v1/orders/", "POST", {
      customer_id: customerId,
      product_id: product.id,
    });
    expect(draft.status).toBe(201);
    const orderId = String(draft.body.id);
    const finalize = await answersLost(() => call(`/v1/orders/${orderId}/finalize`, "POST", {}));
    expect(finalize.status).toBe(503);
    const made = intentsKeyed(`order_finalize:${orderId}:`);
    expect(made.map((pi) => pi.status)).toEqual(["succeeded"]);

    const deps = {
      db: s.t.server.database.db,
      clock,
      baseUrl: s.t.config.baseUrl,
      queue: null,
      processor: processor(),
      tax: createTaxCalculator(s.t.config.taxRates),
      reconcileAfterSeconds: s.t.config.payments.reconcileAfterSeconds,
    };
    stale();
    expect(await reconcileDraftOrders(deps)).toMatchObject({ paid: 1, released: 0 });
    expect(await reconcileDraftOrders(deps)).toMatchObject({ paid: 0, released: 0, pending: 0 });
    const order = await call(`/v1/orders/${orderId}`, "GET");
    expect(order.body).toMatchObject({ status: "paid" });
    const [row] = await s.t.server.database.rows<{ processor_payment_id: string }>(
      sql`select processor_payment_id from orders where id = ${orderId}`,
    );
    expect(row?.processor_payment_id).toBe(made[0]!.id);
    expect(intentsKeyed(`order_finalize:${orderId}:`)).toHaveLength(1);
  });

  it("a plan change Stripe charged without till hearing back is refunded, the plan kept", async () => {
    const { subscriptionId } = await subscriber("change@example.com");
    const pro = await s.polar.products.create({
      name: "Pro",
      recurringInterval: "month",
      prices: [{ amountType: "fixed", priceAmount: 3000, priceCurrency: "usd" }],
    });
    const before = await s.polar.subscriptions.get({ id: subscriptionId });
    const change = await answersLost(() =>
      call(`/v1/subscriptions/${subscriptionId}`, "PATCH", {
        product_id: pro.id,
        proration_behavior: "invoice",
      }),
    );
    expect(change.status).toBe(503);
    const made = intentsKeyed(`update:${subscriptionId}:`);
    expect(made.map((pi) => pi.status)).toEqual(["succeeded"]);

    const deps = {
      ...billingDepsOn(s.t, s.t.server.database.db),
      clock,
      processor: processor(),
      reconcileAfterSeconds: s.t.config.payments.reconcileAfterSeconds,
    };
    stale();
    expect(await reconcileChangeCharges(deps)).toMatchObject({ refunded: 1, dropped: 0 });
    expect(await reconcileChangeCharges(deps)).toMatchObject({ refunded: 0, dropped: 0 });
    const refunds = [...s.stripe.state.refunds.values()].filter(
      (r) => r.payment_intent === made[0]!.id,
    );
    expect(refunds.map((r) => [r.amount, r.status])).toEqual([[made[0]!.amount, "succeeded"]]);
    expect(intentsKeyed(`update:${subscriptionId}:`)).toHaveLength(1);
    const after = await s.polar.subscriptions.get({ id: subscriptionId });
    expect(after.productId).toBe(before.productId);
    const payments = await s.t.server.database.rows<{ status: string; decline_reason: string }>(
      sql`select status, decline_reason from payments where idempotency_key like ${`update:${subscriptionId}:%`}`,
    );
    expect(payments).toEqual([{ status: "failed", decline_reason: "refunded" }]);
  });

  it("a renewal re-run on a new default card is the payment Stripe made under its key", async () => {
    const p = processor();
    const save = async (pm: string, key: string, processorCustomerId: string | null) => {
      const setup = await p.setup({
        confirmationTokenId: await s.token(pm),
        idempotencyKey: key,
        customer: { id: null, email: "lag-rerun@example.com", name: null, processorCustomerId },
        metadata: {},
      });
      if (setup.status !== "succeeded") throw new Error(`setup ${setup.status}`);
      return setup.paymentMethod;
    };
    const first = await save("pm_card_visa", "setup:lag-rerun-1", null);
    const renewal = (card: typeof first) => ({
      amount: 1500,
      currency: "usd",
      paymentMethod: card,
      idempotencyKey: "renewal:lag-rerun:1",
      description: "renewal",
      metadata: {},
    });
    await expect(answersLost(() => p.chargeOffSession(renewal(first)))).rejects.toThrow();
    const charged = intentsKeyed("renewal:lag-rerun:1");
    expect(charged).toHaveLength(1);
    const second = await save("pm_card_mastercard", "setup:lag-rerun-2", first.processorCustomerId);
    expect(await p.chargeOffSession(renewal(second))).toMatchObject({
      status: "succeeded",
      processorPaymentId: charged[0]!.id,
      card: { last4: "4242" },
    });
    expect(intentsKeyed("renewal:lag-rerun:1")).toHaveLength(1);
  });
});
