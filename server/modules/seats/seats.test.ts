// The seats API over HTTP against a real database: a seat-based subscription's seats assigned by
// invitation (mailed through the outbox), claimed once with the token, revoked (the holder's
// benefits with it), never beyond what was bought, even when assignments race; another
// organization's token finding nothing; bad input refused in Polar's error shape with nothing
// changed. Every change records its customer_seat.* event.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "../../../test/helpers/auth.ts";
import { seatsWorld, type SeatsWorld } from "../../../test/helpers/seats.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

let t: TestServer;
let w: SeatsWorld;

beforeAll(async () => {
  t = await startTestServer({ worker: false });
  w = await seatsWorld(t);
});
afterAll(() => t?.stop());

describe("seats of a subscription", () => {
  it("assigns by invitation, claims once, grants the benefit, revokes it with the seat", async () => {
    const sub = await w.seatSubscription(2);
    const holder = w.email("holder");
    const assigned = await w.call("/v1/customer-seats", {
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

    const token = await w.tokenMailedTo(holder);
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
    expect(await w.grantsOf(holderId)).toEqual([{ pending_action: "grant", revoked_at: null }]);

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

    const list = await w.call(`/v1/customer-seats?subscription_id=${sub.subscriptionId}`);
    expect(list.body).toMatchObject({ total_seats: 2, available_seats: 1 });

    const revoked = await w.call(`/v1/customer-seats/${seat.id}`, { method: "DELETE" });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ status: "revoked", customer_id: null });
    expect(await w.grantsOf(holderId)).toEqual([{ pending_action: "revoke", revoked_at: null }]);
    expect(await w.seatEvents(seat.id)).toEqual([
      "customer_seat.assigned",
      "customer_seat.claimed",
      "customer_seat.revoked",
    ]);
    const after = await w.call(`/v1/customer-seats?subscription_id=${sub.subscriptionId}`);
    expect(after.body).toMatchObject({ total_seats: 2, available_seats: 2, seats: [] });
  });

  it("never assigns beyond the seats bought, nor the same person twice", async () => {
    const sub = await w.seatSubscription(2);
    const first = w.email("a");
    for (const who of [first, w.email("b")]) {
      const res = await w.call("/v1/customer-seats", {
        body: { subscription_id: sub.subscriptionId, email: who },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    const before = await w.snapshot();
    const over = await w.call("/v1/customer-seats", {
      body: { subscription_id: sub.subscriptionId, email: w.email("c") },
    });
    expect([over.status, over.body.error]).toEqual([400, "SeatNotAvailable"]);
    expect(typeof over.body.detail).toBe("string");
    expect(await w.snapshot()).toEqual(before);
    const fewer = await w.call(`/v1/subscriptions/${sub.subscriptionId}`, {
      method: "PATCH",
      body: { seats: 1, proration_behavior: "prorate" },
    });
    expect([fewer.status, fewer.body.detail?.[0]?.loc]).toEqual([422, ["body", "seats"]]);
    expect((await w.call(`/v1/subscriptions/${sub.subscriptionId}`)).body.seats).toBe(2);

    const revokedOne = (await w.call(`/v1/customer-seats?subscription_id=${sub.subscriptionId}`))
      .body.seats[0];
    await w.call(`/v1/customer-seats/${revokedOne.id}`, { method: "DELETE" });
    const twice = await w.call("/v1/customer-seats", {
      body: {
        subscription_id: sub.subscriptionId,
        email: revokedOne.email === first ? w.email("d") : first,
      },
    });
    expect(twice.status).toBe(200);
    const dup = await w.call("/v1/customer-seats", {
      body: { subscription_id: sub.subscriptionId, email: twice.body.email },
    });
    expect(dup.status).toBe(400);
  });

  it("gives the last seats to exactly as many concurrent assignments as there are seats", async () => {
    const sub = await w.seatSubscription(2);
    const answers = await Promise.all(
      [1, 2, 3, 4, 5].map(() =>
        w.call("/v1/customer-seats", {
          body: { subscription_id: sub.subscriptionId, email: w.email("race") },
        }),
      ),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 400, 400, 400]);
    const list = await w.call(`/v1/customer-seats?subscription_id=${sub.subscriptionId}`);
    expect(list.body).toMatchObject({ total_seats: 2, available_seats: 0 });
  });

  it("claims at once when asked, and resends a pending invitation with a new link", async () => {
    const sub = await w.seatSubscription(3);
    const now = await w.call("/v1/customer-seats", {
      body: { subscription_id: sub.subscriptionId, email: w.email("now"), immediate_claim: true },
    });
    expect(now.body).toMatchObject({ status: "claimed", invitation_token_expires_at: null });
    expect(await w.seatEvents(now.body.id)).toEqual(["customer_seat.claimed"]);
    const resendClaimed = await w.call(`/v1/customer-seats/${now.body.id}/resend`, {
      method: "POST",
    });
    expect([resendClaimed.status, resendClaimed.body.error]).toEqual([400, "SeatNotPending"]);

    const later = w.email("later");
    const pending = await w.call("/v1/customer-seats", {
      body: { subscription_id: sub.subscriptionId, email: later },
    });
    const oldToken = await w.tokenMailedTo(later);
    const resent = await w.call(`/v1/customer-seats/${pending.body.id}/resend`, { method: "POST" });
    expect(resent.status).toBe(200);
    const newToken = await w.tokenMailedTo(later);
    expect(newToken).not.toBe(oldToken);
    expect((await api(t.url, `/v1/customer-seats/claim/${oldToken}`)).status).toBe(404);
    expect((await api(t.url, `/v1/customer-seats/claim/${newToken}`)).status).toBe(200);
  });

  it("refuses a purchase that is not seat-based, and bad input, changing nothing", async () => {
    const sub = await w.seatSubscription(2);
    const plain = await w.call("/v1/products/", {
      body: { name: "Solo", prices: [{ amount_type: "free" }] },
    });
    const order = await w.call("/v1/checkouts/", { body: { products: [plain.body.id] } });
    await api(t.url, `/v1/checkouts/client/${order.body.client_secret}/confirm`, {
      body: { customer_email: w.email("solo") },
    });
    const orderId = (await w.call(`/v1/orders/?checkout_id=${order.body.id}`)).body.items[0].id;
    const before = await w.snapshot();
    const cases: [unknown, number, string][] = [
      [{ order_id: orderId, email: w.email("x") }, 400, "SeatNotAvailable"],
      [{ subscription_id: sub.subscriptionId }, 400, "InvalidSeatAssignmentRequest"],
      [
        { subscription_id: sub.subscriptionId, email: "a@b.co", customer_id: sub.customerId },
        400,
        "InvalidSeatAssignmentRequest",
      ],
      [{ email: w.email("y") }, 400, "InvalidSeatAssignmentRequest"],
      [
        { subscription_id: sub.subscriptionId, email: "not-an-email" },
        422,
        "RequestValidationError",
      ],
      [{ subscription_id: "nope", email: w.email("z") }, 422, "RequestValidationError"],
      [
        { subscription_id: sub.subscriptionId, customer_id: crypto.randomUUID() },
        404,
        "CustomerNotFound",
      ],
    ];
    for (const [body, status, error] of cases) {
      const res = await w.call("/v1/customer-seats", { body });
      expect([res.status, res.body.error], JSON.stringify(res.body)).toEqual([status, error]);
      expect(res.body.detail).toBeDefined();
    }
    expect((await w.call("/v1/customer-seats/not-a-uuid", { method: "DELETE" })).status).toBe(422);
    const noToken = await api(t.url, "/v1/customer-seats/claim", { body: {} });
    expect([noToken.status, noToken.body.error]).toEqual([422, "RequestValidationError"]);
    const badToken = await api(t.url, "/v1/customer-seats/claim", {
      body: { invitation_token: "till_seat_guess" },
    });
    expect([badToken.status, badToken.body.error]).toEqual([400, "InvalidInvitationToken"]);
    expect(await w.snapshot()).toEqual(before);
  });

  it("answers another organization's token with 404 and changes nothing", async () => {
    const sub = await w.seatSubscription(2);
    const seat = (
      await w.call("/v1/customer-seats", {
        body: { subscription_id: sub.subscriptionId, email: w.email("t") },
      })
    ).body;
    const before = await w.snapshot();
    const theirs = (path: string, init: { method?: string; body?: unknown } = {}) =>
      api(t.url, path, { token: w.other.token, ...init });
    for (const res of [
      await theirs("/v1/customer-seats", {
        body: { subscription_id: sub.subscriptionId, email: w.email("u") },
      }),
      await theirs(`/v1/customer-seats?subscription_id=${sub.subscriptionId}`),
      await theirs(`/v1/customer-seats/${seat.id}`, { method: "DELETE" }),
      await theirs(`/v1/customer-seats/${seat.id}/resend`, { method: "POST" }),
    ]) {
      expect(res.status, JSON.stringify(res.body)).toBe(404);
      expect(res.body.error).toBe("ResourceNotFound");
    }
    expect(await w.snapshot()).toEqual(before);
  });
});
