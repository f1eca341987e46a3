// The customer session a confirm answers with (customer_session_token) opens the customer portal:
// it goes to a buyer the purchase made a customer of, or to the customer the seller named on the
// session, never to whoever typed an existing customer's email (as Polar's checkout). The order
// still goes to that customer, and the receipt mail, which reaches the real owner, links the portal.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "../../../test/helpers/auth.ts";
import { billingSeller, type BillingSeller } from "../../../test/helpers/billing.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { US_ADDRESS } from "../../../test/helpers/addresses.ts";

let t: TestServer;
let s: BillingSeller;
let productId: string;

beforeAll(async () => {
  t = await startTestServer();
  s = await billingSeller(t);
  const product = await s.call("/v1/products/", {
    body: {
      name: "Guide",
      prices: [{ amount_type: "fixed", price_amount: 900, price_currency: "usd" }],
    },
  });
  productId = product.body.id;
});
afterAll(() => t?.stop());

/** Opens a checkout (with `extra` on its create) and confirms it as `email`. */
async function purchase(email: string, extra: Record<string, unknown> = {}) {
  const checkout = await s.call("/v1/checkouts/", { body: { products: [productId], ...extra } });
  expect(checkout.status).toBe(201);
  const confirmed = await api(
    t.url,
    `/v1/checkouts/client/${checkout.body.client_secret}/confirm`,
    {
      body: {
        customer_email: email,
        customer_billing_address: US_ADDRESS,
        confirmation_token_id: "sandbox_token_success",
      },
    },
  );
  expect(confirmed.status).toBe(200);
  expect(confirmed.body.status).toBe("confirmed");
  const done = await s.call(`/v1/checkouts/${checkout.body.id}`);
  return { token: confirmed.body.customer_session_token as string | null, done: done.body };
}

async function portalEmail(token: string) {
  const me = await api(t.url, "/v1/customer-portal/customers/me", { token });
  expect(me.status).toBe(200);
  return me.body.email as string;
}

describe("the confirm's customer session", () => {
  it("opens the portal of a customer the purchase made", async () => {
    const { token, done } = await purchase("first-time@example.com");
    expect(token).toMatch(/^till_cst_/);
    expect(await portalEmail(token!)).toBe("first-time@example.com");
    expect(done.customer_id).not.toBeNull();
  });

  it("is not given for a customer found by the typed email, whose order it still is", async () => {
    const victim = await s.call("/v1/customers/", {
      body: { email: "victim@example.com", name: "Victim" },
    });
    expect(victim.status).toBe(201);
    const { token, done } = await purchase("Victim@Example.com");
    expect(token).toBeNull();
    expect(done.status).toBe("succeeded");
    expect(done.customer_id).toBe(victim.body.id);
    // A returning buyer of their own is found by email too: the receipt links their portal.
    const again = await purchase("first-time@example.com");
    expect(again.token).toBeNull();
  });

  it("opens the portal of the customer the seller named on the session", async () => {
    const named = await s.call("/v1/customers/", {
      body: { email: "named@example.com", external_id: "user-42" },
    });
    const byId = await purchase("named@example.com", { customer_id: named.body.id });
    expect(byId.token).toMatch(/^till_cst_/);
    expect(await portalEmail(byId.token!)).toBe("named@example.com");
    const byExternal = await purchase("named@example.com", { external_customer_id: "user-42" });
    expect(byExternal.token).toMatch(/^till_cst_/);
    expect(byExternal.done.customer_id).toBe(named.body.id);
  });
});
