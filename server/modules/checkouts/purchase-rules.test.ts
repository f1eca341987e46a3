// The organization's allow_multiple_subscriptions (Polar's default: off): a customer paying for a
// subscription cannot start a second one through a checkout, by email (any case) on the page's
// update or by the session's customer at confirm; one-time products, a seller who allows it and a
// customer whose subscription ended are not held back. And prevent_trial_abuse (default: off): a
// second trial for the same email, +alias or not, or the same card under another email, is refused;
// without the trial it sells. A session whose price the seller replaced, or whose product the seller
// archived, since it was opened is refused at confirm (Polar's "Price is archived.").
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "../../../test/helpers/auth.ts";
import {
  billingSeller,
  sandboxCard,
  type BillingSeller,
  setSubscriptionSettings,
  subscribe,
  subscriptionOf,
} from "../../../test/helpers/billing.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { US_ADDRESS } from "../../../test/helpers/addresses.ts";

let t: TestServer;
let s: BillingSeller;

beforeAll(async () => {
  t = await startTestServer();
  s = await billingSeller(t);
});
afterAll(() => t?.stop());

async function product(name: string, recurring: boolean) {
  return s.polar.products.create({
    name,
    ...(recurring ? { recurringInterval: "month" as const } : {}),
    prices: [{ amountType: "fixed", priceAmount: 1000, priceCurrency: "usd" }],
  });
}

async function subscriptionsOf(customerId: string): Promise<number> {
  const [row] = await t.server.database.rows<{ n: number }>(
    sql`select count(*)::int as n from subscriptions where customer_id = ${customerId}`,
  );
  return row!.n;
}

