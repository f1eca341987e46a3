// Saved payment methods: a recurring purchase keeps the card for off-session charges, the sandbox
// records every charge so lookupPayment can answer, and the renewal-declining cards (4000 0000 0000
// 0341, sandbox_token_renewal_declined) pay at checkout but decline every later off-session charge.
import { Polar } from "@polar-sh/sdk";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { setSubscriptionSettings } from "../../../test/helpers/billing.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { defaultPaymentMethod, customerPaymentMethods } from "./queries.ts";
import { createSandboxProcessor } from "./sandbox-processor.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";

let t: TestServer;
let polar: Polar;
let organizationId: string;
let sellerToken: string;

beforeAll(async () => {
  t = await startTestServer({ worker: false });
  const seller = await createSeller(t.url, [
    "products:write",
    "checkouts:write",
    "customers:read",
    "orders:read",
    "discounts:write",
    "customer_sessions:write",
    "organizations:write",
  ]);
  sellerToken = seller.token;
  organizationId = seller.organization.id;
  // Some tests buy two subscriptions as one customer, to see the second card saved.
  await setSubscriptionSettings(
    t.url,
    { token: seller.token, organizationId },
    { allow_multiple_subscriptions: true },
  );
  polar = new Polar({ accessToken: seller.token, serverURL: t.url });
});
afterAll(() => t.stop());

const processor = () => createSandboxProcessor({ db: t.server.database.db });
const charge = (confirmationTokenId: string, idempotencyKey: string, save = true) =>
  processor().charge({
    amount: 1500,
    currency: "usd",
    confirmationTokenId,
    idempotencyKey,
    description: "test",
    savePaymentMethod: save,
    customer: { id: null, email: "a@example.com", name: null, processorCustomerId: null },
    metadata: {},
  });
const offSession = (processorPaymentMethodId: string, idempotencyKey: string) =>
  processor().chargeOffSession({
    amount: 1500,
    currency: "usd",
    paymentMethod: { processorPaymentMethodId, processorCustomerId: null },
    idempotencyKey,
    description: "renewal",
    metadata: {},
  });

async function buy(
  product: { id: string },
  email: string,
  token: string,
): Promise<{ checkoutId: string; customerId: string }> {
  const checkout = await polar.checkouts.create({
    products: [product.id],
    customerEmail: email,
    customerBillingAddress: { country: "DE" },
  });
  await polar.checkouts.clientConfirm({
    clientSecret: checkout.clientSecret,
    checkoutConfirmStripe: { confirmationTokenId: token },
  });
  const done = await polar.checkouts.get({ id: checkout.id });
  expect(done.status).toBe("succeeded");
  return { checkoutId: checkout.id, customerId: done.customerId! };
}

const monthly = (name: string, amount = 1500) =>
  polar.products.create({
    name,
    recurringInterval: "month",
    prices:
      amount > 0
        ? [{ amountType: "fixed", priceAmount: amount, priceCurrency: "usd" }]
        : [{ amountType: "free" }],
  });

