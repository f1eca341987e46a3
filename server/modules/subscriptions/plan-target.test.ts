// Which products a plan change may move to, through real HTTP, as Polar's validate_product_change
// answers: a product of another organization, an archived, a one-time, one without a price in the
// subscription's currency and a pay-what-you-want one are 422 on body.product_id and change
// nothing; a private product is the seller's to choose, not the customer's in the portal.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "../../../test/helpers/auth.ts";
import {
  billingSeller,
  type BillingSeller,
  ordersOf,
  setOrganizationSettings,
  subscribe,
  subscriptionOf,
} from "../../../test/helpers/billing.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

let t: TestServer;
let s: BillingSeller;
let other: BillingSeller;

beforeAll(async () => {
  t = await startTestServer({ worker: false });
  [s, other] = await Promise.all([billingSeller(t), billingSeller(t)]);
  await setOrganizationSettings(t.url, s, "customer_portal_settings", {
    subscription: { update_seats: true, update_plan: true, pause: false },
  });
});
afterAll(() => t?.stop());

type Price = Record<string, unknown>;
const fixed = (amount: number, currency = "usd"): Price => ({
  amount_type: "fixed",
  price_amount: amount,
  price_currency: currency,
});

async function product(
  seller: BillingSeller,
  name: string,
  prices: Price[],
  more: Record<string, unknown> = {},
) {
  const made = await seller.call("/v1/products/", {
    body: { name, recurring_interval: "month", prices, ...more },
  });
  expect(made.status).toBe(201);
  return made.body.id as string;
}

const patch = (id: string, body: unknown) =>
  s.call(`/v1/subscriptions/${id}`, { method: "PATCH", body });

function refusal(res: { status: number; body: any }, msg: string) {
  expect(res.status).toBe(422);
  expect(res.body.detail).toEqual([
    expect.objectContaining({ loc: ["body", "product_id"], msg, type: "value_error" }),
  ]);
}

describe("plan change targets", () => {
  it("refuses what Polar refuses, with its messages, and changes nothing", async () => {
    const plan = await product(s, "Target base", [fixed(1000)]);
    const { subscriptionId } = await subscribe(s, plan);
    const before = await subscriptionOf(s, subscriptionId);

    const archived = await product(s, "Target archived", [fixed(2000)]);
    expect(
      (await s.call(`/v1/products/${archived}`, { method: "PATCH", body: { is_archived: true } }))
        .status,
    ).toBe(200);
    const oneTime = await s.call("/v1/products/", {
      body: { name: "Target one-time", prices: [fixed(2000)] },
    });
    const euros = await product(s, "Target in euros", [fixed(2000, "eur")]);
    const pwyw = await product(s, "Target PWYW", [
      { amount_type: "custom", minimum_amount: 500, price_currency: "usd" },
    ]);
    const elsewhere = await product(other, "Target elsewhere", [fixed(2000)]);

    const cases: [string, string][] = [
      [elsewhere, "Product does not exist."],
      [archived, "Product is archived."],
      [oneTime.body.id, "Product is not recurring."],
      [euros, "This product doesn't have a price for the subscription currency."],
      [pwyw, "Can't update to a product with custom prices."],
    ];
    for (const [productId, msg] of cases)
      for (const proration_behavior of ["invoice", "next_period"])
        refusal(await patch(subscriptionId, { product_id: productId, proration_behavior }), msg);

    const after = await subscriptionOf(s, subscriptionId);
    expect(after).toMatchObject({
      product_id: plan,
      amount: 1000,
      pending_update: null,
      modified_at: before.modified_at,
    });
    expect(await ordersOf(s, subscriptionId)).toHaveLength(1);
  });

  it("a private product: the seller may move a subscription there, the customer may not", async () => {
    const plan = await product(s, "Visible base", [fixed(1000)]);
    const hidden = await product(s, "Hidden plan", [fixed(3000)], { visibility: "private" });
    const { subscriptionId, customerId } = await subscribe(s, plan);
    const session = await s.call("/v1/customer-sessions/", { body: { customer_id: customerId } });
    const portal = (body: unknown) =>
      api(t.url, `/v1/customer-portal/subscriptions/${subscriptionId}`, {
        token: session.body.token,
        method: "PATCH",
        body,
      });

    refusal(await portal({ product_id: hidden }), "Product visibility is not allowed.");
    expect((await subscriptionOf(s, subscriptionId)).product_id).toBe(plan);

    const moved = await patch(subscriptionId, {
      product_id: hidden,
      proration_behavior: "next_period",
    });
    expect(moved.status).toBe(200);
    expect(moved.body.pending_update).toMatchObject({ product_id: hidden });
  });
});
