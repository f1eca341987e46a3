// A customer adds a card in the portal: saved by the processor without charging, listed, made the
// default when asked (or when it is the first); a new default card retries a past-due subscription
// at once. A refused card stores nothing; a malformed request is a 422. An unpaid renewal order
// shows its decline and is paid again from the portal with a new or a saved card.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "../../../test/helpers/auth.ts";
import {
  advance,
  billingSeller,
  type BillingSeller,
  ordersOf,
  subscribe,
  subscriptionOf,
} from "../../../test/helpers/billing.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

let t: TestServer;
let s: BillingSeller;
beforeAll(async () => {
  t = await startTestServer();
  s = await billingSeller(t);
});
afterAll(() => t?.stop());

async function sandboxToken(number: string): Promise<string> {
  const res = await api(t.url, "/v1/sandbox/confirmation-tokens", {
    body: { card: { number, exp_month: 12, exp_year: 2034, cvc: "123" } },
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function portalOf(customerId: string) {
  const session = await s.call("/v1/customer-sessions/", { body: { customer_id: customerId } });
  const token = session.body.token as string;
  const me = "/v1/customer-portal/customers/me/payment-methods";
  return {
    token,
    call: (path: string, body?: unknown) =>
      api(t.url, `/v1/customer-portal/${path}`, { token, ...(body === undefined ? {} : { body }) }),
    add: (body: unknown) => api(t.url, me, { token, body }),
    list: async () => (await api(t.url, me, { token })).body.items as Record<string, any>[],
  };
}

describe("portal: add a payment method", () => {
  it("a new default card pays a past-due subscription at once", async () => {
    const product = await s.polar.products.create({
      name: "Team",
      recurringInterval: "month",
      prices: [{ amountType: "fixed", priceAmount: 2500, priceCurrency: "usd" }],
    });
    const { subscriptionId, customerId } = await subscribe(
      s,
      product.id,
      "sandbox_token_renewal_declined",
    );
    await advance(s, { seconds: 32 * 86_400 });
    expect((await subscriptionOf(s, subscriptionId)).status).toBe("past_due");
    const portal = await portalOf(customerId);
    const added = await portal.add({
      confirmation_token_id: await sandboxToken("4242424242424242"),
      set_default: true,
      return_url: "https://shop.example.com/account",
    });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({
      status: "succeeded",
      payment_method: { type: "card", method_metadata: { last4: "4242" } },
    });
    const cards = await portal.list();
    expect(cards).toHaveLength(2);
    expect(cards[0]!.id).toBe(added.body.payment_method.id);
    // Retried with the new card, not at the next dunning date.
    expect((await subscriptionOf(s, subscriptionId)).status).toBe("active");
    const cycle = (await ordersOf(s, subscriptionId)).filter(
      (o) => o.billing_reason === "subscription_cycle",
    );
    expect(cycle.map((o) => o.status)).toEqual(["paid"]);
  });

  it("a card not made the default stays second; a refused card or a bad request stores nothing", async () => {
    const customer = await s.call("/v1/customers/", { body: { email: "cards@example.com" } });
    const portal = await portalOf(customer.body.id);
    const first = await portal.add({
      confirmation_token_id: await sandboxToken("5555555555554444"),
      set_default: false,
      return_url: "https://shop.example.com/account",
    });
    expect(first.status).toBe(201);
    const second = await portal.add({
      confirmation_token_id: await sandboxToken("4242424242424242"),
      set_default: false,
      return_url: "https://shop.example.com/account",
    });
    expect(second.status).toBe(201);
    expect((await portal.list()).map((c) => c.method_metadata.last4)).toEqual(["4444", "4242"]);

    const refused = await portal.add({
      confirmation_token_id: await sandboxToken("4000000000000002"),
      set_default: true,
      return_url: "https://shop.example.com/account",
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      error: "PaymentMethodSetupFailed",
      detail:
        "Could not add this payment method: Your card was declined. Please try again with a different card.",
    });
    const bad = await portal.add({ confirmation_token_id: "x", set_default: "yes" });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((d: { loc: string[] }) => d.loc.at(-1)).sort()).toEqual([
      "return_url",
      "set_default",
    ]);
    expect(await portal.list()).toHaveLength(2);
  });

  async function pastDueRenewal(name: string) {
    const product = await s.polar.products.create({
      name,
      recurringInterval: "month",
      prices: [{ amountType: "fixed", priceAmount: 1200, priceCurrency: "usd" }],
    });
    const { subscriptionId, customerId } = await subscribe(
      s,
      product.id,
      "sandbox_token_renewal_declined",
    );
    const portal = await portalOf(customerId);
    return {
      subscriptionId,
      portal,
      async advanceToUnpaid() {
        await advance(s, { seconds: 32 * 86_400 });
        return (await ordersOf(s, subscriptionId)).find((o) => o.status === "pending")!;
      },
    };
  }

  it("an unpaid renewal shows its decline and is paid again with a new card", async () => {
    const { subscriptionId, portal, advanceToUnpaid } = await pastDueRenewal("Studio");
    const unpaid = await advanceToUnpaid();
    const before = await portal.call(`orders/${unpaid.id}/payment-status`);
    expect(before.body).toEqual({ status: "failed", error: expect.stringMatching(/declined/) });
    // Recorded as a payment of the order, as GET /v1/payments/ lists it.
    const payments = await s.call(`/v1/payments/?order_id=${unpaid.id}`);
    expect(payments.body.items).toMatchObject([{ status: "failed", order_id: unpaid.id }]);

    expect((await portal.call(`orders/${unpaid.id}/confirm-payment`, {})).status).toBe(422);
    const paid = await portal.call(`orders/${unpaid.id}/confirm-payment`, {
      confirmation_token_id: await sandboxToken("4242424242424242"),
    });
    expect(paid.body).toEqual({ status: "succeeded", client_secret: null, error: null });
    expect((await portal.call(`orders/${unpaid.id}/payment-status`)).body).toEqual({
      status: "succeeded",
      error: null,
    });
    expect((await subscriptionOf(s, subscriptionId)).status).toBe("active");
    // A paid order cannot be paid again; another customer does not see it.
    const again = await portal.call(`orders/${unpaid.id}/confirm-payment`, {
      payment_method_id: (await portal.list())[0]!.id,
    });
    expect(again.status).toBe(422);
    expect(again.body.error).toBe("OrderNotEligibleForRetry");
    const stranger = await s.call("/v1/customers/", { body: { email: "stranger@example.com" } });
    const theirs = await portalOf(stranger.body.id);
    expect((await theirs.call(`orders/${unpaid.id}/payment-status`)).status).toBe(404);
  });

  it("an unpaid renewal is paid again with a card saved before, which becomes the default", async () => {
    const { subscriptionId, portal, advanceToUnpaid } = await pastDueRenewal("Atelier");
    const spare = await portal.add({
      confirmation_token_id: await sandboxToken("5555555555554444"),
      set_default: false,
      return_url: "https://shop.example.com/account",
    });
    const unpaid = await advanceToUnpaid();
    expect((await subscriptionOf(s, subscriptionId)).status).toBe("past_due");
    const notMine = await portal.call(`orders/${unpaid.id}/confirm-payment`, {
      payment_method_id: "00000000-0000-4000-8000-000000000000",
    });
    expect(notMine.status).toBe(404);
    const paid = await portal.call(`orders/${unpaid.id}/confirm-payment`, {
      payment_method_id: spare.body.payment_method.id,
    });
    expect(paid.body).toEqual({ status: "succeeded", client_secret: null, error: null });
    expect((await portal.list())[0]!.id).toBe(spare.body.payment_method.id);
    expect((await subscriptionOf(s, subscriptionId)).status).toBe("active");
  });
});

describe("portal: remove a payment method", () => {
  it("the last card is kept while a subscription needs it; with another left, that one bills", async () => {
    const product = await s.polar.products.create({
      name: "Keep a card",
      recurringInterval: "month",
      prices: [{ amountType: "fixed", priceAmount: 900, priceCurrency: "usd" }],
    });
    const { subscriptionId, customerId } = await subscribe(s, product.id);
    const portal = await portalOf(customerId);
    const remove = (id: string) =>
      api(t.url, `/v1/customer-portal/customers/me/payment-methods/${id}`, {
        token: portal.token,
        method: "DELETE",
      });
    const [only] = await portal.list();
    const refused = await remove(only!.id);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      error: "PaymentMethodInUseByActiveSubscription",
      detail:
        "This payment method is still needed to bill a subscription. Add another one or cancel the subscription first.",
    });
    expect((await portal.list()).map((c) => c.id)).toEqual([only!.id]);

    // A second card, not the default: removing the first makes it the default, and it bills.
    const added = await portal.add({
      confirmation_token_id: await sandboxToken("5555555555554444"),
      set_default: false,
      return_url: "https://shop.example.com/account",
    });
    expect(added.status).toBe(201);
    expect((await remove(only!.id)).status).toBe(204);
    const [left] = await portal.list();
    expect(left).toMatchObject({ id: added.body.payment_method.id });
    expect((await remove(left!.id)).status).toBe(400);
    await advance(s, { seconds: 32 * 86_400 });
    const cycle = (await ordersOf(s, subscriptionId)).filter(
      (o) => o.billing_reason === "subscription_cycle",
    );
    expect(cycle.map((o) => o.status)).toEqual(["paid"]);

    // Set to cancel, with nothing left to bill: the card may go.
    const cancel = await api(t.url, `/v1/customer-portal/subscriptions/${subscriptionId}`, {
      token: portal.token,
      method: "PATCH",
      body: { cancel_at_period_end: true },
    });
    expect(cancel.status).toBe(200);
    expect((await remove(left!.id)).status).toBe(204);
    expect(await portal.list()).toEqual([]);
  });
});
