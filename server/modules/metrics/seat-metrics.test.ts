// The seat metrics of GET /v1/metrics/ against hand-computed figures: two buyers' seats given,
// claimed and revoked at known times on the test clock, bucketed by month and filtered by product.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestClock } from "../../lib/clock.ts";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { seatProduct } from "../../../test/helpers/billing.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { openMailLink } from "../../../test/helpers/browser.ts";
import { US_ADDRESS } from "../../../test/helpers/addresses.ts";

let t: TestServer;
let token: string;
const clock = new TestClock();
const products: Record<string, string> = {};

const call = (path: string, init: { method?: string; body?: unknown } = {}) =>
  api(t.url, path, { token, ...init });

/** A seat-based subscription bought at the given instant; returns its id. */
async function buy(productId: string, seats: number, at: string, email: string) {
  clock.set(new Date(at));
  const checkout = await call("/v1/checkouts/", { body: { products: [productId], seats } });
  const confirmed = await call(`/v1/checkouts/client/${checkout.body.client_secret}/confirm`, {
    body: {
      customer_email: email,
      customer_billing_address: US_ADDRESS,
      confirmation_token_id: "sandbox_token_success",
    },
  });
  expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
  return (await call(`/v1/checkouts/${checkout.body.id}`)).body.subscription_id as string;
}

async function assign(subscriptionId: string, email: string, at: string, immediate: boolean) {
  clock.set(new Date(at));
  const res = await call("/v1/customer-seats", {
    body: { subscription_id: subscriptionId, email, immediate_claim: immediate },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.id as string;
}

async function claimInvitation(to: string, at: string) {
  const [mail] = await t.server.database.rows<{ link: string }>(
    sql`select link from email_outbox where "to" = ${to} and kind = 'seat-invitation'`,
  );
  clock.set(new Date(at));
  const invitation_token = new URL(openMailLink(mail!.link)).searchParams.get("invitation_token");
  const res = await api(t.url, "/v1/customer-seats/claim", { body: { invitation_token } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

const SEATS = [
  "seats_total",
  "seats_claimed",
  "seats_pending",
  "seat_customers",
  "new_seat_customers",
  "churned_seat_customers",
  "average_seats_per_customer",
  "seat_utilization_rate",
];
const metrics = (extra = "") =>
  call(
    `/v1/metrics/?start_date=2026-03-01&end_date=2026-05-31&interval=month${SEATS.map((m) => `&metrics=${m}`).join("")}${extra}`,
  );

beforeAll(async () => {
  clock.set(new Date("2026-02-15T12:00:00Z"));
  t = await startTestServer({ clock, worker: false });
  const seller = await createSeller(t.url, [
    "products:write",
    "checkouts:write",
    "subscriptions:write",
    "metrics:read",
    "customer_seats:write",
  ]);
  token = seller.token;
  products.team = await seatProduct(call, "Team");
  products.studio = await seatProduct(call, "Studio");
  // March: Ann buys 3 seats, gives one claimed at once and one by invitation.
  const ann = await buy(products.team, 3, "2026-03-05T10:00:00Z", "ann@example.com");
  await assign(ann, "a1@example.com", "2026-03-06T10:00:00Z", true);
  await assign(ann, "a2@example.com", "2026-03-31T20:00:00Z", false);
  // April: the invitation is claimed within its day; Bo buys 2 seats and gives one.
  await claimInvitation("a2@example.com", "2026-04-01T10:00:00Z");
  const bo = await buy(products.studio, 2, "2026-04-10T10:00:00Z", "bo@example.com");
  const boSeat = await assign(bo, "b1@example.com", "2026-04-11T10:00:00Z", true);
  // May: Bo's only seat is revoked.
  clock.set(new Date("2026-05-15T10:00:00Z"));
  expect((await call(`/v1/customer-seats/${boSeat}`, { method: "DELETE" })).status).toBe(200);
});
afterAll(() => t?.stop());

describe("seat metrics", () => {
  it("counts seats live at each period's end, their buyers, new and churned", async () => {
    const res = await metrics();
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [march, april, may] = res.body.periods;
    expect(march).toMatchObject({
      seats_total: 2,
      seats_claimed: 1,
      seats_pending: 1,
      seat_customers: 1,
      new_seat_customers: 1,
      churned_seat_customers: 0,
      average_seats_per_customer: 2,
      seat_utilization_rate: 0.5,
    });
    expect(april).toMatchObject({
      seats_total: 3,
      seats_claimed: 3,
      seats_pending: 0,
      seat_customers: 2,
      new_seat_customers: 1,
      churned_seat_customers: 0,
      average_seats_per_customer: 1.5,
      seat_utilization_rate: 1,
    });
    expect(may).toMatchObject({
      seats_total: 2,
      seats_claimed: 2,
      seat_customers: 1,
      new_seat_customers: 0,
      churned_seat_customers: 1,
    });
    expect(res.body.totals).toMatchObject({
      seats_total: 2,
      seat_customers: 1,
      new_seat_customers: 2,
      churned_seat_customers: 1,
      seat_utilization_rate: 1,
    });
  });

  it("filters by product", async () => {
    const res = await metrics(`&product_id=${products.studio}`);
    const [march, april, may] = res.body.periods;
    expect(march).toMatchObject({ seats_total: 0, seat_customers: 0 });
    expect(april).toMatchObject({ seats_total: 1, seats_claimed: 1, new_seat_customers: 1 });
    expect(may).toMatchObject({ seats_total: 0, churned_seat_customers: 1 });
  });
});
