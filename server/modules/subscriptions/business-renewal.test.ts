// A subscription bought as a business is billed to the business from then on: the checkout saves
// its name as the customer's billing name (as Polar's), and each renewal's order carries it; a
// customer who buys again as a business under another name is billed to the new one.
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
async function buyAsBusiness(productId: string, email: string, billingName: string) {
  const checkout = await s.call("/v1/checkouts/", {
    body: { products: [productId], is_business_customer: true },
  });
  expect(checkout.status, JSON.stringify(checkout.body)).toBe(201);
  const paid = await s.call(`/v1/checkouts/client/${checkout.body.client_secret}/confirm`, {
    body: {
      customer_email: email,
      customer_name: "Ada Buyer",
      customer_billing_name: billingName,
      customer_billing_address: ADDRESS,
      confirmation_token_id: "sandbox_token_success",
    },
  });
  expect(paid.status, JSON.stringify(paid.body)).toBe(200);
  const orders = await s.call(`/v1/orders/?checkout_id=${checkout.body.id}`);
  return orders.body.items[0] as Record<string, any>;
}

describe("a business's subscription", () => {
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

  it("a returning customer buying as another business is billed to the new name", async () => {
    // One-time products: an organization sells one subscription per customer by default.
    const book = await s.polar.products.create({
      name: "Business book",
      prices: [{ amountType: "fixed", priceAmount: 1000, priceCurrency: "usd" }],
    });
    await buyAsBusiness(book.id, "returning@example.com", "First Name Ltd");
    const second = await buyAsBusiness(book.id, "returning@example.com", "Second Name Ltd");
    expect(second.billing_name).toBe("Second Name Ltd");
    const customer = await s.call(`/v1/customers/${second.customer_id}`);
    expect(customer.body.billing_name).toBe("Second Name Ltd");
  });
});
