// Seats beyond one subscription's lifetime: a one-time order's seats and their grants, the seats
// of a subscription that ends, and the customer portal's view for the buyer and for another
// customer, who finds nothing; and seats named by the checkout that sold them.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "../../../test/helpers/auth.ts";
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

describe("seats when the subscription ends", () => {
  it("revokes the live seats with the subscription", async () => {
    const sub = await w.seatSubscription(2);
    const seat = await w.call("/v1/customer-seats", {
      body: { subscription_id: sub.subscriptionId, email: w.email("end"), immediate_claim: true },
    });
    const revoked = await w.call(`/v1/subscriptions/${sub.subscriptionId}`, {
      method: "PATCH",
      body: { revoke: true },
    });
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    expect(await w.seatEvents(seat.body.id)).toEqual([
      "customer_seat.claimed",
      "customer_seat.revoked",
    ]);
    const list = await w.call(`/v1/customer-seats?subscription_id=${sub.subscriptionId}`);
    expect(list.body.seats).toEqual([]);
    const again = await w.call("/v1/customer-seats", {
      body: { subscription_id: sub.subscriptionId, email: w.email("late") },
    });
    expect(again.body.error).toBe("SeatNotAvailable");
  });
});

describe("seats of a one-time order", () => {
  it("assigns, claims with the benefit granted within the order, and revokes", async () => {
    const product = await w.call("/v1/products/", {
      body: {
        name: "Team pack",
        prices: [
          {
            amount_type: "seat_based",
            seat_tiers: { tiers: [{ min_seats: 1, price_per_seat: 700 }] },
          },
        ],
      },
    });
    await w.call(`/v1/products/${product.body.id}/benefits`, { body: { benefits: [w.benefitId] } });
    const checkout = await w.call("/v1/checkouts/", {
      body: { products: [product.body.id], seats: 1 },
    });
    await api(t.url, `/v1/checkouts/client/${checkout.body.client_secret}/confirm`, {
      body: {
        customer_email: w.email("pack"),
        customer_billing_address: US_ADDRESS,
        confirmation_token_id: "sandbox_token_success",
      },
    });
    const orderId = (await w.call(`/v1/orders/?checkout_id=${checkout.body.id}`)).body.items[0].id;
    const seat = await w.call("/v1/customer-seats", {
      body: { order_id: orderId, email: w.email("packmate"), immediate_claim: true },
    });
    expect(seat.status, JSON.stringify(seat.body)).toBe(200);
    expect(seat.body).toMatchObject({
      order_id: orderId,
      subscription_id: null,
      status: "claimed",
    });
    const [grant] = await t.server.database.rows<{ order_id: string; scope_id: string }>(
      sql`select order_id, scope_id from benefit_grants where customer_id = ${seat.body.customer_id}`,
    );
    expect(grant).toEqual({ order_id: orderId, scope_id: orderId });
    const full = await w.call("/v1/customer-seats", {
      body: { order_id: orderId, email: w.email("no") },
    });
    expect(full.body.error).toBe("SeatNotAvailable");
    const revoked = await w.call(`/v1/customer-seats/${seat.body.id}`, { method: "DELETE" });
    expect(revoked.body.status).toBe("revoked");
    expect(await w.grantsOf(seat.body.customer_id)).toEqual([
      { pending_action: "revoke", revoked_at: null },
    ]);
  });
});

describe("seats in the customer portal", () => {
  it("lets the buyer list, assign, resend and revoke; another customer finds nothing", async () => {
    const sub = await w.seatSubscription(2);
    const session = async (customerId: string) =>
      (await w.call("/v1/customer-sessions/", { body: { customer_id: customerId } })).body
        .token as string;
    const mine = await session(sub.customerId);
    const stranger = await session((await w.seatSubscription(1)).customerId);
    const portal = (token: string, path: string, init: { method?: string; body?: unknown } = {}) =>
      api(t.url, `/v1/customer-portal/seats${path}`, { token, ...init });

    const assigned = await portal(mine, "", {
      body: { subscription_id: sub.subscriptionId, email: w.email("p") },
    });
    expect(assigned.status, JSON.stringify(assigned.body)).toBe(200);
    expect(assigned.body.status).toBe("pending");
    const list = await portal(mine, `?subscription_id=${sub.subscriptionId}`);
    expect(list.body).toMatchObject({ total_seats: 2, available_seats: 1 });

    const before = await w.snapshot();
    for (const res of [
      await portal(stranger, `?subscription_id=${sub.subscriptionId}`),
      await portal(stranger, "", {
        body: { subscription_id: sub.subscriptionId, email: w.email("q") },
      }),
      await portal(stranger, `/${assigned.body.id}`, { method: "DELETE" }),
      await portal(stranger, `/${assigned.body.id}/resend`, { method: "POST" }),
    ])
      expect(res.status, JSON.stringify(res.body)).toBe(404);
    expect(await w.snapshot()).toEqual(before);
    expect((await portal(w.seller.token, `?subscription_id=${sub.subscriptionId}`)).status).toBe(
      401,
    );

    expect((await portal(mine, `/${assigned.body.id}/resend`, { method: "POST" })).status).toBe(
      200,
    );
    const revoked = await portal(mine, `/${assigned.body.id}`, { method: "DELETE" });
    expect([revoked.status, revoked.body.status]).toEqual([200, "revoked"]);
  });
});

