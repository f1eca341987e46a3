// The state of a billing address, on every endpoint that takes one (customers, checkouts, orders,
// the portal): as Polar's Address, a US state or CA province is "NY" or "US-NY", kept and answered
// as "US-NY"; one not on the list is a 422 at the address itself and changes nothing. Other
// countries' states are free text, and blank address text is null.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { US_ADDRESS } from "../../../test/helpers/addresses.ts";
import { api } from "../../../test/helpers/auth.ts";
import {
  billingSeller,
  type BillingSeller,
  monthlyProduct,
} from "../../../test/helpers/billing.ts";
import { countRows } from "../../../test/helpers/catalog.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

let t: TestServer;
let s: BillingSeller;
let productId: string;

beforeAll(async () => {
  t = await startTestServer();
  s = await billingSeller(t);
  productId = (await monthlyProduct(s, "Pro", 1500)).id;
});
afterAll(() => t?.stop());

const US_XX = { country: "US", state: "XX", city: "Nowhere" };
const invalid = (loc: string[], msg = "Value error, Invalid US state") => ({
  error: "RequestValidationError",
  detail: [{ loc, msg, type: "value_error" }],
});

async function customer(email: string) {
  const res = await s.call("/v1/customers/", {
    body: { email, billing_address: { country: "US", state: "CA", line1: "1 Main St" } },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function checkout() {
  const res = await s.call("/v1/checkouts/", { body: { products: [productId] } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

describe("billing address state", () => {
  it("is kept prefixed, for a US state or CA province sent with or without its prefix", async () => {
    for (const [sent, kept] of [
      [{ country: "US", state: "NY" }, "US-NY"],
      [{ country: "US", state: "US-DC" }, "US-DC"],
      [{ country: "US", state: " TX " }, "US-TX"],
      [{ country: "CA", state: "ON" }, "CA-ON"],
      [{ country: "CA", state: "CA-QC" }, "CA-QC"],
      [{ country: "US" }, null],
      [{ country: "US", state: "" }, null],
      [{ country: "FR", state: "Île-de-France" }, "Île-de-France"],
      [{ country: "SE" }, null],
    ] as const) {
      const res = await s.call("/v1/customers/", {
        body: { email: `ok-${crypto.randomUUID()}@example.com`, billing_address: sent },
      });
      expect(res.status, JSON.stringify(sent)).toBe(201);
      expect(res.body.billing_address.state, JSON.stringify(sent)).toBe(kept);
      const again = await s.call(`/v1/customers/${res.body.id}`);
      expect(again.body.billing_address.state).toBe(kept);
    }
  });

  it("takes a lower-case country as Polar does, upper-cased", async () => {
    const res = await s.call("/v1/customers/", {
      body: { email: "lower@example.com", billing_address: { country: "ca", state: "bc" } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    const ok = await s.call("/v1/customers/", {
      body: { email: "lower@example.com", billing_address: { country: "ca", state: "BC" } },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.billing_address).toMatchObject({ country: "CA", state: "CA-BC" });
  });

  it("not on the list is a 422 at the address, for customers created and updated", async () => {
    const before = await countRows(t, "customers", s.organizationId);
    for (const [address, msg] of [
      [US_XX, "Value error, Invalid US state"],
      [{ country: "US", state: "ny" }, "Value error, Invalid US state"],
      [{ country: "US", state: "New York" }, "Value error, Invalid US state"],
      [{ country: "US", state: "CA-ON" }, "Value error, Invalid US state"],
      [{ country: "CA", state: "NY" }, "Value error, Invalid CA subdivision"],
    ] as const) {
      const res = await s.call("/v1/customers/", {
        body: { email: "bad@example.com", billing_address: address },
      });
      expect(res.status, JSON.stringify(address)).toBe(422);
      expect(res.body).toEqual(invalid(["body", "billing_address"], msg));
    }
    expect(await countRows(t, "customers", s.organizationId)).toBe(before);

    const c = await customer("kept@example.com");
    expect(c.billing_address.state).toBe("US-CA");
    const res = await s.call(`/v1/customers/${c.id}`, {
      method: "PATCH",
      body: { billing_address: US_XX },
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(invalid(["body", "billing_address"]));
    expect((await s.call(`/v1/customers/${c.id}`)).body).toEqual(c);
  });

  it("not on the list is a 422 on checkout update and confirm, and the checkout stays as it was", async () => {
    const co = await checkout();
    const seller = await s.call(`/v1/checkouts/${co.id}`, {
      method: "PATCH",
      body: { customer_billing_address: US_XX },
    });
    expect(seller.status).toBe(422);
    expect(seller.body).toEqual(invalid(["body", "customer_billing_address"]));
    const client = `/v1/checkouts/client/${co.client_secret}`;
    const page = await api(t.url, client, {
      method: "PATCH",
      body: { customer_billing_address: US_XX },
    });
    expect(page.body).toEqual(invalid(["body", "customer_billing_address"]));
    const confirm = await api(t.url, `${client}/confirm`, {
      body: {
        customer_email: "buyer@example.com",
        customer_billing_address: US_XX,
        confirmation_token_id: "sandbox_token_success",
      },
    });
    expect(confirm.status).toBe(422);
    expect(confirm.body).toEqual(invalid(["body", "customer_billing_address"]));
    const after = (await s.call(`/v1/checkouts/${co.id}`)).body;
    expect(after).toMatchObject({ status: "open", customer_billing_address: null });
    expect(await countRows(t, "orders", s.organizationId)).toBe(0);

    const good = await api(t.url, client, {
      method: "PATCH",
      body: { customer_billing_address: { country: "CA", state: "BC" } },
    });
    expect(good.status).toBe(200);
    expect(good.body.customer_billing_address).toMatchObject({ country: "CA", state: "CA-BC" });
  });

  it("not on the list is a 422 on an order's and the portal's billing address, nothing changed", async () => {
    const co = await checkout();
    const paid = await api(t.url, `/v1/checkouts/client/${co.client_secret}/confirm`, {
      body: {
        customer_email: "payer@example.com",
        customer_billing_address: { ...US_ADDRESS, state: "NY" },
        confirmation_token_id: "sandbox_token_success",
      },
    });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    const order = (await s.call(`/v1/orders/?checkout_id=${co.id}`)).body.items[0];
    expect(order.billing_address.state).toBe("US-NY");
    const res = await s.call(`/v1/orders/${order.id}`, {
      method: "PATCH",
      body: { billing_address: { ...order.billing_address, state: "XX" } },
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(invalid(["body", "billing_address"]));
    expect((await s.call(`/v1/orders/${order.id}`)).body).toEqual(order);
    // The state is sent as the buyer knows it and compared as stored.
    const same = await s.call(`/v1/orders/${order.id}`, {
      method: "PATCH",
      body: { billing_address: { ...order.billing_address, state: "NY", line1: "2 Main St" } },
    });
    expect(same.status, JSON.stringify(same.body)).toBe(200);
    expect(same.body.billing_address).toMatchObject({ state: "US-NY", line1: "2 Main St" });

    const session = await s.call("/v1/customer-sessions/", {
      body: { customer_id: order.customer_id },
    });
    const me = "/v1/customer-portal/customers/me";
    const mine = (await api(t.url, me, { token: session.body.token })).body;
    const refused = await api(t.url, me, {
      method: "PATCH",
      token: session.body.token,
      body: { billing_address: US_XX },
    });
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual(invalid(["body", "billing_address"]));
    expect((await api(t.url, me, { token: session.body.token })).body).toEqual(mine);
  });
});
