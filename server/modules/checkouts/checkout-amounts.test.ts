// Checkout amounts: percentage and fixed discounts, tax by country, custom prices within their
// bounds and updated at once, a metered-only subscription that saves a card, and a free product.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { api } from "../../../test/helpers/auth.ts";
import { createCountMeter } from "../../../test/helpers/catalog.ts";
import {
  checkout,
  client,
  post,
  product,
  t,
  token,
  withCheckoutSeller,
} from "../../../test/helpers/checkout-seller.ts";
import { US_ADDRESS } from "../../../test/helpers/addresses.ts";

withCheckoutSeller();

describe("amounts", () => {
  it("percentage and fixed discounts, tax by country from TAX_RATES, net and total", async () => {
    const p = await product([{ amount_type: "fixed", price_amount: 1999, price_currency: "usd" }]);
    const pct = await post("/v1/discounts/", {
      name: "Quarter",
      code: "QUARTER",
      type: "percentage",
      basis_points: 2500,
      duration: "once",
    });
    const c = await checkout({ products: [p.id], customer_billing_address: { country: "DE" } });
    expect(c).toMatchObject({
      amount: 1999,
      discount_amount: 0,
      net_amount: 1999,
      tax_amount: 380,
      total_amount: 2379,
    });
    const withCode = await client(c.client_secret, "", { discount_code: "quarter" }, "PATCH");
    expect(withCode.status).toBe(200);
    // 25% of 1999 = 499.75 → 500 (half up); tax 19% of 1499 = 284.81 → 285.
    expect(withCode.body).toMatchObject({
      discount_id: pct.body.id,
      discount_amount: 500,
      net_amount: 1499,
      tax_amount: 285,
      total_amount: 1784,
    });
    const us = await client(c.client_secret, "", { customer_billing_address: US_ADDRESS }, "PATCH");
    expect(us.body).toMatchObject({ tax_amount: 0, total_amount: 1499 });
    // Paid, its order's item is the price before the discount, as a renewal's and Polar's are:
    // the item, less the order's discount, is what was paid.
    await client(c.client_secret, "", { customer_email: "quarter@example.com" }, "PATCH");
    const paid = await client(c.client_secret, "/confirm", {
      confirmation_token_id: "sandbox_token_success",
    });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    const orders = await api(t.url, `/v1/orders/?checkout_id=${c.id}`, { token });
    expect(orders.body.items).toMatchObject([
      {
        subtotal_amount: 1999,
        discount_amount: 500,
        total_amount: 1499,
        items: [{ amount: 1999, tax_amount: 0 }],
      },
    ]);
  });

  it("a percentage is taken as Polar rounds it: 35% of 1290 is 451, not 452", async () => {
    const p = await product([{ amount_type: "fixed", price_amount: 1290, price_currency: "usd" }]);
    const pct = await post("/v1/discounts/", {
      name: "Thirty-five",
      type: "percentage",
      basis_points: 3500,
      duration: "once",
    });
    const c = await checkout({ products: [p.id], discount_id: pct.body.id });
    // Polar multiplies in floats: 1290 × 0.35 = 451.49999999999994, rounded to 451.
    expect(c).toMatchObject({ amount: 1290, discount_amount: 451, net_amount: 839 });
  });

  it("a custom price takes an amount within its bounds; outside them is a 422 on amount and nothing changes", async () => {
    const p = await product([
      {
        amount_type: "custom",
        minimum_amount: 500,
        maximum_amount: 10_000,
        preset_amount: 1000,
        price_currency: "usd",
      },
    ]);
    const c = await checkout({ products: [p.id] });
    expect(c.amount).toBe(1000);
    const low = await client(c.client_secret, "", { amount: 100 }, "PATCH");
    expect(low.status).toBe(422);
    expect(low.body.detail[0]).toMatchObject({
      loc: ["body", "amount"],
      msg: "The amount must be at least 500.",
    });
    expect((await client(c.client_secret)).body.amount).toBe(1000);
    expect((await client(c.client_secret, "", { amount: 4200 }, "PATCH")).body.total_amount).toBe(
      4200,
    );
  });

  it("two updates at once both hold: an amount typed while the country is on its way", async () => {
    const p = await product([
      { amount_type: "custom", minimum_amount: 500, preset_amount: 1000, price_currency: "usd" },
    ]);
    for (const amount of [4200, 5300, 6400]) {
      const c = await checkout({ products: [p.id] });
      const [typed, country] = await Promise.all([
        client(c.client_secret, "", { amount }, "PATCH"),
        client(c.client_secret, "", { customer_billing_address: { country: "DE" } }, "PATCH"),
      ]);
      expect([typed.status, country.status]).toEqual([200, 200]);
      // Whichever committed last saw the other's change: the session has both, taxed at 19 %.
      const now = (await client(c.client_secret)).body;
      expect(now).toMatchObject({
        amount,
        customer_billing_address: { country: "DE" },
        tax_amount: Math.round(amount * 0.19),
        total_amount: amount + Math.round(amount * 0.19),
      });
    }
  });

  it("a metered-only subscription asks for a card though nothing is due now, and saves it", async () => {
    const meterId = await createCountMeter(t.url, token, "Setup calls", "x");
    const p = await product(
      [
        {
          amount_type: "metered_unit",
          meter_id: meterId,
          unit_amount: "0.5",
          price_currency: "usd",
        },
      ],
      { recurring_interval: "month" },
    );
    const c = await checkout({ products: [p.id] });
    expect(c).toMatchObject({
      total_amount: 0,
      is_payment_required: false,
      is_payment_setup_required: true,
      is_payment_form_required: true,
    });
    const bare = await client(c.client_secret, "/confirm", {
      customer_email: "usage@example.com",
      customer_billing_address: US_ADDRESS,
    });
    expect(bare.status).toBe(422);
    expect(bare.body.detail[0].loc).toEqual(["body", "confirmation_token_id"]);
    const confirmed = await client(c.client_secret, "/confirm", {
      customer_email: "usage@example.com",
      customer_billing_address: US_ADDRESS,
      confirmation_token_id: "sandbox_token_success",
    });
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    const saved = await t.server.database.rows<{ n: number }>(
      sql`select count(*)::int as n from payment_methods m join customers c on c.id = m.customer_id
        where c.email = 'usage@example.com'`,
    );
    expect(saved[0]!.n).toBe(1);
  });

  it("a free product confirms without payment details and still makes a paid order", async () => {
    const p = await product([{ amount_type: "free" }]);
    const c = await checkout({ products: [p.id] });
    expect(c.total_amount).toBe(0);
    const confirmed = await client(c.client_secret, "/confirm", {
      customer_email: "free@example.com",
    });
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    expect(confirmed.body.is_payment_form_required).toBe(false);
  });
});
