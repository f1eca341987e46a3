// The seats API over HTTP against a real database: a seat-based subscription's seats assigned by
// invitation (mailed through the outbox), claimed once with the token, revoked (the holder's
// benefits with it), never beyond what was bought; the portal's view for the buyer and the holder;
// another organization's token finding nothing; bad input refused in Polar's error shape with
// nothing changed. Every change records its customer_seat.* event.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { BILLING_SCOPES } from "../../../test/helpers/billing.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

type Seller = Awaited<ReturnType<typeof createSeller>>;
const SCOPES = [...BILLING_SCOPES, "customer_seats:read", "customer_seats:write"];

let t: TestServer;
let seller: Seller;
let other: Seller;
let benefitId: string;

const call = (path: string, init: { method?: string; body?: unknown; token?: string } = {}) =>
  api(t.url, path, { token: seller.token, ...init });

beforeAll(async () => {
  t = await startTestServer({ worker: false });
  seller = await createSeller(t.url, SCOPES);
  other = await createSeller(t.url, SCOPES);
  const benefit = await call("/v1/benefits/", {
    body: { type: "custom", description: "Team support", properties: { note: "Hi" } },
  });
  expect(benefit.status, JSON.stringify(benefit.body)).toBe(201);
  benefitId = benefit.body.id;
});
afterAll(() => t?.stop());

let n = 0;
const email = (who: string) => `${who}-${++n}@example.com`;

/** A seat-based monthly product with the benefit, bought with `seats` seats. */
async function seatSubscription(seats: number, as: Seller = seller) {
  const product = await api(t.url, "/v1/products/", {
    token: as.token,
    body: {
      name: "Team",
      recurring_interval: "month",
      prices: [
        {
          amount_type: "seat_based",
          seat_tiers: { tiers: [{ min_seats: 1, price_per_seat: 1000 }] },
        },
      ],
    },
  });
  expect(product.status, JSON.stringify(product.body)).toBe(201);
  if (as === seller)
    await call(`/v1/products/${product.body.id}/benefits`, { body: { benefits: [benefitId] } });
  const checkout = await api(t.url, "/v1/checkouts/", {
    token: as.token,
    body: { products: [product.body.id], seats },
  });
  const buyer = email("buyer");
  const confirmed = await api(
    t.url,
    `/v1/checkouts/client/${checkout.body.client_secret}/confirm`,
    {
      body: {
        customer_email: buyer,
        customer_billing_address: { country: "US" },
        confirmation_token_id: "sandbox_token_success",
      },
    },
  );
  expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
  const done = (await api(t.url, `/v1/checkouts/${checkout.body.id}`, { token: as.token })).body;
  return { subscriptionId: done.subscription_id as string, customerId: done.customer_id as string };
}

async function tokenMailedTo(to: string): Promise<string> {
  const [mail] = await t.server.database.rows<{ link: string }>(
    sql`select link from email_outbox where "to" = ${to} and kind = 'seat-invitation'
        order by created_at desc limit 1`,
  );
  return new URL(mail!.link).searchParams.get("invitation_token")!;
}

async function seatEvents(seatId: string) {
  const rows = await t.server.database.rows<{ type: string }>(
    sql`select type from webhook_events where payload->'data'->>'id' = ${seatId}
        order by created_at, id`,
  );
  return rows.map((r) => r.type);
}

async function grantsOf(customerId: string) {
  return t.server.database.rows<{ pending_action: string | null; revoked_at: Date | null }>(
    sql`select pending_action, revoked_at from benefit_grants where customer_id = ${customerId}`,
  );
}

async function snapshot() {
  return {
    seats: await t.server.database.rows(
      sql`select id, status, email, customer_id, modified_at from customer_seats order by id`,
    ),
    events: await t.server.database.rows(
      sql`select count(*)::int as n from webhook_events where type like 'customer_seat.%'`,
    ),
  };
}

