// A customer adds a card in the portal with Stripe: one that needs 3-D Secure answers
// requires_action with the SetupIntent's client secret; once the bank's challenge is passed (as
// Stripe.js does, with the publishable key) the page confirms with the SetupIntent's id and the card
// is stored and made the default. A SetupIntent of another customer, an unknown one, or one whose
// challenge failed stores nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStripeTill, type StripeTill } from "../../../../test/helpers/stripe-till.ts";

let s: StripeTill;
beforeAll(async () => {
  s = await startStripeTill();
});
afterAll(() => s?.stop());

async function customerWithCard(email: string, recurring = true) {
  const c = await s.checkout(recurring, email);
  expect((await s.confirm(c.clientSecret, await s.token("pm_card_visa"))).status).toBe(200);
  await s.stripe.idle();
  const done = await s.polar.checkouts.get({ id: c.id });
  const session = await s.polar.customerSessions.create({ customerId: done.customerId! });
  const me = `${s.t.url}/v1/customer-portal/customers/me/payment-methods`;
  const call = async (path: string, body?: unknown, method?: string) => {
    const res = await fetch(`${me}${path}`, {
      method: method ?? (body === undefined ? "GET" : "POST"),
      headers: { authorization: `Bearer ${session.token}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: res.status === 204 ? null : await res.json() };
  };
  return { call };
}

/** Stripe.js finishing the challenge in the customer's browser (publishable key). */
async function passChallenge(clientSecret: string, pass = true) {
  const id = clientSecret.split("_secret_")[0]!;
  const res = await fetch(`${s.stripe.url}/v1/setup_intents/${id}/confirm`, {
    method: "POST",
    headers: {
      authorization: "Bearer pk_test_till",
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ client_secret: clientSecret, ...(pass ? {} : { fail: "true" }) }),
  });
  expect(res.status).toBe(200);
  return id;
}

const add = async (portal: Awaited<ReturnType<typeof customerWithCard>>, pm: string) =>
  portal.call("", {
    confirmation_token_id: await s.token(pm),
    set_default: true,
    return_url: "https://shop.example.com/account",
  });

describe("portal cards with Stripe", () => {
  it("a card that needs 3-D Secure is stored once the challenge is passed", async () => {
    const portal = await customerWithCard("threeds@example.com");
    const added = await add(portal, "pm_card_threeDSecure2Required");
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ status: "requires_action" });
    const secret = added.body.client_secret as string;
    expect(secret).toMatch(/^seti_.+_secret_/);
    expect((await portal.call("")).body.items).toHaveLength(1);

    // Confirmed before the challenge: still waiting, nothing stored.
    const id = secret.split("_secret_")[0]!;
    const early = await portal.call("/confirm", { setup_intent_id: id, set_default: true });
    expect(early.body).toMatchObject({ status: "requires_action", client_secret: secret });

    await passChallenge(secret);
    const confirmed = await portal.call("/confirm", { setup_intent_id: id, set_default: true });
    expect(confirmed.status).toBe(201);
    expect(confirmed.body).toMatchObject({
      status: "succeeded",
      payment_method: { type: "card", method_metadata: { brand: "visa", last4: "3220" } },
    });
    const cards = (await portal.call("")).body.items as { id: string }[];
    expect(cards).toHaveLength(2);
    // The default comes first.
    expect(cards[0]!.id).toBe(confirmed.body.payment_method.id);
    // Confirming again stores no second copy.
    await portal.call("/confirm", { setup_intent_id: id, set_default: true });
    expect((await portal.call("")).body.items).toHaveLength(2);
  });

  it("another customer's, an unknown or a failed setup stores nothing", async () => {
    const ada = await customerWithCard("ada-3ds@example.com");
    const bob = await customerWithCard("bob-3ds@example.com");
    const adas = await add(ada, "pm_card_threeDSecure2Required");
    const id = await passChallenge(adas.body.client_secret);
    const stolen = await bob.call("/confirm", { setup_intent_id: id, set_default: true });
    expect(stolen.status).toBe(422);
    expect(stolen.body).toMatchObject({
      error: "RequestValidationError",
      detail: [{ loc: ["body", "setup_intent_id"] }],
    });
    const unknown = await bob.call("/confirm", { setup_intent_id: "seti_nope", set_default: true });
    expect(unknown.status).toBe(422);
    const missing = await bob.call("/confirm", { set_default: true });
    expect(missing.status).toBe(422);

    const bobs = await add(bob, "pm_card_threeDSecure2Required");
    const failed = await passChallenge(bobs.body.client_secret, false);
    const res = await bob.call("/confirm", { setup_intent_id: failed, set_default: true });
    expect(res.status).toBe(422);
    expect((await bob.call("")).body.items).toHaveLength(1);
  });

  it("the last card of a subscription stays; a removed card is detached at Stripe", async () => {
    const attached = () =>
      new Set(
        [...s.stripe.state.paymentMethods.values()].filter((pm) => pm.customer).map((pm) => pm.id),
      );
    const portal = await customerWithCard("detach@example.com");
    const [first] = (await portal.call("")).body.items;
    const before = attached();
    const refused = await portal.call(`/${first.id}`, undefined, "DELETE");
    expect(refused).toMatchObject({
      status: 400,
      body: { error: "PaymentMethodInUseByActiveSubscription" },
    });
    expect(attached()).toEqual(before);

    const added = await add(portal, "pm_card_mastercard");
    expect(added.body).toMatchObject({ status: "succeeded" });
    const withBoth = attached();
    expect((await portal.call(`/${first.id}`, undefined, "DELETE")).status).toBe(204);
    const detached = [...withBoth].filter((id) => !attached().has(id));
    expect(detached).toHaveLength(1);
    expect((await portal.call("")).body.items.map((m: { id: string }) => m.id)).toEqual([
      added.body.payment_method.id,
    ]);
  });
});
