// The billing address a checkout asks for, as Polar: billing_address_fields follow the session's
// country (the US: state, street, city and postal code; Canada: the state; elsewhere the country
// alone unless a full address is required), and a confirm with a card to enter that lacks any of
// them is one 422 naming each missing field, with nothing written.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { US_ADDRESS } from "../../../test/helpers/addresses.ts";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { countRows } from "../../../test/helpers/catalog.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

let t: TestServer;
let token: string;
let organizationId: string;
let paidId: string;
let freeId: string;

beforeAll(async () => {
  t = await startTestServer();
  const seller = await createSeller(t.url, ["products:write", "checkouts:write", "orders:read"]);
  token = seller.token;
  organizationId = seller.organization.id;
  const product = async (prices: unknown[]) => {
    const res = await api(t.url, "/v1/products/", { token, body: { name: "Book", prices } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as string;
  };
  paidId = await product([{ amount_type: "fixed", price_amount: 2000, price_currency: "usd" }]);
  freeId = await product([{ amount_type: "free" }]);
});
afterAll(() => t?.stop());

async function checkout(body: Record<string, unknown> = {}, productId = paidId) {
  const res = await api(t.url, "/v1/checkouts/", {
    token,
    body: { products: [productId], ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; client_secret: string; billing_address_fields: object };
}

let buyers = 0;
const confirm = (secret: string, body: Record<string, unknown>) =>
  api(t.url, `/v1/checkouts/client/${secret}/confirm`, {
    body: {
      customer_email: `buyer-${++buyers}@example.com`,
      confirmation_token_id: "sandbox_token_success",
      ...body,
    },
  });

const missing = (...field: string[]) => ({
  type: "missing",
  loc: ["body", "customer_billing_address", ...field],
  msg: "Field is required.",
  input: null,
});
/** The refusal of an address with the country alone where a full one is required. */
const notFull = (country: string) => ({
  type: "value_error",
  loc: ["body", "customer_billing_address"],
  msg: "Full billing address is required.",
  input: { line1: null, line2: null, postal_code: null, city: null, state: null, country },
});
const refused = (...detail: unknown[]) => ({ error: "RequestValidationError", detail });

/** Confirm answers this 422 and writes nothing: the session as created, no customer, order or event. */
async function refusedAsIs(
  c: { id: string; client_secret: string },
  body: Record<string, unknown>,
  detail: unknown[],
) {
  const customers = await countRows(t, "customers", organizationId);
  const res = await confirm(c.client_secret, body);
  expect(res.status).toBe(422);
  expect(res.body).toEqual({ error: "RequestValidationError", detail });
  const after = await api(t.url, `/v1/checkouts/${c.id}`, { token });
  expect(after.body).toMatchObject({
    status: "open",
    customer_email: null,
    customer_billing_address: null,
    customer_id: null,
    modified_at: null,
  });
  expect(await countRows(t, "customers", organizationId)).toBe(customers);
  const [written] = await t.server.database.rows<{ orders: number; updates: number }>(
    sql`select (select count(*)::int from orders where checkout_id = ${c.id}) as orders,
      (select count(*)::int from webhook_events where type = 'checkout.updated'
        and payload->'data'->>'id' = ${c.id}) as updates`,
  );
  expect(written).toEqual({ orders: 0, updates: 0 });
}

describe("billing_address_fields", () => {
  const only = (modes: Record<string, string>) => ({
    country: "required",
    state: "disabled",
    city: "disabled",
    postal_code: "disabled",
    line1: "disabled",
    line2: "disabled",
    ...modes,
  });
  const full = { city: "required", postal_code: "required", line1: "required", line2: "optional" };

  it("follow the session's country: the US, Canada, France and none", async () => {
    const fields = async (address?: object, extra: object = {}) =>
      (await checkout({ customer_billing_address: address, ...extra })).billing_address_fields;
    expect(await fields()).toEqual(only({}));
    expect(await fields({ country: "US" })).toEqual(only({ state: "required", ...full }));
    expect(await fields({ country: "CA" })).toEqual(only({ state: "required" }));
    expect(await fields({ country: "FR" })).toEqual(only({}));
    // A full address asked for by the seller, or for a business purchase.
    for (const extra of [{ require_billing_address: true }, { is_business_customer: true }]) {
      expect(await fields({ country: "FR" }, extra)).toEqual(only({ state: "optional", ...full }));
      expect(await fields({ country: "CA" }, extra)).toEqual(only({ state: "required", ...full }));
    }
    // The page's update of the country moves them.
    const c = await checkout({ customer_billing_address: { country: "FR" } });
    const page = await api(t.url, `/v1/checkouts/client/${c.client_secret}`, {
      method: "PATCH",
      body: { customer_billing_address: { country: "US" } },
    });
    expect(page.body.billing_address_fields).toEqual(only({ state: "required", ...full }));
  });
});

describe("confirm", () => {
  it("a US address without state, street, city and postal code is one 422 naming each; nothing is written", async () => {
    await refusedAsIs(await checkout(), { customer_billing_address: { country: "US" } }, [
      missing("state"),
      missing("city"),
      missing("postal_code"),
      missing("line1"),
    ]);
  });

  it("a Canadian address without its province is a 422 at the state only", async () => {
    await refusedAsIs(await checkout(), { customer_billing_address: { country: "CA" } }, [
      missing("state"),
    ]);
  });

  it("no address at all: the address and its country", async () => {
    await refusedAsIs(await checkout(), {}, [missing(), missing("country")]);
  });

  it("a complete US address pays, given with confirm or already on the session", async () => {
    const given = await checkout();
    const paid = await confirm(given.client_secret, { customer_billing_address: US_ADDRESS });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    const order = await api(t.url, `/v1/orders/?checkout_id=${given.id}`, { token });
    expect(order.body.items[0].billing_address).toMatchObject(US_ADDRESS);

    const held = await checkout({ customer_billing_address: US_ADDRESS });
    const again = await confirm(held.client_secret, {});
    expect(again.status, JSON.stringify(again.body)).toBe(200);
  });

  it("elsewhere the country is enough, unless the seller requires the full address", async () => {
    const fr = await checkout();
    const paid = await confirm(fr.client_secret, { customer_billing_address: { country: "FR" } });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);

    const required = await checkout({ require_billing_address: true });
    const noStreet = await confirm(required.client_secret, {
      customer_billing_address: { country: "FR", city: "Paris", postal_code: "75001" },
    });
    expect(noStreet.status).toBe(422);
    expect(noStreet.body).toEqual(refused(missing("line1")));
    const bare = await confirm(required.client_secret, {
      customer_billing_address: { country: "FR" },
    });
    expect(bare.body).toEqual(
      refused(missing("city"), missing("postal_code"), missing("line1"), notFull("FR")),
    );
    const done = await confirm(required.client_secret, {
      customer_billing_address: {
        country: "FR",
        line1: "1 rue de Rivoli",
        city: "Paris",
        postal_code: "75001",
      },
    });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
  });

  it("a free checkout asks for no address, but for a full one when the seller requires it", async () => {
    const free = await checkout({}, freeId);
    expect((await confirm(free.client_secret, { confirmation_token_id: null })).status).toBe(200);

    const required = await checkout({ require_billing_address: true }, freeId);
    const bare = await confirm(required.client_secret, {
      confirmation_token_id: null,
      customer_billing_address: { country: "FR" },
    });
    expect(bare.status).toBe(422);
    expect(bare.body.detail.map((d: { msg: string }) => d.msg)).toEqual([
      "Full billing address is required.",
    ]);
  });
});

describe("a business purchase", () => {
  const FR_FULL = { country: "FR", line1: "1 rue de Rivoli", city: "Paris", postal_code: "75001" };

  it("needs the business's name and its full address; nothing is written until given", async () => {
    const c = await checkout({ is_business_customer: true });
    await refusedAsIs(c, { customer_billing_address: { country: "FR" } }, [
      {
        type: "missing",
        loc: ["body", "customer_billing_name"],
        msg: "Field is required.",
        input: null,
      },
      missing("city"),
      missing("postal_code"),
      missing("line1"),
      notFull("FR"),
    ]);
    const paid = await confirm(c.client_secret, {
      customer_billing_name: "Rivoli Books SARL",
      customer_tax_id: "FR40303265045",
      customer_billing_address: FR_FULL,
    });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body).toMatchObject({
      is_business_customer: true,
      customer_billing_name: "Rivoli Books SARL",
      customer_tax_id: "FR40303265045",
    });
    const order = await api(t.url, `/v1/orders/?checkout_id=${c.id}`, { token });
    expect(order.body.items[0]).toMatchObject({
      billing_name: "Rivoli Books SARL",
      billing_address: FR_FULL,
    });
  });

  it("a checkout opened for a customer who bought as a business starts as one, prefilled", async () => {
    const first = await checkout({ is_business_customer: true });
    const paid = await confirm(first.client_secret, {
      customer_billing_name: "Rivoli Books SARL",
      customer_billing_address: FR_FULL,
    });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    const customerId = paid.body.customer_id as string;
    const again = await checkout({ customer_id: customerId });
    expect(again).toMatchObject({
      is_business_customer: true,
      customer_billing_name: "Rivoli Books SARL",
      customer_billing_address: FR_FULL,
    });
    // Said otherwise by the seller, it is not one.
    expect(await checkout({ customer_id: customerId, is_business_customer: false })).toMatchObject({
      is_business_customer: false,
    });
    // A customer who bought for themselves is not taken for a business.
    const own = await checkout();
    const bought = await confirm(own.client_secret, { customer_billing_address: FR_FULL });
    const theirs = await checkout({ customer_id: bought.body.customer_id });
    expect(theirs).toMatchObject({ is_business_customer: false, customer_billing_name: null });
  });

  it("a free business purchase still needs the name and an address", async () => {
    const c = await checkout({ is_business_customer: true }, freeId);
    const bare = await confirm(c.client_secret, { confirmation_token_id: null });
    expect(bare.status).toBe(422);
    expect(bare.body.detail.map((d: { loc: string[] }) => d.loc.join("."))).toEqual([
      "body.customer_billing_name",
      "body.customer_billing_address",
      "body.customer_billing_address",
    ]);
  });

  it("turned off, it drops the business's name and tax ID, whatever the same request sends", async () => {
    const c = await checkout({
      is_business_customer: true,
      customer_billing_name: "Rivoli Books SARL",
      customer_tax_id: "FR40303265045",
      customer_billing_address: { country: "FR" },
    });
    const off = await api(t.url, `/v1/checkouts/client/${c.client_secret}`, {
      method: "PATCH",
      body: { is_business_customer: false, customer_billing_name: "Still Books" },
    });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({
      is_business_customer: false,
      customer_billing_name: null,
      customer_tax_id: null,
    });
    const paid = await confirm(c.client_secret, { customer_billing_address: { country: "FR" } });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
  });

  it("the email and the card missing are named as Polar names them", async () => {
    const c = await checkout();
    const res = await api(t.url, `/v1/checkouts/client/${c.client_secret}/confirm`, {
      body: { customer_billing_address: { country: "FR" } },
    });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      { type: "missing", loc: ["body", "customer_email"], msg: "Field is required.", input: null },
      {
        type: "missing",
        loc: ["body", "confirmation_token_id"],
        msg: "Confirmation token is required.",
        input: null,
      },
    ]);
  });
});