describe("purchase rules", () => {
  it("off: a second subscription is refused by email and by customer, nothing changed", async () => {
    const plan = await product("Basic", true);
    const other = await product("Pro", true);
    const book = await product("Guide", false);
    const { customerId } = await subscribe(s, plan.id, undefined, "one@example.com");

    const checkout = await s.call("/v1/checkouts/", { body: { products: [other.id] } });
    const client = `/v1/checkouts/client/${checkout.body.client_secret}`;
    const refused = await api(t.url, client, {
      method: "PATCH",
      body: { customer_email: "ONE@example.com" },
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      error: "AlreadyActiveSubscriptionError",
      detail: "You already have an active subscription.",
    });
    expect((await api(t.url, client)).body.customer_email).toBeNull();

    // A one-time product is not a subscription: the same customer buys it.
    const once = await s.call("/v1/checkouts/", { body: { products: [book.id] } });
    const bought = await api(t.url, `/v1/checkouts/client/${once.body.client_secret}`, {
      method: "PATCH",
      body: { customer_email: "one@example.com" },
    });
    expect(bought.status).toBe(200);

    // A session made for the customer is refused at confirm, before any charge.
    const forCustomer = await s.call("/v1/checkouts/", {
      body: { products: [other.id], customer_id: customerId },
    });
    const confirm = await api(
      t.url,
      `/v1/checkouts/client/${forCustomer.body.client_secret}/confirm`,
      { body: { confirmation_token_id: "sandbox_token_success" } },
    );
    expect(confirm.status).toBe(403);
    expect(confirm.body.error).toBe("AlreadyActiveSubscriptionError");
    expect((await s.call(`/v1/checkouts/${forCustomer.body.id}`)).body.status).toBe("open");
    expect(await subscriptionsOf(customerId)).toBe(1);
  });

  it("a customer whose subscription ended may subscribe again", async () => {
    const plan = await product("Returning", true);
    const { subscriptionId, customerId } = await subscribe(
      s,
      plan.id,
      undefined,
      "back@example.com",
    );
    const revoked = await s.call(`/v1/subscriptions/${subscriptionId}`, { method: "DELETE" });
    expect(revoked.status).toBe(200);
    expect((await subscriptionOf(s, subscriptionId)).status).toBe("canceled");
    await subscribe(s, plan.id, undefined, "back@example.com");
    expect(await subscriptionsOf(customerId)).toBe(2);
  });

  it("on: the same customer holds two subscriptions", async () => {
    const seller = await billingSeller(t);
    await setSubscriptionSettings(t.url, seller, { allow_multiple_subscriptions: true });
    const plans = await Promise.all(
      ["Plan A", "Plan B"].map((name) =>
        seller.polar.products.create({
          name,
          recurringInterval: "month",
          prices: [{ amountType: "fixed", priceAmount: 500, priceCurrency: "usd" }],
        }),
      ),
    );
    const first = await subscribe(seller, plans[0]!.id, undefined, "two@example.com");
    await subscribe(seller, plans[1]!.id, undefined, "two@example.com");
    expect(await subscriptionsOf(first.customerId)).toBe(2);
  });

  it("prevent_trial_abuse: a second trial for the same email is refused, the purchase without it sells", async () => {
    const seller = await billingSeller(t);
    const trial = await seller.polar.products.create({
      name: "Trial plan",
      recurringInterval: "month",
      trialInterval: "day",
      trialIntervalCount: 14,
      prices: [{ amountType: "fixed", priceAmount: 800, priceCurrency: "usd" }],
    });
    // Off (the default): the same email may have a trial again once its subscription ended.
    const first = await subscribe(seller, trial.id, undefined, "trier@example.com");
    expect((await subscriptionOf(seller, first.subscriptionId)).status).toBe("trialing");
    await seller.call(`/v1/subscriptions/${first.subscriptionId}`, { method: "DELETE" });
    const second = await subscribe(seller, trial.id, undefined, "trier@example.com");
    expect((await subscriptionOf(seller, second.subscriptionId)).status).toBe("trialing");
    await seller.call(`/v1/subscriptions/${second.subscriptionId}`, { method: "DELETE" });

    await setSubscriptionSettings(t.url, seller, { prevent_trial_abuse: true });
    const checkout = await seller.call("/v1/checkouts/", { body: { products: [trial.id] } });
    const confirm = (body: Record<string, unknown>) =>
      api(t.url, `/v1/checkouts/client/${checkout.body.client_secret}/confirm`, {
        body: {
          customer_email: "Trier+again@example.com",
          customer_billing_address: US_ADDRESS,
          confirmation_token_id: "sandbox_token_success",
          ...body,
        },
      });
    const refused = await confirm({});
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe("TrialAlreadyRedeemed");
    expect((await seller.call(`/v1/checkouts/${checkout.body.id}`)).body.status).toBe("open");
    const paid = await confirm({ allow_trial: false });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    const done = (await seller.call(`/v1/checkouts/${checkout.body.id}`)).body;
    expect(done.status).toBe("succeeded");
    const sub = await subscriptionOf(seller, done.subscription_id);
    expect(sub.status).toBe("active");
    expect(sub.trial_end).toBeNull();
  });

  it("prevent_trial_abuse: a card that had a trial is refused one under another email", async () => {
    const seller = await billingSeller(t);
    await setSubscriptionSettings(t.url, seller, { prevent_trial_abuse: true });
    const trial = await seller.polar.products.create({
      name: "Card trial",
      recurringInterval: "month",
      trialInterval: "day",
      trialIntervalCount: 7,
      prices: [{ amountType: "fixed", priceAmount: 800, priceCurrency: "usd" }],
    });
    const card = (number: string) => sandboxCard(t.url, number);
    const first = await subscribe(
      seller,
      trial.id,
      await card("5555555555554444"),
      "ann@example.com",
    );
    expect((await subscriptionOf(seller, first.subscriptionId)).status).toBe("trialing");

    const checkout = await seller.call("/v1/checkouts/", { body: { products: [trial.id] } });
    const confirm = async (number: string) =>
      api(t.url, `/v1/checkouts/client/${checkout.body.client_secret}/confirm`, {
        body: {
          customer_email: "bob@example.com",
          customer_billing_address: US_ADDRESS,
          confirmation_token_id: await card(number),
        },
      });
    const refused = await confirm("5555 5555 5555 4444");
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe("TrialAlreadyRedeemed");
    expect((await seller.call(`/v1/checkouts/${checkout.body.id}`)).body.status).toBe("open");
    // Another card, never used for a trial here, gets one.
    const other = await confirm("4242424242424242");
    expect(other.status, JSON.stringify(other.body)).toBe(200);
    const done = (await seller.call(`/v1/checkouts/${checkout.body.id}`)).body;
    expect((await subscriptionOf(seller, done.subscription_id)).status).toBe("trialing");
  });

  it("a session whose price or product the seller retired since is refused at confirm, unpaid", async () => {
    const confirm = (secret: string) =>
      api(t.url, `/v1/checkouts/client/${secret}/confirm`, {
        body: {
          customer_email: "late@example.com",
          customer_billing_address: US_ADDRESS,
          confirmation_token_id: "sandbox_token_success",
        },
      });
    const repriced = await product("Handbook", false);
    const first = await s.call("/v1/checkouts/", { body: { products: [repriced.id] } });
    const priceId = first.body.product_price_id as string;
    const update = await s.call(`/v1/products/${repriced.id}`, {
      method: "PATCH",
      body: { prices: [{ amount_type: "fixed", price_amount: 1500, price_currency: "usd" }] },
    });
    expect(update.status, JSON.stringify(update.body)).toBe(200);
    const stale = await confirm(first.body.client_secret);
    expect(stale.status).toBe(422);
    expect(stale.body.detail).toEqual([
      {
        type: "value_error",
        loc: ["body", "product_price_id"],
        msg: "Price is archived.",
        input: priceId,
      },
    ]);
    expect((await s.call(`/v1/checkouts/${first.body.id}`)).body.status).toBe("open");
    // A session opened after the change sells at the new price.
    const fresh = await s.call("/v1/checkouts/", { body: { products: [repriced.id] } });
    const paid = await confirm(fresh.body.client_secret);
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body.total_amount).toBe(1500);

    const retired = await product("Almanac", false);
    const open = await s.call("/v1/checkouts/", { body: { products: [retired.id] } });
    expect(
      (await s.call(`/v1/products/${retired.id}`, { method: "PATCH", body: { is_archived: true } }))
        .status,
    ).toBe(200);
    const refused = await confirm(open.body.client_secret);
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toEqual([
      {
        type: "value_error",
        loc: ["body", "product_id"],
        msg: "Product is archived.",
        input: retired.id,
      },
    ]);
    const [orders] = await t.server.database.rows<{ n: number }>(
      sql`select count(*)::int as n from orders where checkout_id in (${first.body.id}, ${open.body.id})`,
    );
    expect(orders!.n).toBe(0);
  });
});
