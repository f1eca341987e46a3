// A discount's max_redemptions_per_customer: a buyer who has redeemed it that many times is refused
// at confirm (403 DiscountRedemptionLimitReached, as Polar), by customer or by email in any case,
// before any charge; the session stays open and nothing is redeemed. Other buyers still get it, and
// simultaneous confirms by one buyer redeem it only as often as allowed.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import {
  checkout,
  client,
  count,
  post,
  product,
  withCheckoutSeller,
} from "../../../test/helpers/checkout-seller.ts";
import { US_ADDRESS } from "../../../test/helpers/addresses.ts";

withCheckoutSeller();

async function oncePerCustomer() {
  const res = await post("/v1/discounts/", {
    name: "Welcome",
    type: "percentage",
    basis_points: 2000,
    duration: "once",
    max_redemptions_per_customer: 1,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

const confirm = async (productId: string, discountId: string, email: string) => {
  const session = await checkout({
    products: [productId],
    discount_id: discountId,
    customer_email: email,
    customer_billing_address: US_ADDRESS,
  });
  const res = await client(session.client_secret, "/confirm", {
    confirmation_token_id: "sandbox_token_success",
  });
  return { session, res };
};

const redemptions = (discountId: string) =>
  count(sql`select redemptions_count as n from discounts where id = ${discountId}`);
const ordersWith = (discountId: string) =>
  count(sql`select count(*)::int as n from orders where discount_id = ${discountId}`);

describe("max_redemptions_per_customer", () => {
  it("a second redemption by the same buyer is refused and changes nothing", async () => {
    const p = await product();
    const d = await oncePerCustomer();
    expect((await confirm(p.id, d, "first@example.com")).res.status).toBe(200);

    const { session, res } = await confirm(p.id, d, "FIRST@Example.com");
    expect(res.status, JSON.stringify(res.body)).toBe(403);
    expect(res.body).toEqual({
      error: "DiscountRedemptionLimitReached",
      detail:
        "You have already redeemed this discount the maximum number of times allowed per customer.",
    });
    expect((await client(session.client_secret)).body.status).toBe("open");
    expect(await redemptions(d)).toBe(1);
    expect(await ordersWith(d)).toBe(1);
    expect(
      await count(sql`select count(*)::int as n from payments where checkout_id = ${session.id}`),
    ).toBe(0);

    // Another buyer may still use it.
    expect((await confirm(p.id, d, "second@example.com")).res.status).toBe(200);
    expect(await redemptions(d)).toBe(2);
  });

  it("simultaneous confirms by one buyer redeem it once", async () => {
    const p = await product();
    const d = await oncePerCustomer();
    const sessions = await Promise.all(
      Array.from({ length: 6 }, () =>
        checkout({
          products: [p.id],
          discount_id: d,
          customer_email: "eager@example.com",
          customer_billing_address: US_ADDRESS,
        }),
      ),
    );
    const results = await Promise.all(
      sessions.map((s) =>
        client(s.client_secret, "/confirm", { confirmation_token_id: "sandbox_token_success" }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 403)).toHaveLength(5);
    expect(await redemptions(d)).toBe(1);
    expect(await ordersWith(d)).toBe(1);
  });
});