describe("sandbox processor: saved methods, off-session charges, lookups", () => {
  it("a charge asked to save the card returns a sandbox payment method, and off-session charges with it succeed", async () => {
    const first = await charge("sandbox_token_success", "save-1");
    expect(first).toMatchObject({
      status: "succeeded",
      card: { brand: "visa", last4: "4242" },
      paymentMethod: {
        processorPaymentMethodId: expect.stringMatching(/^sandbox_pm_/),
        processorCustomerId: null,
        type: "card",
        brand: "visa",
        last4: "4242",
      },
    });
    if (first.status !== "succeeded") throw new Error("unreachable");
    const pm = first.paymentMethod!.processorPaymentMethodId;
    const renewal = await offSession(pm, "renewal-1");
    expect(renewal).toMatchObject({ status: "succeeded", card: { last4: "4242" } });
    // The same key replays the same payment; another key is another payment.
    expect(await offSession(pm, "renewal-1")).toEqual(renewal);
    const next = await offSession(pm, "renewal-2");
    if (renewal.status !== "succeeded" || next.status !== "succeeded") throw new Error("declined");
    expect(next.processorPaymentId).not.toBe(renewal.processorPaymentId);
  });

  it("without savePaymentMethod no method is returned", async () => {
    const res = await charge("sandbox_token_success", "nosave-1", false);
    expect(res).toMatchObject({ status: "succeeded", paymentMethod: null });
  });

  it.each([
    ["sandbox_token_renewal_declined", null, "0341", false],
    ["card", "4000 0000 0000 0341", "0341", false],
    // The issuer's "lost card, do not retry": dunning keeps only one last attempt.
    ["sandbox_token_renewal_lost_card", null, "9987", true],
  ])(
    "%s %s pays at checkout, then every off-session charge declines",
    async (token, number, last4, doNotRetry) => {
      let tokenId = token;
      if (number) {
        const res = await api(t.url, "/v1/sandbox/confirmation-tokens", {
          body: { card: { number, exp_month: 12, exp_year: 2099, cvc: "123" } },
        });
        expect(res.status).toBe(201);
        tokenId = res.body.id;
      }
      const first = await charge(tokenId, `rd-${token}`);
      expect(first).toMatchObject({ status: "succeeded", card: { last4 } });
      if (first.status !== "succeeded") throw new Error("unreachable");
      const pm = first.paymentMethod!.processorPaymentMethodId;
      for (const key of [`rd-${token}-1`, `rd-${token}-2`])
        expect(await offSession(pm, key)).toEqual({
          status: "failed",
          code: "card_declined",
          // The lost card says so, as Stripe's decline_code does beside its code.
          ...(doNotRetry
            ? {
                message: "Your card was declined: the issuer reports it lost.",
                reason: "lost_card",
              }
            : { message: "Your card was declined." }),
          doNotRetry,
        });
    },
  );

  it("an unknown saved method is refused without charging", async () => {
    expect(await offSession("sandbox_pm_nothing", "unknown-1")).toMatchObject({
      status: "failed",
      code: "invalid_token",
    });
    expect(await processor().lookupPayment("unknown-1")).toEqual({ status: "failed" });
  });

  it("lookupPayment answers succeeded, failed or not_found by idempotency key", async () => {
    const ok = await charge("sandbox_token_success", "look-ok");
    await charge("sandbox_token_declined", "look-bad");
    if (ok.status !== "succeeded") throw new Error("unreachable");
    expect(await processor().lookupPayment("look-ok")).toEqual({
      status: "succeeded",
      processorPaymentId: ok.processorPaymentId,
      card: { brand: "visa", last4: "4242" },
      paymentMethod: ok.paymentMethod,
    });
    expect(await processor().lookupPayment("look-bad")).toEqual({ status: "failed" });
    expect(await processor().lookupPayment("look-never")).toEqual({ status: "not_found" });
  });

  it("setup saves a card without charging; a declining card fails the setup", async () => {
    const customer = { id: null, email: "s@example.com", name: null, processorCustomerId: null };
    const ok = await processor().setup({
      confirmationTokenId: "sandbox_token_success",
      idempotencyKey: "setup-ok",
      customer,
      metadata: {},
    });
    expect(ok).toMatchObject({
      status: "succeeded",
      paymentMethod: { processorPaymentMethodId: expect.stringMatching(/^sandbox_pm_/) },
    });
    const bad = await processor().setup({
      confirmationTokenId: "sandbox_token_declined",
      idempotencyKey: "setup-bad",
      customer,
      metadata: {},
    });
    expect(bad).toMatchObject({ status: "failed", code: "card_declined" });
    const [row] = await t.server.database.rows<{ amount: number; kind: string }>(
      sql`select amount::int, kind from sandbox_charges where idempotency_key = 'setup-ok'`,
    );
    expect(row).toEqual({ amount: 0, kind: "setup" });
  });
});

