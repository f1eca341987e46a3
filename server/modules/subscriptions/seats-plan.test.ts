// Plan changes to, from and between seat-based products, and seat changes under a discount, over
// HTTP on the organization's sandbox clock: the seats follow Polar's rules (kept between seat-based
// products, the new minimum when moving onto seats, refused when leaving them), the proration uses
// the seats' amounts net of the discount, and a refused change changes nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enableResetProration } from "../../../test/helpers/billing.ts";
import { seatsWorld, type SeatsWorld } from "../../../test/helpers/seats.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { US_ADDRESS } from "../../../test/helpers/addresses.ts";

let t: TestServer;
let w: SeatsWorld;

beforeAll(async () => {
  t = await startTestServer({ worker: false });
  w = await seatsWorld(t);
});
afterAll(() => t?.stop());

const tiers = (min: number, perSeat: number, max: number | null = null) => ({
  seat_tier_type: "volume",
  tiers: [{ min_seats: min, max_seats: max, price_per_seat: perSeat }],
});

async function product(name: string, price: Record<string, unknown>) {
  const res = await w.call("/v1/products/", {
    body: { name, recurring_interval: "month", prices: [{ price_currency: "usd", ...price }] },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

const seatProduct = (name: string, t: ReturnType<typeof tiers>) =>
  product(name, { amount_type: "seat_based", seat_tiers: t });

async function buy(productId: string, seats?: number) {
  const checkout = await w.call("/v1/checkouts/", {
    body: { products: [productId], ...(seats ? { seats } : {}) },
  });
  expect(checkout.status, JSON.stringify(checkout.body)).toBe(201);
  const confirmed = await w.call(`/v1/checkouts/client/${checkout.body.client_secret}/confirm`, {
    body: {
      customer_email: w.email("plan"),
      customer_billing_address: US_ADDRESS,
      confirmation_token_id: "sandbox_token_success",
    },
  });
  expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
  return (await w.call(`/v1/checkouts/${checkout.body.id}`)).body.subscription_id as string;
}

const patch = (id: string, body: unknown) =>
  w.call(`/v1/subscriptions/${id}`, { method: "PATCH", body });
const read = async (id: string) => (await w.call(`/v1/subscriptions/${id}`)).body;
const updates = async (id: string) =>
  (await w.call(`/v1/orders/?subscription_id=${id}&limit=100`)).body.items.filter(
    (o: { billing_reason: string }) => o.billing_reason === "subscription_update",
  );

/** Moves the organization's clock to the middle of the subscription's period; answers that time. */
async function toMidPeriod(id: string) {
  const sub = await read(id);
  const start = Date.parse(sub.current_period_start);
  const mid = new Date(start + (Date.parse(sub.current_period_end) - start) / 2);
  const res = await w.call("/v1/sandbox/clock/advance", { body: { to: mid.toISOString() } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return mid.toISOString();
}

describe("a plan change between seat-based products", () => {
  it("keeps the seats and charges the difference of the seats' prices", async () => {
    const small = await seatProduct("Team small", tiers(1, 1000));
    const large = await seatProduct("Team large", tiers(1, 1500));
    const id = await buy(small, 3);
    await toMidPeriod(id);
    const res = await patch(id, { product_id: large, proration_behavior: "invoice" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect([res.body.product_id, res.body.seats, res.body.amount]).toEqual([large, 3, 4500]);
    const [update] = await updates(id);
    expect(update.seats).toBe(3);
    // Half a month of 45.00 − 30.00.
    expect(update.subtotal_amount).toBeGreaterThanOrEqual(740);
    expect(update.subtotal_amount).toBeLessThanOrEqual(760);
  });

  it("refuses a product whose tiers the seats do not fit, changing nothing", async () => {
    const small = await seatProduct("Team any", tiers(1, 1000));
    const big = await seatProduct("Team five up", tiers(5, 900));
    const id = await buy(small, 2);
    const before = await read(id);
    for (const behavior of ["prorate", "next_period"]) {
      const res = await patch(id, { product_id: big, proration_behavior: behavior });
      expect([res.status, res.body.detail?.[0]?.loc]).toEqual([422, ["body", "product_id"]]);
    }
    expect(await read(id)).toEqual(before);
  });
});

describe("a plan change onto and away from seats", () => {
  it("moving onto seats starts at the new minimum, at once, never scheduled", async () => {
    const solo = await product("Solo", { amount_type: "fixed", price_amount: 1000 });
    const team = await seatProduct("Team from solo", tiers(2, 1000));
    const id = await buy(solo);
    expect((await read(id)).seats).toBeNull();
    const later = await patch(id, { product_id: team, proration_behavior: "next_period" });
    expect([later.status, later.body.detail?.[0]?.loc]).toEqual([
      422,
      ["body", "proration_behavior"],
    ]);
    expect((await read(id)).pending_update).toBeNull();

    await toMidPeriod(id);
    const res = await patch(id, { product_id: team, proration_behavior: "invoice" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect([res.body.product_id, res.body.seats, res.body.amount]).toEqual([team, 2, 2000]);
    const [update] = await updates(id);
    // Half a month of 20.00 − 10.00, for the 2 seats.
    expect(update.seats).toBe(2);
    expect(update.subtotal_amount).toBeGreaterThanOrEqual(490);
    expect(update.subtotal_amount).toBeLessThanOrEqual(510);
    const seats = await w.call(`/v1/customer-seats?subscription_id=${id}`);
    expect(seats.body).toMatchObject({ total_seats: 2, available_seats: 2 });
  });

  it("reset onto seats starts a new period billed at once for the minimum seats", async () => {
    await enableResetProration(t.url, {
      token: w.seller.token,
      organizationId: w.seller.organization.id,
    });
    const solo = await product("Solo reset", { amount_type: "fixed", price_amount: 1000 });
    const team = await seatProduct("Team reset", tiers(3, 700));
    const id = await buy(solo);
    const now = await toMidPeriod(id);
    const res = await patch(id, { product_id: team, proration_behavior: "reset" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect([res.body.product_id, res.body.seats]).toEqual([team, 3]);
    // The new period starts at the change (the clock runs on from `now` while the request is made).
    const start = Date.parse(res.body.current_period_start) - Date.parse(now);
    expect(start).toBeGreaterThanOrEqual(0);
    expect(start).toBeLessThan(60_000);
    // The new plan's full period in a subscription_update order; no credit for the old, no cycle.
    const orders = (await w.call(`/v1/orders/?subscription_id=${id}&limit=100&sorting=created_at`))
      .body.items;
    expect(
      orders.map((o: Record<string, any>) => [o.billing_reason, o.seats, o.subtotal_amount]),
    ).toEqual([
      ["subscription_create", null, 1000],
      ["subscription_update", 3, 2100],
    ]);
  });

  it("refuses leaving seats for a product without them, changing nothing", async () => {
    const team = await seatProduct("Team to solo", tiers(1, 1000));
    const solo = await product("Solo again", { amount_type: "fixed", price_amount: 1000 });
    const id = await buy(team, 2);
    const before = await read(id);
    const res = await patch(id, { product_id: solo, proration_behavior: "prorate" });
    expect([res.status, res.body.detail?.[0]?.loc]).toEqual([422, ["body", "product_id"]]);
    expect(res.body.detail[0].msg).toMatch(/seat-based/);
    expect(await read(id)).toEqual(before);
  });
});

describe("a seat change under a discount", () => {
  it("prorates the seats' amounts net of the discount", async () => {
    const team = await seatProduct("Team discounted", tiers(1, 1000));
    const half = await w.call("/v1/discounts/", {
      body: { name: "Half", type: "percentage", basis_points: 5000, duration: "forever" },
    });
    expect(half.status, JSON.stringify(half.body)).toBe(201);
    const id = await buy(team, 2);
    expect((await patch(id, { discount_id: half.body.id })).status).toBe(200);
    await toMidPeriod(id);
    const res = await patch(id, { seats: 4, proration_behavior: "invoice" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [update] = await updates(id);
    // Half a month of (40.00 − 50%) − (20.00 − 50%), not of 40.00 − 20.00.
    expect(update.subtotal_amount).toBeGreaterThanOrEqual(490);
    expect(update.subtotal_amount).toBeLessThanOrEqual(510);
  });
});
