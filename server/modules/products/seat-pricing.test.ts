// Seat-based prices end to end over HTTP: tiers validated on the product, the checkout priced as
// tier price × seats within the tiers' bounds, the sale recording its seats on the subscription and
// order, and each renewal billing the subscription's seats at the tier price.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  advance,
  billingSeller,
  ordersOf,
  subscriptionOf,
  type BillingSeller,
} from "../../../test/helpers/billing.ts";
import { api } from "../../../test/helpers/auth.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { US_ADDRESS } from "../../../test/helpers/addresses.ts";

let t: TestServer;
let s: BillingSeller;

beforeAll(async () => {
  t = await startTestServer();
  s = await billingSeller(t);
});
afterAll(() => t?.stop());

const TIERS = {
  seat_tier_type: "volume",
  tiers: [
    { min_seats: 2, max_seats: 4, price_per_seat: 1000 },
    { min_seats: 5, max_seats: 20, price_per_seat: 800 },
  ],
};

async function seatProduct(recurring = true, tiers: unknown = TIERS) {
  return s.call("/v1/products/", {
    body: {
      name: "Team",
      ...(recurring ? { recurring_interval: "month" } : {}),
      prices: [{ amount_type: "seat_based", price_currency: "usd", seat_tiers: tiers }],
    },
  });
}

