// Polar's SDKs against a real till for seats and wallets, the newest line (1.x, `createPolar`,
// 2026-10) and the 0.47 line (strict parsing of every answer): the seller's
// customer seats (assign by subscription and by checkout, list, resend, revoke), the public claim
// (info, claim with the mailed token), the buyer's portal seats and claimed subscriptions, and the
// portal's wallets after a downgrade credited the customer's balance.
import { sql } from "drizzle-orm";
import { createPolar } from "polar-sdk-1/2026-10";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCOPES } from "../../server/lib/scopes.ts";
import { createSeller } from "../helpers/auth.ts";
import { polarClient } from "../helpers/polar.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { openMailLink } from "../helpers/browser.ts";
import { US_ADDRESS } from "../helpers/addresses.ts";

type Polar = ReturnType<typeof createPolar>;
let t: TestServer;
let seller: Polar;

beforeAll(async () => {
  t = await startTestServer();
  const account = await createSeller(t.url, [...SCOPES]);
  seller = createPolar({ accessToken: account.token, baseUrl: t.url });
});
afterAll(() => t?.stop());

async function buy(productId: string, email: string, seats?: number, as: Polar = seller) {
  const checkout = await as.checkouts.create({
    products: [productId],
    ...(seats ? { seats } : {}),
  });
  await as.checkouts.clientUpdate(checkout.client_secret, {
    customer_email: email,
    customer_billing_address: US_ADDRESS,
  });
  await as.checkouts.clientConfirm(checkout.client_secret, {
    confirmation_token_id: "sandbox_token_success",
  });
  return as.checkouts.get(checkout.id);
}

async function tokenMailedTo(to: string): Promise<string> {
  const [mail] = await t.server.database.rows<{ link: string }>(
    sql`select link from email_outbox where "to" = ${to} and kind = 'seat-invitation'
        order by created_at desc limit 1`,
  );
  return new URL(openMailLink(mail!.link)).searchParams.get("invitation_token")!;
}

describe("SDK 1.x: seats and wallets", () => {
  it("customer seats: assign, list, resend, claim, revoke, and the buyer's portal seats", async () => {
    const team = await seller.products.create({
      name: "Team",
      recurring_interval: "month",
      prices: [
        {
          amount_type: "seat_based",
          seat_tiers: { tiers: [{ min_seats: 1, price_per_seat: 800 }] },
        },
      ],
    });
    const bought = await buy(team.id, "team-buyer@example.com", 3);
    const subscriptionId = bought.subscription_id!;

    const seat = await seller.customerSeats.assignSeat({
      subscription_id: subscriptionId,
      email: "holder@example.com",
    });
    expect(seat).toMatchObject({ status: "pending", subscription_id: subscriptionId });
    const byCheckout = await seller.customerSeats.assignSeat({
      checkout_id: bought.id,
      email: "second@example.com",
    } as Parameters<Polar["customerSeats"]["assignSeat"]>[0]);
    expect(byCheckout.subscription_id).toBe(subscriptionId);
    const listed = await seller.customerSeats.listSeats({ subscription_id: subscriptionId });
    expect(listed).toMatchObject({ total_seats: 3, available_seats: 1 });
    expect((await seller.customerSeats.resendInvitation(seat.id)).id).toBe(seat.id);

    const token = await tokenMailedTo("holder@example.com");
    const info = await seller.customerSeats.getClaimInfo(token);
    expect(info).toMatchObject({ product_name: "Team", can_claim: true });
    const claimed = await seller.customerSeats.claimSeat({ invitation_token: token });
    expect(claimed.seat.status).toBe("claimed");

    const session = await seller.customerSessions.create({ customer_id: bought.customer_id! });
    const buyer = createPolar({ accessToken: session.token, baseUrl: t.url });
    const mine = await buyer.customerPortal.seats.listSeats({ subscription_id: subscriptionId });
    expect(mine.seats.map((s) => s.id)).toEqual(expect.arrayContaining([seat.id, byCheckout.id]));
    const third = await buyer.customerPortal.seats.assignSeat({
      subscription_id: subscriptionId,
      email: "third@example.com",
    });
    expect((await buyer.customerPortal.seats.resendInvitation(third.id)).id).toBe(third.id);
    expect((await buyer.customerPortal.seats.revokeSeat(third.id)).status).toBe("revoked");

    const holderSession = await seller.customerSessions.create({
      customer_id: claimed.seat.customer_id!,
    });
    const holder = createPolar({ accessToken: holderSession.token, baseUrl: t.url });
    const subs = await holder.customerPortal.seats.listClaimedSubscriptions();
    expect(subs.items.map((s) => s.id)).toContain(subscriptionId);

    expect((await seller.customerSeats.revokeSeat(seat.id)).status).toBe("revoked");
  });

  it("wallets: a downgrade's credit is the buyer's balance, listed and read in the portal", async () => {
    const price = (cents: number) => [
      { amount_type: "fixed" as const, price_amount: cents, price_currency: "usd" as const },
    ];
    const pro = await seller.products.create({
      name: "Pro",
      recurring_interval: "month",
      prices: price(3000),
    });
    const lite = await seller.products.create({
      name: "Lite",
      recurring_interval: "month",
      prices: price(1000),
    });
    const bought = await buy(pro.id, "wallet-buyer@example.com");
    await seller.subscriptions.update(bought.subscription_id!, {
      product_id: lite.id,
      proration_behavior: "invoice",
    });
    const session = await seller.customerSessions.create({ customer_id: bought.customer_id! });
    const buyer = createPolar({ accessToken: session.token, baseUrl: t.url });
    const wallets = await buyer.customerPortal.wallets.list();
    expect(wallets.items).toHaveLength(1);
    const wallet = wallets.items[0]!;
    // Most of a $20 difference is left of the month just bought.
    expect(wallet).toMatchObject({ currency: "usd", customer_id: bought.customer_id });
    expect(wallet.balance).toBeGreaterThan(1900);
    expect(wallet.balance).toBeLessThanOrEqual(2000);
    expect(await buyer.customerPortal.wallets.get(wallet.id)).toMatchObject({
      id: wallet.id,
      balance: wallet.balance,
    });
  });
});

