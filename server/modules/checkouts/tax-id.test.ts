// A tax ID typed at checkout, as Polar's: checked against the billing address's country when given
// and whenever that country changes (a 422 at customer_tax_id, or at the address when there is no
// country), kept compacted, and saved on the customer at the purchase with customer.updated. A
// customer found only by the email typed keeps the tax ID it had.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { countRows, eventsOf } from "../../../test/helpers/catalog.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

let t: TestServer;
let token: string;
let organizationId: string;
let productId: string;

beforeAll(async () => {
  t = await startTestServer();
  const seller = await createSeller(t.url, [
    "products:write",
    "checkouts:write",
    "customers:write",
  ]);
  token = seller.token;
  organizationId = seller.organization.id;
  const res = await api(t.url, "/v1/products/", {
    token,
    body: {
      name: "Book",
      prices: [{ amount_type: "fixed", price_amount: 2000, price_currency: "eur" }],
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  productId = res.body.id;
});
afterAll(() => t?.stop());

const FR = { country: "FR", line1: "1 rue de Rivoli", city: "Paris", postal_code: "75001" };
const DE = { country: "DE", line1: "Unter den Linden 1", city: "Berlin", postal_code: "10117" };
const VAT = "FR40303265045";

const create = (body: Record<string, unknown>) =>
  api(t.url, "/v1/checkouts/", { token, body: { products: [productId], ...body } });
const patch = (secret: string, body: Record<string, unknown>) =>
  api(t.url, `/v1/checkouts/client/${secret}`, { method: "PATCH", body });
const confirm = (secret: string, body: Record<string, unknown>) =>
  api(t.url, `/v1/checkouts/client/${secret}/confirm`, {
    body: {
      customer_email: "billing@rivoli.example",
      customer_billing_name: "Rivoli Books SARL",
      customer_billing_address: FR,
      confirmation_token_id: "sandbox_token_success",
      ...body,
    },
  });
const invalid = (input: string) => ({
  error: "RequestValidationError",
  detail: [
    { type: "value_error", loc: ["body", "customer_tax_id"], msg: "Invalid tax ID.", input },
  ],
});
const noCountry = {
  error: "RequestValidationError",
  detail: [
    {
      type: "missing",
      loc: ["body", "customer_billing_address"],
      msg: "Country is required to validate tax ID.",
      input: null,
    },
  ],
};

/** checkout.updated events recorded for the session so far. */
async function updatesOf(checkoutId: string): Promise<number> {
  const [row] = await t.server.database.rows<{ n: number }>(
    sql`select count(*)::int as n from webhook_events where type = 'checkout.updated'
      and payload->'data'->>'id' = ${checkoutId}`,
  );
  return row!.n;
}

describe("a tax ID at checkout", () => {
  it("is refused at creation without a country or when its country refutes it; nothing is created", async () => {
    const before = await countRows(t, "checkouts", organizationId);
    const bare = await create({ is_business_customer: true, customer_tax_id: VAT });
    expect(bare.status).toBe(422);
    expect(bare.body).toEqual(noCountry);
    const wrong = await create({ customer_tax_id: "12345", customer_billing_address: FR });
    expect(wrong.status).toBe(422);
    expect(wrong.body).toEqual(invalid("12345"));
    expect(await countRows(t, "checkouts", organizationId)).toBe(before);

    // Spaces and dots as people type them are fine: the session keeps the compact number.
    const typed = await create({
      is_business_customer: true,
      customer_tax_id: "fr 40.303 265 045",
      customer_billing_address: FR,
    });
    expect(typed.status, JSON.stringify(typed.body)).toBe(201);
    expect(typed.body.customer_tax_id).toBe(VAT);
  });

  it("an update checks a new number, and the number held when the country changes", async () => {
    const c = await create({ is_business_customer: true, customer_billing_address: FR });
    const { id, client_secret: secret } = c.body;
    const bad = await patch(secret, { customer_tax_id: "DE123" });
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual(invalid("DE123"));
    expect(await updatesOf(id)).toBe(0);

    const good = await patch(secret, { customer_tax_id: VAT });
    expect(good.status, JSON.stringify(good.body)).toBe(200);
    expect(good.body.customer_tax_id).toBe(VAT);
    // A French number does not hold for a German address: the move is refused, nothing changes.
    const moved = await patch(secret, { customer_billing_address: DE });
    expect(moved.status).toBe(422);
    expect(moved.body).toEqual(invalid(VAT));
    const held = await api(t.url, `/v1/checkouts/${id}`, { token });
    expect(held.body).toMatchObject({
      customer_tax_id: VAT,
      customer_billing_address: { country: "FR" },
    });
    expect(await updatesOf(id)).toBe(1);
    // Emptied, it is gone, and the move goes through.
    const cleared = await patch(secret, { customer_tax_id: "", customer_billing_address: DE });
    expect(cleared.status, JSON.stringify(cleared.body)).toBe(200);
    expect(cleared.body.customer_tax_id).toBeNull();
  });

  it("is saved on the customer the purchase makes, and moves a customer the seller named", async () => {
    const c = await create({ is_business_customer: true });
    const paid = await confirm(c.body.client_secret, { customer_tax_id: VAT });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    const customerId = paid.body.customer_id as string;
    const customer = await api(t.url, `/v1/customers/${customerId}`, { token });
    expect(customer.body).toMatchObject({
      tax_id: [VAT, "eu_vat"],
      billing_name: "Rivoli Books SARL",
    });

    // A later purchase the seller opened for that customer, from its German office.
    const again = await create({ customer_id: customerId });
    expect(again.body).toMatchObject({ is_business_customer: true, customer_tax_id: VAT });
    const moved = await confirm(again.body.client_secret, {
      customer_billing_address: DE,
      customer_tax_id: "DE 136 695 976",
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    const after = await api(t.url, `/v1/customers/${customerId}`, { token });
    expect(after.body).toMatchObject({
      tax_id: ["DE136695976", "eu_vat"],
      billing_address: { country: "DE" },
    });
    const updated = (await eventsOf(t, organizationId)).filter(
      (e) => e.type === "customer.updated" && e.payload.data.id === customerId,
    );
    expect(updated.at(-1)?.payload.data).toMatchObject({ tax_id: ["DE136695976", "eu_vat"] });
  });

  it("a purchase that found the customer by the email typed leaves its tax ID alone", async () => {
    const email = "owner@books.example";
    const made = await api(t.url, "/v1/customers/", {
      token,
      body: { email, billing_address: FR, tax_id: VAT },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const c = await create({ is_business_customer: true });
    const paid = await confirm(c.body.client_secret, {
      customer_email: email,
      customer_billing_address: DE,
      customer_tax_id: "DE136695976",
    });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body.customer_id).toBe(made.body.id);
    const after = await api(t.url, `/v1/customers/${made.body.id}`, { token });
    expect(after.body).toMatchObject({
      tax_id: [VAT, "eu_vat"],
      billing_address: { country: "FR" },
    });
  });
});
