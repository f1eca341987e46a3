// Production mode takes no sandbox money: a server without Stripe keys refuses to start (unless
// TILL_PAYMENTS=none, which sells only free products), and sandbox tokens or test card numbers are
// refused with a 400 PaymentError before anything is written.
import { Polar } from "@polar-sh/sdk";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSeller } from "../../../test/helpers/auth.ts";
import { runTill } from "../../../test/helpers/process.ts";
import { freePort, startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { US_ADDRESS, US_ADDRESS_SDK } from "../../../test/helpers/addresses.ts";

const SCOPES = ["products:write", "checkouts:write", "customers:read", "orders:read"];

async function seller(t: TestServer) {
  const s = await createSeller(t.url, SCOPES);
  return { polar: new Polar({ accessToken: s.token, serverURL: t.url }), orgId: s.organization.id };
}

async function counts(t: TestServer, orgId: string) {
  const [row] = await t.server.database.rows<Record<string, number>>(sql`select
    (select count(*)::int from orders where organization_id = ${orgId}) as orders,
    (select count(*)::int from customers where organization_id = ${orgId}) as customers,
    (select count(*)::int from webhook_events where organization_id = ${orgId}) as events,
    (select count(*)::int from sandbox_charges) as charges`);
  return row!;
}

async function confirm(t: TestServer, secret: string, body: Record<string, unknown>) {
  const res = await fetch(`${t.url}/v1/checkouts/client/${secret}/confirm`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

const production = { TILL_MODE: "production", AUTH_REQUIRE_EMAIL_VERIFICATION: "false" };

describe("`till serve` in production without a processor", () => {
  it("stops at start naming the missing Stripe variable", { timeout: 30_000 }, async () => {
    const result = await runTill(["serve"], { PORT: "0", AUTH_SECRET: "p".repeat(40) });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("STRIPE_SECRET_KEY: required to take payments with Stripe");
    expect(result.stderr).toContain("TILL_PAYMENTS=none");
  });
});

describe("production with TILL_PAYMENTS=none", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ env: { ...production, TILL_PAYMENTS: "none" }, worker: false });
  });
  afterAll(() => t.stop());

  it("a paid confirm is a 400 PaymentError and changes nothing; a free product can be bought", async () => {
    const { polar, orgId } = await seller(t);
    const paid = await polar.products.create({
      name: "Paid",
      prices: [{ amountType: "fixed", priceAmount: 2000, priceCurrency: "usd" }],
    });
    const checkout = await polar.checkouts.create({
      products: [paid.id],
      customerEmail: "buyer@example.com",
      customerBillingAddress: US_ADDRESS_SDK,
    });
    const before = await counts(t, orgId);
    expect(
      await confirm(t, checkout.clientSecret, { confirmation_token_id: "pm_card_visa" }),
    ).toEqual({
      status: 400,
      body: {
        error: "PaymentError",
        detail: "This store takes no payments yet: only free products can be bought.",
      },
    });
    expect(
      await confirm(t, checkout.clientSecret, { confirmation_token_id: "sandbox_token_success" }),
    ).toMatchObject({ status: 400, body: { error: "PaymentError" } });
    expect(await counts(t, orgId)).toEqual(before);
    const row = await polar.checkouts.get({ id: checkout.id });
    expect(row.status).toBe("open");

    const free = await polar.products.create({ name: "Free", prices: [{ amountType: "free" }] });
    const freeCheckout = await polar.checkouts.create({
      products: [free.id],
      customerEmail: "free@example.com",
    });
    const ok = await confirm(t, freeCheckout.clientSecret, {});
    expect(ok.status).toBe(200);
    expect((await polar.checkouts.get({ id: freeCheckout.id })).status).toBe("succeeded");
  });
});

describe("production with Stripe configured", () => {
  let t: TestServer;
  beforeAll(async () => {
    // Nothing listens there: a refused confirm must not reach the processor at all.
    const closed = await freePort();
    t = await startTestServer({
      env: {
        ...production,
        STRIPE_SECRET_KEY: "sk_test_production",
        STRIPE_PUBLISHABLE_KEY: "pk_test_production",
        STRIPE_WEBHOOK_SECRET: "whsec_production",
        STRIPE_API_BASE: `http://127.0.0.1:${closed}`,
      },
      worker: false,
    });
  });
  afterAll(() => t.stop());

  it("refuses sandbox tokens and test card numbers with a 400 PaymentError, creating nothing", async () => {
    const { polar, orgId } = await seller(t);
    const paid = await polar.products.create({
      name: "Paid",
      recurringInterval: "month",
      prices: [{ amountType: "fixed", priceAmount: 2000, priceCurrency: "usd" }],
    });
    const checkout = await polar.checkouts.create({ products: [paid.id] });
    const before = await counts(t, orgId);
    for (const token of [
      "sandbox_token_success",
      "sandbox_ctok_abc",
      "4242 4242 4242 4242",
      "4242424242424242",
    ]) {
      const res = await confirm(t, checkout.clientSecret, {
        confirmation_token_id: token,
        customer_email: "sneaky@example.com",
        customer_billing_address: US_ADDRESS,
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: "PaymentError",
        detail:
          "Sandbox payment details are not accepted: this store takes real payments. Enter a real card.",
      });
    }
    expect(await counts(t, orgId)).toEqual(before);
    const row = await polar.checkouts.get({ id: checkout.id });
    expect(row).toMatchObject({ status: "open", customerEmail: null });
    // The sandbox's token endpoint does not exist in production.
    const tokens = await fetch(`${t.url}/v1/sandbox/confirmation-tokens`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        card: { number: "4242424242424242", exp_month: 12, exp_year: 2099, cvc: "123" },
      }),
    });
    expect(tokens.status).toBe(404);
  });
});