async function buy(productId: string, seats: number) {
  const created = await s.call("/v1/checkouts/", { body: { products: [productId], seats } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const secret = created.body.client_secret;
  const confirmed = await s.call(`/v1/checkouts/client/${secret}/confirm`, {
    body: {
      customer_email: `buyer-${Math.random().toString(36).slice(2, 8)}@example.com`,
      customer_billing_address: US_ADDRESS,
      confirmation_token_id: "sandbox_token_success",
    },
  });
  expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
  return (await s.call(`/v1/checkouts/${created.body.id}`)).body;
}

describe("seat-based prices", () => {
  it("creates and reads tiers, with the seat bounds derived from them", async () => {
    const res = await seatProduct();
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const price = res.body.prices[0];
    expect(price.amount_type).toBe("seat_based");
    expect(price.seat_tiers).toEqual({ ...TIERS, minimum_seats: 2, maximum_seats: 20 });
    const read = await s.call(`/v1/products/${res.body.id}`);
    expect(read.body.prices[0].seat_tiers.tiers).toEqual(TIERS.tiers);
  });

  it("refuses gaps, overlaps, an open tier before the last, floats and no tiers", async () => {
    const bad: [unknown, (string | number)[]][] = [
      [
        {
          tiers: [
            { min_seats: 1, max_seats: 2, price_per_seat: 1 },
            { min_seats: 4, price_per_seat: 1 },
          ],
        },
        ["tiers", 1, "min_seats"],
      ],
      [
        {
          tiers: [
            { min_seats: 1, price_per_seat: 1 },
            { min_seats: 3, price_per_seat: 1 },
          ],
        },
        ["tiers", 0, "max_seats"],
      ],
      [{ tiers: [{ min_seats: 3, max_seats: 2, price_per_seat: 1 }] }, ["tiers", 0, "max_seats"]],
      [{ tiers: [{ min_seats: 1, price_per_seat: 9.5 }] }, ["tiers", 0, "price_per_seat"]],
      [{ tiers: [] }, ["tiers"]],
    ];
    const before = (await s.call("/v1/products/?limit=100")).body.pagination.total_count;
    for (const [tiers, tail] of bad) {
      const res = await seatProduct(true, tiers);
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      expect(res.body.error).toBe("RequestValidationError");
      expect(res.body.detail[0].loc).toEqual(["body", "prices", 0, "seat_tiers", ...tail]);
    }
    expect((await s.call("/v1/products/?limit=100")).body.pagination.total_count).toBe(before);
  });

  it("prices a checkout as tier price × seats, within the tiers, and updates the seats", async () => {
    const product = (await seatProduct()).body;
    const made = await s.call("/v1/checkouts/", { body: { products: [product.id] } });
    expect(made.status).toBe(201);
    expect(made.body.seats).toBe(2);
    expect(made.body.amount).toBe(2000);
    const more = await s.call(`/v1/checkouts/${made.body.id}`, {
      method: "PATCH",
      body: { seats: 6 },
    });
    expect(more.status).toBe(200);
    expect([more.body.seats, more.body.amount]).toEqual([6, 4800]);
    for (const seats of [1, 21]) {
      const res = await s.call(`/v1/checkouts/${made.body.id}`, {
        method: "PATCH",
        body: { seats },
      });
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(["body", "seats"]);
    }
    const narrowed = await s.call("/v1/checkouts/", {
      body: { products: [product.id], seats: 3, max_seats: 2 },
    });
    expect(narrowed.status).toBe(422);
    expect((await s.call(`/v1/checkouts/${made.body.id}`)).body.seats).toBe(6);
  });

  it("sells a subscription with its seats and renews it at seats × tier price", async () => {
    const product = (await seatProduct()).body;
    const checkout = await buy(product.id, 5);
    expect(checkout.status).toBe("succeeded");
    const sub = await subscriptionOf(s, checkout.subscription_id);
    expect(sub.seats).toBe(5);
    expect(sub.amount).toBe(4000);
    await advance(s, { to: new Date(Date.parse(sub.current_period_end) + 60_000).toISOString() });
    const orders = await ordersOf(s, sub.id);
    expect(orders.map((o) => [o.billing_reason, o.seats, o.subtotal_amount])).toEqual([
      ["subscription_create", 5, 4000],
      ["subscription_cycle", 5, 4000],
    ]);
  });

  it("sells a one-time order with its seats", async () => {
    const product = (await seatProduct(false)).body;
    const checkout = await buy(product.id, 3);
    const order = (await s.call(`/v1/orders/?checkout_id=${checkout.id}`)).body.items[0];
    expect([order.seats, order.subtotal_amount, order.subscription_id]).toEqual([3, 3000, null]);
  });
});

describe("changing a subscription's seats", () => {
  const patch = (id: string, body: unknown) =>
    s.call(`/v1/subscriptions/${id}`, { method: "PATCH", body });

  it("invoices an increase now, carries a decrease, and applies next_period at renewal", async () => {
    const product = (await seatProduct()).body;
    const checkout = await buy(product.id, 5);
    const id = checkout.subscription_id as string;
    await advance(s, { seconds: 10 * 86_400 });

    const up = await patch(id, { seats: 10, proration_behavior: "invoice" });
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    expect([up.body.seats, up.body.amount]).toEqual([10, 8000]);
    const update = (await ordersOf(s, id)).find((o) => o.billing_reason === "subscription_update")!;
    expect(update.seats).toBe(10);
    // 20 or so days of 40.00 more a month.
    expect(update.subtotal_amount).toBeGreaterThan(2000);
    expect(update.subtotal_amount).toBeLessThan(4000);

    const down = await patch(id, { seats: 4, proration_behavior: "prorate" });
    expect([down.body.seats, down.body.amount]).toEqual([4, 4000]);

    const later = await patch(id, { seats: 6, proration_behavior: "next_period" });
    expect(later.body.seats).toBe(4);
    expect(later.body.pending_update).toMatchObject({ seats: 6, product_id: null });

    const sub = await subscriptionOf(s, id);
    await advance(s, { to: new Date(Date.parse(sub.current_period_end) + 60_000).toISOString() });
    const renewed = await subscriptionOf(s, id);
    expect([renewed.seats, renewed.pending_update]).toEqual([6, null]);
    const cycle = (await ordersOf(s, id)).filter((o) => o.billing_reason === "subscription_cycle");
    expect(cycle).toHaveLength(1);
    expect(cycle[0]!.seats).toBe(6);
    // 6 seats at 8.00, less the credit carried from the decrease.
    expect(cycle[0]!.subtotal_amount).toBeLessThan(4800);
  });

  it("an invoiced decrease credits the customer's balance, which pays the next cycle", async () => {
    const product = (await seatProduct()).body;
    const checkout = await buy(product.id, 10);
    const id = checkout.subscription_id as string;
    await advance(s, { seconds: 10 * 86_400 });
    const down = await patch(id, { seats: 2, proration_behavior: "invoice" });
    expect([down.body.seats, down.body.amount]).toEqual([2, 2000]);
    const update = (await ordersOf(s, id)).find((o) => o.billing_reason === "subscription_update")!;
    // 20 or so days of 60.00 less a month, as a negative total collected from no one.
    expect(update.total_amount).toBeLessThan(-3000);
    expect(update).toMatchObject({ status: "paid", due_amount: 0 });
    const session = await s.call("/v1/customer-sessions/", {
      body: { customer_id: update.customer_id },
    });
    const wallets = () => api(t.url, "/v1/customer-portal/wallets/", { token: session.body.token });
    expect((await wallets()).body.items[0].balance).toBe(-update.total_amount);

    const sub = await subscriptionOf(s, id);
    await advance(s, { to: new Date(Date.parse(sub.current_period_end) + 60_000).toISOString() });
    const [cycle] = (await ordersOf(s, id)).filter(
      (o) => o.billing_reason === "subscription_cycle",
    );
    // 2 seats at 10.00, paid whole from the balance; the rest stays for the next orders.
    expect(cycle).toMatchObject({
      total_amount: 2000,
      applied_balance_amount: -2000,
      due_amount: 0,
    });
    expect((await wallets()).body.items[0].balance).toBe(-update.total_amount - 2000);
  });

  it("a plan change scheduled after a seat change keeps the pending seats", async () => {
    const product = (await seatProduct()).body;
    const other = (await seatProduct()).body;
    const id = (await buy(product.id, 3)).subscription_id as string;
    await patch(id, { seats: 6, proration_behavior: "next_period" });
    const moved = await patch(id, { product_id: other.id, proration_behavior: "next_period" });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body.pending_update).toMatchObject({ product_id: other.id, seats: 6 });
    const sub = await subscriptionOf(s, id);
    await advance(s, { to: new Date(Date.parse(sub.current_period_end) + 60_000).toISOString() });
    const renewed = await subscriptionOf(s, id);
    expect([renewed.product_id, renewed.seats, renewed.pending_update]).toEqual([
      other.id,
      6,
      null,
    ]);
    const cycle = (await ordersOf(s, id)).find((o) => o.billing_reason === "subscription_cycle")!;
    // 6 seats at the 5–20 tier's 8.00.
    expect([cycle.seats, cycle.subtotal_amount]).toEqual([6, 4800]);
  });

  it("refuses seats outside the tiers and a subscription that is not seat-based", async () => {
    const product = (await seatProduct()).body;
    const id = (await buy(product.id, 3)).subscription_id as string;
    const before = await subscriptionOf(s, id);
    for (const seats of [1, 21]) {
      const res = await patch(id, { seats });
      expect([res.status, res.body.error]).toEqual([422, "RequestValidationError"]);
      expect(res.body.detail[0].loc).toEqual(["body", "seats"]);
    }
    expect((await patch(id, { seats: "many" })).status).toBe(422);
    expect(await subscriptionOf(s, id)).toEqual(before);

    const plain = await s.call("/v1/products/", {
      body: {
        name: "Solo",
        recurring_interval: "month",
        prices: [{ amount_type: "fixed", price_amount: 900 }],
      },
    });
    const solo = (await buy(plain.body.id, 1)).subscription_id as string;
    const res = await patch(solo, { seats: 2 });
    expect([res.status, res.body.error]).toEqual([400, "NotASeatBasedSubscription"]);
  });
});

describe("the buyer changing seats in the portal", () => {
  it("sizes their own subscription; another customer's is not found", async () => {
    const product = (await seatProduct()).body;
    const checkout = await buy(product.id, 3);
    const id = checkout.subscription_id as string;
    const session = await s.call("/v1/customer-sessions/", {
      body: { customer_id: checkout.customer_id },
    });
    const portal = (body: unknown, token = session.body.token as string) =>
      api(t.url, `/v1/customer-portal/subscriptions/${id}`, { method: "PATCH", token, body });
    const res = await portal({ seats: 4 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.seats).toBe(4);
    const stranger = await buy(product.id, 2);
    const theirs = await s.call("/v1/customer-sessions/", {
      body: { customer_id: stranger.customer_id },
    });
    expect((await portal({ seats: 5 }, theirs.body.token)).status).toBe(404);
    expect((await subscriptionOf(s, id)).seats).toBe(4);
  });
});