// The same calls through the 0.47 line, which parses every answer strictly with zod.
describe("SDK 0.47: seats and wallets", () => {
  it("seats and the portal's wallets parse", async () => {
    const account = await createSeller(t.url, [...SCOPES]);
    const v1 = createPolar({ accessToken: account.token, baseUrl: t.url });
    const polar = polarClient(t, account.token);
    const team = await v1.products.create({
      name: "Team",
      recurring_interval: "month",
      prices: [
        {
          amount_type: "seat_based",
          seat_tiers: { tiers: [{ min_seats: 1, price_per_seat: 500 }] },
        },
      ],
    });
    const done = await buy(team.id, "team-047@example.com", 2, v1);
    const checkout = done;
    const subscriptionId = done.subscription_id!;

    const seat = await polar.customerSeats.assignSeat({
      checkoutId: checkout.id,
      email: "holder-047@example.com",
    });
    expect(seat.subscriptionId).toBe(subscriptionId);
    expect((await polar.customerSeats.listSeats({ subscriptionId })).totalSeats).toBe(2);
    expect((await polar.customerSeats.resendInvitation({ seatId: seat.id })).id).toBe(seat.id);
    const token = await tokenMailedTo("holder-047@example.com");
    expect((await polar.customerSeats.getClaimInfo({ invitationToken: token })).canClaim).toBe(
      true,
    );
    const claimed = await polar.customerSeats.claimSeat({ invitationToken: token });
    expect(claimed.seat.status).toBe("claimed");

    const session = await v1.customerSessions.create({ customer_id: done.customer_id! });
    const mine = await polar.customerPortal.seats.listSeats(
      { customerSession: session.token },
      { subscriptionId },
    );
    expect(mine.seats.map((s) => s.id)).toContain(seat.id);
    expect((await polar.customerSeats.revokeSeat({ seatId: seat.id })).status).toBe("revoked");

    const plan = await v1.products.create({
      name: "Plan",
      recurring_interval: "month",
      prices: [{ amount_type: "fixed", price_amount: 2000, price_currency: "usd" }],
    });
    const cheaper = await v1.products.create({
      name: "Cheaper",
      recurring_interval: "month",
      prices: [{ amount_type: "fixed", price_amount: 500, price_currency: "usd" }],
    });
    const bought = await buy(plan.id, "wallet-047@example.com", undefined, v1);
    await v1.subscriptions.update(bought.subscription_id!, {
      product_id: cheaper.id,
      proration_behavior: "invoice",
    });
    const buyer = await v1.customerSessions.create({ customer_id: bought.customer_id! });
    const page = await polar.customerPortal.wallets.list({ customerSession: buyer.token }, {});
    const wallet = page.result.items[0]!;
    expect(wallet.balance).toBeGreaterThan(1400);
    const one = await polar.customerPortal.wallets.get(
      { customerSession: buyer.token },
      { id: wallet.id },
    );
    expect(one).toMatchObject({ id: wallet.id, balance: wallet.balance, currency: "usd" });
  });
});
