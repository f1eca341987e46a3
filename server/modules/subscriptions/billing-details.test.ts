// Whom and where renewals are billed: a subscription bought as a business is billed to the business
// from then on (the checkout saves its name as the customer's billing name, as Polar's). A later
// checkout the seller opened for the customer (customer_id) moves the customer's billing name and
// address, and the renewals follow; one that found the customer only by the email typed does not
// rewrite what the customer has, though its own order is billed as the buyer said.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  advance,
  billingSeller,
  monthlyProduct,
  ordersOf,
  subscriptionOf,
  type BillingSeller,
} from "../../../test/helpers/billing.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

let t: TestServer;
let s: BillingSeller;

beforeAll(async () => {
  t = await startTestServer();
  s = await billingSeller(t);
});
afterAll(() => t.stop());

const ADDRESS = { country: "FR", line1: "1 rue de Rivoli", city: "Paris", postal_code: "75001" };

/** Buys `productId` as the business `billingName`; answers the checkout's order. */
async function buyAsBusiness(
  productId: string,
  email: string,
  billingName: string,
  extra: { customer_id?: string; address?: typeof ADDRESS } = {},
) {
  const checkout = await s.call("/v1/checkouts/", {
    body: {
      products: [productId],
      is_business_customer: true,
      ...(extra.customer_id ? { customer_id: extra.customer_id } : {}),
    },
  });
  expect(checkout.status, JSON.stringify(checkout.body)).toBe(201);
  const paid = await s.call(`/v1/checkouts/client/${checkout.body.client_secret}/confirm`, {
    body: {
      customer_email: email,
      customer_name: "Ada Buyer",
      customer_billing_name: billingName,
      customer_billing_address: extra.address ?? ADDRESS,
      confirmation_token_id: "sandbox_token_success",
    },
  });
  expect(paid.status, JSON.stringify(paid.body)).toBe(200);
  const orders = await s.call(`/v1/orders/?checkout_id=${checkout.body.id}`);
  return orders.body.items[0] as Record<string, any>;
}

describe("billing details", () => {
  it("renews billed to the business, not the buyer", async () => {
    const plan = await monthlyProduct(s, "Business plan", 2500);
    const first = await buyAsBusiness(plan.id, "ada@rivoli.example", "Rivoli Books SARL");
    expect(first.billing_name).toBe("Rivoli Books SARL");
    const customer = await s.call(`/v1/customers/${first.customer_id}`);
    expect(customer.body).toMatchObject({ name: "Ada Buyer", billing_name: "Rivoli Books SARL" });

    const sub = await subscriptionOf(s, first.subscription_id);
    await advance(s, { to: sub.current_period_end });
    const cycles = (await ordersOf(s, first.subscription_id)).filter(
      (o) => o.billing_reason === "subscription_cycle",
    );
    expect(cycles).toHaveLength(1);
    expect(cycles[0]).toMatchObject({
      status: "paid",
      billing_name: "Rivoli Books SARL",
      billing_address: ADDRESS,
    });
  });

  it("a checkout the seller opened for the customer moves its billing details; renewals follow", async () => {
    const plan = await monthlyProduct(s, "Moving plan", 2000);
    const first = await buyAsBusiness(plan.id, "moving@example.com", "Old Name SARL");
    const book = await oneTimeProduct("Moving book");
    const moved = { country: "FR", line1: "2 place Bellecour", city: "Lyon", postal_code: "69002" };
    await buyAsBusiness(book.id, "moving@example.com", "New Name SAS", {
      customer_id: first.customer_id,
      address: moved,
    });
    const customer = await s.call(`/v1/customers/${first.customer_id}`);
    expect(customer.body).toMatchObject({ billing_name: "New Name SAS", billing_address: moved });

    const sub = await subscriptionOf(s, first.subscription_id);
    await advance(s, { to: sub.current_period_end });
    const cycle = (await ordersOf(s, first.subscription_id)).find(
      (o) => o.billing_reason === "subscription_cycle",
    );
    expect(cycle).toMatchObject({ billing_name: "New Name SAS", billing_address: moved });
  });

  it("a purchase that found the customer by the email typed does not rewrite its billing details", async () => {
    const book = await oneTimeProduct("Email book");
    const first = await buyAsBusiness(book.id, "victim@example.com", "Victim GmbH");
    const elsewhere = { country: "FR", line1: "9 rue du Bac", city: "Paris", postal_code: "75007" };
    const second = await buyAsBusiness(book.id, "victim@example.com", "Someone Else Ltd", {
      address: elsewhere,
    });
    expect(second.customer_id).toBe(first.customer_id);
    // The order is billed as its buyer said; the customer keeps what it had.
    expect(second).toMatchObject({ billing_name: "Someone Else Ltd", billing_address: elsewhere });
    const customer = await s.call(`/v1/customers/${first.customer_id}`);
    expect(customer.body).toMatchObject({ billing_name: "Victim GmbH", billing_address: ADDRESS });
  });
});

/** A product sold once: an organization sells one subscription per customer by default. */
function oneTimeProduct(name: string) {
  return s.polar.products.create({
    name,
    prices: [{ amountType: "fixed", priceAmount: 1000, priceCurrency: "usd" }],
  });
}