describe("seats of a subscription", () => {
  it("assigns by invitation, claims once, grants the benefit, revokes it with the seat", async () => {
    const sub = await seatSubscription(2);
    const holder = email("holder");
    const assigned = await call("/v1/customer-seats", {
      body: { subscription_id: sub.subscriptionId, email: holder, metadata: { team: "a" } },
    });
    expect(assigned.status, JSON.stringify(assigned.body)).toBe(200);
    const seat = assigned.body;
    expect(seat).toMatchObject({
      status: "pending",
      subscription_id: sub.subscriptionId,
      order_id: null,
      email: holder,
      customer_email: holder,
      claimed_at: null,
      seat_metadata: { team: "a" },
    });
    expect(seat.invitation_token_expires_at).not.toBeNull();

    const token = await tokenMailedTo(holder);
    expect(token).toMatch(/^till_seat_/);
    const info = await api(t.url, `/v1/customer-seats/claim/${token}`);
    expect(info.status).toBe(200);
    expect(info.body).toMatchObject({
      product_name: "Team",
      customer_email: holder,
      can_claim: true,
    });

    const claimed = await api(t.url, "/v1/customer-seats/claim", {
      body: { invitation_token: token },
    });
    expect(claimed.status, JSON.stringify(claimed.body)).toBe(200);
    expect(claimed.body.seat.status).toBe("claimed");
    expect(claimed.body.seat.member.email).toBe(holder);
    expect(claimed.body.customer_session_token).toMatch(/^till_cst_/);
    const holderId = claimed.body.seat.customer_id as string;
    expect(holderId).not.toBe(sub.customerId);
    expect(await grantsOf(holderId)).toEqual([{ pending_action: "grant", revoked_at: null }]);

    const again = await api(t.url, "/v1/customer-seats/claim", {
      body: { invitation_token: token },
    });
    expect([again.status, again.body.error]).toEqual([400, "InvalidInvitationToken"]);
    expect((await api(t.url, `/v1/customer-seats/claim/${token}`)).status).toBe(404);

    const claimedList = await api(t.url, "/v1/customer-portal/seats/subscriptions", {
      token: claimed.body.customer_session_token,
    });
    expect(claimedList.status).toBe(200);
    expect(claimedList.body.items.map((s: { id: string }) => s.id)).toEqual([sub.subscriptionId]);

    const list = await call(`/v1/customer-seats?subscription_id=${sub.subscriptionId}`);
    expect(list.body).toMatchObject({ total_seats: 2, available_seats: 1 });

    const revoked = await call(`/v1/customer-seats/${seat.id}`, { method: "DELETE" });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ status: "revoked", customer_id: null });
    expect(await grantsOf(holderId)).toEqual([{ pending_action: "revoke", revoked_at: null }]);
    expect(await seatEvents(seat.id)).toEqual([
      "customer_seat.assigned",
      "customer_seat.claimed",
      "customer_seat.revoked",
    ]);
    const after = await call(`/v1/customer-seats?subscription_id=${sub.subscriptionId}`);
    expect(after.body).toMatchObject({ total_seats: 2, available_seats: 2, seats: [] });
  });

  it("never assigns beyond the seats bought, nor the same person twice", async () => {
    const sub = await seatSubscription(2);
    const first = email("a");
    for (const who of [first, email("b")]) {
      const res = await call("/v1/customer-seats", {
        body: { subscription_id: sub.subscriptionId, email: who },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    const before = await snapshot();
    const over = await call("/v1/customer-seats", {
      body: { subscription_id: sub.subscriptionId, email: email("c") },
    });
    expect([over.status, over.body.error]).toEqual([400, "SeatNotAvailable"]);
    expect(typeof over.body.detail).toBe("string");
    expect(await snapshot()).toEqual(before);
    const fewer = await call(`/v1/subscriptions/${sub.subscriptionId}`, {
      method: "PATCH",
      body: { seats: 1, proration_behavior: "prorate" },
    });
    expect([fewer.status, fewer.body.detail?.[0]?.loc]).toEqual([422, ["body", "seats"]]);
    expect((await call(`/v1/subscriptions/${sub.subscriptionId}`)).body.seats).toBe(2);

    const revokedOne = (await call(`/v1/customer-seats?subscription_id=${sub.subscriptionId}`)).body
      .seats[0];
    await call(`/v1/customer-seats/${revokedOne.id}`, { method: "DELETE" });
    const twice = await call("/v1/customer-seats", {
      body: {
        subscription_id: sub.subscriptionId,
        email: revokedOne.email === first ? email("d") : first,
      },
    });
    expect(twice.status).toBe(200);
    const dup = await call("/v1/customer-seats", {
      body: { subscription_id: sub.subscriptionId, email: twice.body.email },
    });
    expect(dup.status).toBe(400);
  });

  it("gives the last seats to exactly as many concurrent assignments as there are seats", async () => {
    const sub = await seatSubscription(2);
    const answers = await Promise.all(
      [1, 2, 3, 4, 5].map(() =>
        call("/v1/customer-seats", {
          body: { subscription_id: sub.subscriptionId, email: email("race") },
        }),
      ),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 400, 400, 400]);
    const list = await call(`/v1/customer-seats?subscription_id=${sub.subscriptionId}`);
    expect(list.body).toMatchObject({ total_seats: 2, available_seats: 0 });
  });

  it("claims at once when asked, and resends a pending invitation with a new link", async () => {
    const sub = await seatSubscription(3);
    const now = await call("/v1/customer-seats", {
      body: { subscription_id: sub.subscriptionId, email: email("now"), immediate_claim: true },
    });
    expect(now.body).toMatchObject({ status: "claimed", invitation_token_expires_at: null });
    expect(await seatEvents(now.body.id)).toEqual(["customer_seat.claimed"]);
    const resendClaimed = await call(`/v1/customer-seats/${now.body.id}/resend`, {
      method: "POST",
    });
    expect([resendClaimed.status, resendClaimed.body.error]).toEqual([400, "SeatNotPending"]);

    const later = email("later");
    const pending = await call("/v1/customer-seats", {
      body: { subscription_id: sub.subscriptionId, email: later },
    });
    const oldToken = await tokenMailedTo(later);
    const resent = await call(`/v1/customer-seats/${pending.body.id}/resend`, { method: "POST" });
    expect(resent.status).toBe(200);
    const newToken = await tokenMailedTo(later);
    expect(newToken).not.toBe(oldToken);
    expect((await api(t.url, `/v1/customer-seats/claim/${oldToken}`)).status).toBe(404);
    expect((await api(t.url, `/v1/customer-seats/claim/${newToken}`)).status).toBe(200);
  });

  it("refuses a purchase that is not seat-based, and bad input, changing nothing", async () => {
    const sub = await seatSubscription(2);
    const plain = await call("/v1/products/", {
      body: { name: "Solo", prices: [{ amount_type: "free" }] },
    });
    const order = await call("/v1/checkouts/", { body: { products: [plain.body.id] } });
    await api(t.url, `/v1/checkouts/client/${order.body.client_secret}/confirm`, {
      body: { customer_email: email("solo") },
    });
    const orderId = (await call(`/v1/orders/?checkout_id=${order.body.id}`)).body.items[0].id;
    const before = await snapshot();
    const cases: [unknown, number, string][] = [
      [{ order_id: orderId, email: email("x") }, 400, "SeatNotAvailable"],
      [{ subscription_id: sub.subscriptionId }, 400, "InvalidSeatAssignmentRequest"],
      [
        { subscription_id: sub.subscriptionId, email: "a@b.co", customer_id: sub.customerId },
        400,
        "InvalidSeatAssignmentRequest",
      ],
      [{ email: email("y") }, 400, "InvalidSeatAssignmentRequest"],
      [
        { subscription_id: sub.subscriptionId, email: "not-an-email" },
        422,
        "RequestValidationError",
      ],
      [{ subscription_id: "nope", email: email("z") }, 422, "RequestValidationError"],
      [
        { subscription_id: sub.subscriptionId, customer_id: crypto.randomUUID() },
        404,
        "CustomerNotFound",
      ],
    ];
    for (const [body, status, error] of cases) {
      const res = await call("/v1/customer-seats", { body });
      expect([res.status, res.body.error], JSON.stringify(res.body)).toEqual([status, error]);
      expect(res.body.detail).toBeDefined();
    }
    expect((await call("/v1/customer-seats/not-a-uuid", { method: "DELETE" })).status).toBe(422);
    const noToken = await api(t.url, "/v1/customer-seats/claim", { body: {} });
    expect([noToken.status, noToken.body.error]).toEqual([422, "RequestValidationError"]);
    const badToken = await api(t.url, "/v1/customer-seats/claim", {
      body: { invitation_token: "till_seat_guess" },
    });
    expect([badToken.status, badToken.body.error]).toEqual([400, "InvalidInvitationToken"]);
    expect(await snapshot()).toEqual(before);
  });

  it("answers another organization's token with 404 and changes nothing", async () => {
    const sub = await seatSubscription(2);
    const seat = (
      await call("/v1/customer-seats", {
        body: { subscription_id: sub.subscriptionId, email: email("t") },
      })
    ).body;
    const before = await snapshot();
    const theirs = (path: string, init: { method?: string; body?: unknown } = {}) =>
      api(t.url, path, { token: other.token, ...init });
    for (const res of [
      await theirs("/v1/customer-seats", {
        body: { subscription_id: sub.subscriptionId, email: email("u") },
      }),
      await theirs(`/v1/customer-seats?subscription_id=${sub.subscriptionId}`),
      await theirs(`/v1/customer-seats/${seat.id}`, { method: "DELETE" }),
      await theirs(`/v1/customer-seats/${seat.id}/resend`, { method: "POST" }),
    ]) {
      expect(res.status, JSON.stringify(res.body)).toBe(404);
      expect(res.body.error).toBe("ResourceNotFound");
    }
    expect(await snapshot()).toEqual(before);
  });
});