describe("checkout fulfilment saves the payment method", () => {
  it("a recurring purchase saves the card as the customer's default; a later card is saved but not default", async () => {
    const product = await monthly("Saved");
    const { checkoutId, customerId } = await buy(
      product,
      "saver@example.com",
      "sandbox_token_success",
    );
    const scope = scopeOfResource({ organizationId });
    const method = await defaultPaymentMethod(t.server.database.db, scope, customerId);
    expect(method).toMatchObject({
      customerId,
      organizationId,
      processor: "sandbox",
      processorPaymentMethodId: expect.stringMatching(/^sandbox_pm_/),
      brand: "visa",
      last4: "4242",
      isDefault: true,
      deletedAt: null,
    });
    // The saved method is the one the charge under the checkout's key set up.
    const lookup = await processor().lookupPayment(`${checkoutId}:1`);
    expect(lookup).toMatchObject({
      status: "succeeded",
      paymentMethod: { processorPaymentMethodId: method!.processorPaymentMethodId },
    });

    await buy(await monthly("Second"), "saver@example.com", "sandbox_token_renewal_declined");
    const all = await customerPaymentMethods(t.server.database.db, scope, customerId);
    expect(all.map((m) => [m.last4, m.isDefault])).toEqual([
      ["4242", true],
      ["0341", false],
    ]);
    // Another organization's scope sees nothing.
    expect(
      await defaultPaymentMethod(
        t.server.database.db,
        scopeOfResource({ organizationId: "00000000-0000-0000-0000-000000000000" }),
        customerId,
      ),
    ).toBeNull();
  });

  it("a one-time purchase saves no card", async () => {
    const product = await polar.products.create({
      name: "Once",
      prices: [{ amountType: "fixed", priceAmount: 900, priceCurrency: "usd" }],
    });
    const { customerId } = await buy(product, "once@example.com", "sandbox_token_success");
    expect(
      await defaultPaymentMethod(
        t.server.database.db,
        scopeOfResource({ organizationId }),
        customerId,
      ),
    ).toBeNull();
  });

  it("a zero-amount recurring checkout given a card sets it up without charging and saves it", async () => {
    const product = await monthly("Free plan", 0);
    const { checkoutId, customerId } = await buy(
      product,
      "free@example.com",
      "sandbox_token_success",
    );
    const method = await defaultPaymentMethod(
      t.server.database.db,
      scopeOfResource({ organizationId }),
      customerId,
    );
    expect(method).toMatchObject({ last4: "4242", isDefault: true });
    const [row] = await t.server.database.rows<{ kind: string; amount: number }>(
      sql`select kind, amount::int from sandbox_charges where idempotency_key = ${`${checkoutId}:1`}`,
    );
    expect(row).toEqual({ kind: "setup", amount: 0 });
  });

  it("a zero-amount recurring checkout with a declining card stays open with the message", async () => {
    const product = await monthly("Free plan 2", 0);
    const checkout = await polar.checkouts.create({
      products: [product.id],
      customerEmail: "free2@example.com",
    });
    const res = await fetch(`${t.url}/v1/checkouts/client/${checkout.clientSecret}/confirm`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ confirmation_token_id: "sandbox_token_declined" }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: "PaymentError",
      detail:
        "The payment failed: Your card was declined. Please try again with a different payment method.",
    });
    expect((await polar.checkouts.get({ id: checkout.id })).status).toBe("open");
  });
});

describe("customer payment methods API", () => {
  it("the seller lists a customer's cards; the customer lists and deletes them in the portal", async () => {
    const email = "cards@example.com";
    const { customerId } = await buy(await monthly("Cards 1"), email, "sandbox_token_success");
    await buy(await monthly("Cards 2"), email, "sandbox_token_renewal_declined");
    const listed = await api(t.url, `/v1/customers/${customerId}/payment-methods`, {
      token: sellerToken,
    });
    expect(listed.status).toBe(200);
    expect(listed.body.pagination).toEqual({ total_count: 2, max_page: 1 });
    expect(listed.body.items[0]).toEqual({
      id: expect.any(String),
      created_at: expect.any(String),
      modified_at: null,
      processor: "stripe",
      customer_id: customerId,
      type: "card",
      method_metadata: {
        brand: "visa",
        last4: "4242",
        exp_month: 12,
        exp_year: 2099,
        wallet: null,
      },
    });
    const missing = await api(
      t.url,
      "/v1/customers/00000000-0000-4000-8000-000000000000/payment-methods",
      { token: sellerToken },
    );
    expect(missing.status).toBe(404);

    const session = await polar.customerSessions.create({ customerId });
    const mine = await api(t.url, "/v1/customer-portal/customers/me/payment-methods", {
      token: session.token,
    });
    expect(
      mine.body.items.map((m: { method_metadata: { last4: string } }) => m.method_metadata.last4),
    ).toEqual(["4242", "0341"]);
    const removed = await api(
      t.url,
      `/v1/customer-portal/customers/me/payment-methods/${mine.body.items[0].id}`,
      { token: session.token, method: "DELETE" },
    );
    expect(removed.status).toBe(204);
    // The remaining card becomes the default renewals charge.
    const next = await defaultPaymentMethod(
      t.server.database.db,
      scopeOfResource({ organizationId }),
      customerId,
    );
    expect(next).toMatchObject({ last4: "0341", isDefault: true });
    const again = await api(
      t.url,
      `/v1/customer-portal/customers/me/payment-methods/${mine.body.items[0].id}`,
      { token: session.token, method: "DELETE" },
    );
    expect(again.status).toBe(404);
  });
});
