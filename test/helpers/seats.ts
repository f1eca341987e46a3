// The seats tests' world: a seller (and another organization) with the seats scopes, a benefit to
// grant, seat-based subscriptions bought through the checkout client endpoints, and reads of what
// the API cannot show (the mailed invitation token, events, grants, a snapshot to compare).
import { sql } from "drizzle-orm";
import { expect } from "vitest";
import { api, createSeller } from "./auth.ts";
import { BILLING_SCOPES } from "./billing.ts";
import type { TestServer } from "./server.ts";
import { US_ADDRESS } from "./addresses.ts";
import { openMailLink } from "./browser.ts";

export type Seller = Awaited<ReturnType<typeof createSeller>>;
const SCOPES = [...BILLING_SCOPES, "customer_seats:read", "customer_seats:write"];

export type SeatsWorld = Awaited<ReturnType<typeof seatsWorld>>;

export async function seatsWorld(t: TestServer) {
  const seller = await createSeller(t.url, SCOPES);
  const other = await createSeller(t.url, SCOPES);
  const call = (path: string, init: { method?: string; body?: unknown; token?: string } = {}) =>
    api(t.url, path, { token: seller.token, ...init });
  const benefit = await call("/v1/benefits/", {
    body: { type: "custom", description: "Team support", properties: { note: "Hi" } },
  });
  expect(benefit.status, JSON.stringify(benefit.body)).toBe(201);
  const benefitId = benefit.body.id as string;
  let n = 0;
  const email = (who: string) => `${who}-${++n}@example.com`;

  /** A seat-based monthly product with the benefit, bought with `seats` seats (and the token). */
  async function seatSubscription(
    seats: number,
    as: Seller = seller,
    confirmationToken = "sandbox_token_success",
  ) {
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
    const confirmed = await api(
      t.url,
      `/v1/checkouts/client/${checkout.body.client_secret}/confirm`,
      {
        body: {
          customer_email: email("buyer"),
          customer_billing_address: US_ADDRESS,
          confirmation_token_id: confirmationToken,
        },
      },
    );
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    const done = (await api(t.url, `/v1/checkouts/${checkout.body.id}`, { token: as.token })).body;
    return {
      subscriptionId: done.subscription_id as string,
      customerId: done.customer_id as string,
      checkoutId: checkout.body.id as string,
    };
  }

  async function tokenMailedTo(to: string): Promise<string> {
    const [mail] = await t.server.database.rows<{ link: string }>(
      sql`select link from email_outbox where "to" = ${to} and kind = 'seat-invitation'
          order by created_at desc limit 1`,
    );
    return new URL(openMailLink(mail!.link)).searchParams.get("invitation_token")!;
  }

  async function seatEvents(seatId: string) {
    const rows = await t.server.database.rows<{ type: string }>(
      sql`select type from webhook_events where payload->'data'->>'id' = ${seatId}
          order by created_at, id`,
    );
    return rows.map((r) => r.type);
  }

  function grantsOf(customerId: string) {
    return t.server.database.rows<{ pending_action: string | null; revoked_at: Date | null }>(
      sql`select pending_action, revoked_at from benefit_grants where customer_id = ${customerId}`,
    );
  }

  /** The seats and the count of seat events, to show a refused change changed nothing. */
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

  return {
    seller,
    other,
    benefitId,
    call,
    email,
    seatSubscription,
    tokenMailedTo,
    seatEvents,
    grantsOf,
    snapshot,
  };
}