describe("seats when the subscription ends", () => {
  it("revokes the live seats with the subscription", async () => {
    const sub = await seatSubscription(2);
    const seat = await call("/v1/customer-seats", {
      body: { subscription_id: sub.subscriptionId, email: email("end"), immediate_claim: true },
    });
    const revoked = await call(`/v1/subscriptions/${sub.subscriptionId}`, {
      method: "PATCH",
      body: { revoke: true },
    });
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    expect(await seatEvents(seat.body.id)).toEqual([
      "customer_seat.claimed",
      "customer_seat.revoked",
    ]);
    const list = await call(`/v1/customer-seats?subscription_id=${sub.subscriptionId}`);
    expect(list.body.seats).toEqual([]);
    const again = await call("/v1/customer-seats", {
      body: { subscription_id: sub.subscriptionId, email: email("late") },
    });
    expect(again.body.error).toBe("SeatNotAvailable");
  });
});

describe("seats of a one-time order", () => {
  it("assigns, claims with the benefit granted within the order, and revokes", async () => {
    const product = await call("/v1/products/", {
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
    await call(`/v1/products/${product.body.id}/benefits`, { body: { benefits: [benefitId] } });
    const checkout = await call("/v1/checkouts/", {
      body: { products: [product.body.id], seats: 1 },
    });
    await api(t.url, `/v1/checkouts/client/${checkout.body.client_secret}/confirm`, {
      body: {
        customer_email: email("pack"),
        customer_billing_address: { country: "US" },
        confirmation_token_id: "sandbox_token_success",
      },
    });
    const orderId = (await call(`/v1/orders/?checkout_id=${checkout.body.id}`)).body.items[0].id;
    const seat = await call("/v1/customer-seats", {
      body: { order_id: orderId, email: email("packmate"), immediate_claim: true },
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
    const full = await call("/v1/customer-seats", {
      body: { order_id: orderId, email: email("no") },
    });
    expect(full.body.error).toBe("SeatNotAvailable");
    const revoked = await call(`/v1/customer-seats/${seat.body.id}`, { method: "DELETE" });
    expect(revoked.body.status).toBe("revoked");
    expect(await grantsOf(seat.body.customer_id)).toEqual([
      { pending_action: "revoke", revoked_at: null },
    ]);
  });
});

describe("seats in the customer portal", () => {
  it("lets the buyer list, assign, resend and revoke; another customer finds nothing", async () => {
    const sub = await seatSubscription(2);
    const session = async (customerId: string) =>
      (await call("/v1/customer-sessions/", { body: { customer_id: customerId } })).body
        .token as string;
    const mine = await session(sub.customerId);
    const stranger = await session((await seatSubscription(1)).customerId);
    const portal = (token: string, path: string, init: { method?: string; body?: unknown } = {}) =>
      api(t.url, `/v1/customer-portal/seats${path}`, { token, ...init });

    const assigned = await portal(mine, "", {
      body: { subscription_id: sub.subscriptionId, email: email("p") },
    });
    expect(assigned.status, JSON.stringify(assigned.body)).toBe(200);
    expect(assigned.body.status).toBe("pending");
    const list = await portal(mine, `?subscription_id=${sub.subscriptionId}`);
    expect(list.body).toMatchObject({ total_seats: 2, available_seats: 1 });

    const before = await snapshot();
    for (const res of [
      await portal(stranger, `?subscription_id=${sub.subscriptionId}`),
      await portal(stranger, "", {
        body: { subscription_id: sub.subscriptionId, email: email("q") },
      }),
      await portal(stranger, `/${assigned.body.id}`, { method: "DELETE" }),
      await portal(stranger, `/${assigned.body.id}/resend`, { method: "POST" }),
    ])
      expect(res.status, JSON.stringify(res.body)).toBe(404);
    expect(await snapshot()).toEqual(before);
    expect((await portal(seller.token, `?subscription_id=${sub.subscriptionId}`)).status).toBe(401);

    expect((await portal(mine, `/${assigned.body.id}/resend`, { method: "POST" })).status).toBe(
      200,
    );
    const revoked = await portal(mine, `/${assigned.body.id}`, { method: "DELETE" });
    expect([revoked.status, revoked.body.status]).toEqual([200, "revoked"]);
  });
});