describe("seats named by the checkout that sold them", () => {
  it("resolves the checkout's subscription for the seller and the buyer; refuses an open, foreign or second reference", async () => {
    const sub = await w.seatSubscription(3);
    const seat = await w.call("/v1/customer-seats", {
      body: { checkout_id: sub.checkoutId, email: w.email("bycheckout") },
    });
    expect(seat.status, JSON.stringify(seat.body)).toBe(200);
    expect(seat.body).toMatchObject({ subscription_id: sub.subscriptionId, status: "pending" });

    const token = (
      await w.call("/v1/customer-sessions/", { body: { customer_id: sub.customerId } })
    ).body.token as string;
    const mine = await api(t.url, "/v1/customer-portal/seats", {
      token,
      body: { checkout_id: sub.checkoutId, email: w.email("portalcheckout") },
    });
    expect(mine.status, JSON.stringify(mine.body)).toBe(200);
    expect(mine.body.subscription_id).toBe(sub.subscriptionId);

    const open = await w.call("/v1/checkouts/", {
      body: {
        products: [(await w.call(`/v1/subscriptions/${sub.subscriptionId}`)).body.product_id],
        seats: 2,
      },
    });
    const foreign = await w.seatSubscription(2, w.other);
    const stranger = (
      await w.call("/v1/customer-sessions/", {
        body: { customer_id: (await w.seatSubscription(1)).customerId },
      })
    ).body.token as string;
    const before = await w.snapshot();
    const refused = [
      await w.call("/v1/customer-seats", {
        body: { checkout_id: open.body.id, email: w.email("open") },
      }),
      await w.call("/v1/customer-seats", {
        body: { checkout_id: foreign.checkoutId, email: w.email("foreign") },
      }),
      await w.call("/v1/customer-seats", {
        body: {
          checkout_id: sub.checkoutId,
          subscription_id: sub.subscriptionId,
          email: w.email("both"),
        },
      }),
      await api(t.url, "/v1/customer-portal/seats", {
        token: stranger,
        body: { checkout_id: sub.checkoutId, email: w.email("stranger") },
      }),
      await w.call("/v1/customer-seats", { body: { checkout_id: "nope", email: w.email("bad") } }),
    ];
    expect(refused.map((r) => [r.status, r.body.error])).toEqual([
      [400, "InvalidSeatAssignmentRequest"],
      [404, "ResourceNotFound"],
      [400, "InvalidSeatAssignmentRequest"],
      [404, "ResourceNotFound"],
      [422, "RequestValidationError"],
    ]);
    expect(await w.snapshot()).toEqual(before);
  });

  it("resolves a one-time checkout's order", async () => {
    const product = await w.call("/v1/products/", {
      body: {
        name: "Team pack by checkout",
        prices: [
          {
            amount_type: "seat_based",
            seat_tiers: { tiers: [{ min_seats: 1, price_per_seat: 500 }] },
          },
        ],
      },
    });
    const checkout = await w.call("/v1/checkouts/", {
      body: { products: [product.body.id], seats: 2 },
    });
    await api(t.url, `/v1/checkouts/client/${checkout.body.client_secret}/confirm`, {
      body: {
        customer_email: w.email("packbuyer"),
        customer_billing_address: US_ADDRESS,
        confirmation_token_id: "sandbox_token_success",
      },
    });
    const orderId = (await w.call(`/v1/orders/?checkout_id=${checkout.body.id}`)).body.items[0].id;
    const seat = await w.call("/v1/customer-seats", {
      body: { checkout_id: checkout.body.id, email: w.email("packseat") },
    });
    expect(seat.status, JSON.stringify(seat.body)).toBe(200);
    expect(seat.body).toMatchObject({ order_id: orderId, subscription_id: null });
  });
});
