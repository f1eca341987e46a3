// A discount's max_redemptions_per_customer: a buyer who has redeemed it that many times is refused
// at confirm (403 DiscountRedemptionLimitReached, as Polar), by customer or by email in any case,
// before any charge; the session stays open and nothing is redeemed. Other buyers still get it, and
// simultaneous confirms by one buyer redeem it only as often as allowed. The page's updates refuse
// it as early as the buyer is known (applying the code, or giving an email that used it), as Polar's
// do; the seller's updates may still apply it.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { api } from "../../../test/helpers/auth.ts";
import {
  checkout,
  client,
  count,
  post,
  product,
  t,
  token,
  withCheckoutSeller,
} from "../../../test/helpers/checkout-seller.ts";
import { US_ADDRESS } from "../../../test/helpers/addresses.ts";

withCheckoutSeller();

async function oncePerCustomer(code?: string) {
  const res = await post("/v1/discounts/", {
    name: "Welcome",
    ...(code ? { code } : {}),
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

const LIMIT_REACHED = {
  error: "DiscountRedemptionLimitReached",
  detail:
    "You have already redeemed this discount the maximum number of times allowed per customer.",
};

const updatesOf = (checkoutId: string) =>
  count(sql`select count(*)::int as n from webhook_events where type = 'checkout.updated'
    and payload->'data'->>'id' = ${checkoutId}`);

describe("max_redemptions_per_customer", () => {
  it("a second redemption by the same buyer is refused and changes nothing", async () => {
    const p = await product();
    const d = await oncePerCustomer();
    expect((await confirm(p.id, d, "first@example.com")).res.status).toBe(200);

    const { session, res } = await confirm(p.id, d, "FIRST@Example.com");
    expect(res.status, JSON.stringify(res.body)).toBe(403);
    expect(res.body).toEqual(LIMIT_REACHED);
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

/** A once-per-customer discount with `code` that `email` has redeemed, on a $20 product. */
async function usedUpBy(email: string, code: string) {
  const p = await product();
  const d = await oncePerCustomer(code);
  const first = await confirm(p.id, d, email);
  expect(first.res.status, JSON.stringify(first.res.body)).toBe(200);
  return { productId: p.id, discountId: d, firstCheckoutId: first.session.id };
}

/** The page's update of the session with `secret`. */
const patch = (secret: string, body: unknown) => client(secret, "", body, "PATCH");

describe("max_redemptions_per_customer on the page's update", () => {
  it("a code the known buyer has used up is refused when applied, and nothing changes", async () => {
    const { productId, discountId } = await usedUpBy("buyer@example.com", "FIRSTTIME");

    const session = await checkout({
      products: [productId],
      customer_email: "Buyer+shop@Example.com",
    });
    const res = await patch(session.client_secret, { discount_code: "FIRSTTIME" });
    expect(res.status, JSON.stringify(res.body)).toBe(403);
    expect(res.body).toEqual(LIMIT_REACHED);
    const after = (await client(session.client_secret)).body;
    expect(after.discount).toBeNull();
    expect(after.total_amount).toBe(session.total_amount);
    expect(await updatesOf(session.id)).toBe(0);

    // A buyer not yet known, or another one, still gets it.
    const anonymous = await checkout({ products: [productId] });
    const applied = await patch(anonymous.client_secret, { discount_code: "FIRSTTIME" });
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    expect(applied.body.discount.id).toBe(discountId);
  });

  it("the session's customer is matched whatever email it was given", async () => {
    const { productId, firstCheckoutId } = await usedUpBy("regular@example.com", "REGULAR");
    const [order] = await t.server.database.rows<{ customer_id: string }>(
      sql`select customer_id from orders where checkout_id = ${firstCheckoutId}`,
    );

    const session = await checkout({
      products: [productId],
      customer_id: order!.customer_id,
      customer_email: "elsewhere@example.com",
    });
    const res = await patch(session.client_secret, { discount_code: "REGULAR" });
    expect(res.status, JSON.stringify(res.body)).toBe(403);
    expect(res.body).toEqual(LIMIT_REACHED);
  });

  it("changing the email to one that used the discount up is refused until the code goes", async () => {
    const { productId, discountId } = await usedUpBy("used@example.com", "CHANGED");

    const session = await checkout({ products: [productId], customer_email: "fresh@example.com" });
    const applied = await patch(session.client_secret, { discount_code: "CHANGED" });
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    const updates = await updatesOf(session.id);

    const res = await patch(session.client_secret, {
      customer_email: "USED@example.com",
      customer_name: "Used",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(403);
    expect(res.body).toEqual(LIMIT_REACHED);
    const after = (await client(session.client_secret)).body;
    expect(after.customer_email).toBe("fresh@example.com");
    expect(after.customer_name).toBeNull();
    expect(after.discount.id).toBe(discountId);
    expect(await updatesOf(session.id)).toBe(updates);

    // Removing the code is how the buyer goes on with that email.
    const removed = await patch(session.client_secret, {
      customer_email: "used@example.com",
      discount_code: null,
    });
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect(removed.body.discount).toBeNull();
    expect(removed.body.total_amount).toBe(2000);
  });

  it("the seller may still apply it, as Polar lets it; confirm refuses the buyer", async () => {
    const { productId, discountId } = await usedUpBy("repeat@example.com", "SELLER");

    const session = await checkout({ products: [productId], customer_email: "repeat@example.com" });
    const patched = await api(t.url, `/v1/checkouts/${session.id}`, {
      token,
      method: "PATCH",
      body: { discount_id: discountId },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.discount.id).toBe(discountId);

    const res = await client(session.client_secret, "/confirm", {
      customer_billing_address: US_ADDRESS,
      confirmation_token_id: "sandbox_token_success",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(403);
    expect(res.body).toEqual(LIMIT_REACHED);
    expect(await redemptions(discountId)).toBe(1);
  });
});
