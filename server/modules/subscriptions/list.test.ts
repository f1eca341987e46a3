// GET /v1/subscriptions/ with each of Polar's filters: two subscriptions that differ in every
// filtered field, so a filter that were ignored would answer both; another organization's token
// naming the same external id sees none, and bad filter values are a 422 on the parameter; then a
// third subscription shows each sort key ordering all three both ways.
import { Polar } from "@polar-sh/sdk";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { oneDollarOff } from "../../../test/helpers/catalog.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

const SCOPES = [
  "products:write",
  "customers:write",
  "discounts:write",
  "subscriptions:read",
  "subscriptions:write",
];
let t: TestServer;
let token: string;
let other: string;
let a: string;
let b: string;
let discountId: string;

beforeAll(async () => {
  t = await startTestServer();
  const seller = await createSeller(t.url, SCOPES);
  token = seller.token;
  other = (await createSeller(t.url, SCOPES)).token;
  const polar = new Polar({ accessToken: token, serverURL: t.url });
  const free = await polar.products.create({
    name: "Free tier",
    recurringInterval: "month",
    prices: [{ amountType: "free" }],
  });
  const subscribe = async (externalId: string, metadata: Record<string, string | number>) => {
    await polar.customers.create({ email: `${externalId}@example.com`, externalId });
    const res = await api(t.url, "/v1/subscriptions/", {
      token,
      body: { product_id: free.id, external_customer_id: externalId, metadata },
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  a = await subscribe("u1", { plan: "a", n: 1 });
  b = await subscribe("u2", { plan: "b" });
  discountId = (await oneDollarOff(polar, "Launch")).id;
  // Only `a` is discounted, set to cancel and was given a reason; the two started a month apart.
  await t.server.database.rows(sql`
    update subscriptions set discount_id = ${discountId}, cancel_at_period_end = true,
      canceled_at = '2026-03-01T00:00:00Z', customer_cancellation_reason = 'too_expensive',
      started_at = '2026-01-01T00:00:00Z'
    where id = ${a}`);
  await t.server.database.rows(
    sql`update subscriptions set started_at = '2026-02-01T00:00:00Z' where id = ${b}`,
  );
});
afterAll(() => t?.stop());

async function list(query: string, as = token) {
  return api(t.url, `/v1/subscriptions/${query}`, { token: as });
}

async function only(query: string): Promise<string[]> {
  const res = await list(query);
  expect(res.status, query).toBe(200);
  return res.body.items.map((s: { id: string }) => s.id);
}

describe("GET /v1/subscriptions/ filters", () => {
  it("lists both without a filter, newest start first", async () => {
    expect(await only("")).toEqual([b, a]);
  });

  it("by external customer id, within the caller's organization only", async () => {
    expect(await only("?external_customer_id=u1")).toEqual([a]);
    expect(await only("?external_customer_id=u2")).toEqual([b]);
    expect(await only("?external_customer_id=u1&external_customer_id=u2")).toEqual([b, a]);
    expect(await only("?external_customer_id=nobody")).toEqual([]);
    const foreign = await list("?external_customer_id=u1", other);
    expect(foreign.status).toBe(200);
    expect(foreign.body.items).toEqual([]);
  });

  it("by discount, cancellation and cancellation reason", async () => {
    expect(await only(`?discount_id=${discountId}`)).toEqual([a]);
    expect(await only("?cancel_at_period_end=true")).toEqual([a]);
    expect(await only("?cancel_at_period_end=false")).toEqual([b]);
    expect(await only("?customer_cancellation_reason=too_expensive")).toEqual([a]);
    expect(await only("?customer_cancellation_reason=unused")).toEqual([]);
    expect(
      await only("?customer_cancellation_reason=unused&customer_cancellation_reason=too_expensive"),
    ).toEqual([a]);
  });

  it("by cancellation date (bounds included) and start date (bounds left out)", async () => {
    expect(await only("?canceled_at_after=2026-02-15T00:00:00Z")).toEqual([a]);
    expect(await only("?canceled_at_after=2026-03-01T00:00:00Z")).toEqual([a]);
    expect(await only("?canceled_at_before=2026-03-01T00:00:00%2B00:00")).toEqual([a]);
    expect(await only("?canceled_at_after=2026-03-01T00:00:01Z")).toEqual([]);
    expect(await only("?canceled_at_before=2026-02-28T00:00:00Z")).toEqual([]);
    expect(await only("?started_after=2026-01-15T00:00:00Z")).toEqual([b]);
    expect(await only("?started_before=2026-01-15T00:00:00Z")).toEqual([a]);
    expect(
      await only("?started_after=2026-01-01T00:00:00Z&started_before=2026-02-01T00:00:00Z"),
    ).toEqual([]);
  });

  it("by status and metadata, values of one key OR'ed and keys AND'ed", async () => {
    expect(await only("?status=active")).toEqual([b, a]);
    expect(await only("?status=canceled")).toEqual([]);
    expect(await only("?metadata[plan]=a")).toEqual([a]);
    expect(await only("?metadata[plan]=a&metadata[plan]=b")).toEqual([b, a]);
    expect(await only("?metadata[n]=1")).toEqual([a]);
    expect(await only("?metadata[plan]=b&metadata[n]=1")).toEqual([]);
    expect(await only("?external_customer_id=u2&metadata[plan]=a")).toEqual([]);
  });

  it("bad filter values are a 422 on the parameter", async () => {
    for (const [query, loc] of [
      ["?discount_id=nope", "discount_id"],
      ["?customer_cancellation_reason=bored", "customer_cancellation_reason"],
      ["?canceled_at_after=yesterday", "canceled_at_after"],
      ["?canceled_at_before=2026-03-01", "canceled_at_before"],
      ["?started_after=2026-01-01T00:00:00", "started_after"],
      ["?started_before=soon", "started_before"],
      ["?status=sleeping", "status"],
      // The portal's key, not one of SubscriptionSortProperty.
      ["?sorting=organization", "sorting"],
      ["?sorting=-bogus", "sorting"],
    ] as const) {
      const res = await list(query);
      expect(res.status, query).toBe(422);
      expect(res.body.error).toBe("RequestValidationError");
      expect(res.body.detail[0].loc.slice(0, 2)).toEqual(["query", loc]);
    }
  });

  // Runs last: it adds a third subscription, which the filters above do not expect.
  it("sorts by the keys of Polar's SubscriptionSortProperty, both ways", async () => {
    const polar = new Polar({ accessToken: token, serverURL: t.url });
    const atlas = await polar.products.create({
      name: "Atlas",
      recurringInterval: "month",
      prices: [{ amountType: "free" }],
    });
    await polar.customers.create({ email: "zed@example.com", name: "Aaron", externalId: "u3" });
    const created = await api(t.url, "/v1/subscriptions/", {
      token,
      body: { product_id: atlas.id, external_customer_id: "u3" },
    });
    expect(created.status).toBe(201);
    const c = created.body.id as string;
    const zeta = await oneDollarOff(polar, "Zeta");
    // a: Launch, ends in May; b: no discount, ended in March; c: Zeta, ends in April, ended later.
    await t.server.database.rows(sql`
      update subscriptions set ends_at = '2026-05-01T00:00:00Z' where id = ${a}`);
    await t.server.database.rows(sql`
      update subscriptions set ended_at = '2026-03-10T00:00:00Z' where id = ${b}`);
    await t.server.database.rows(sql`
      update subscriptions set discount_id = ${zeta.id}, ends_at = '2026-04-01T00:00:00Z',
        ended_at = '2026-03-20T00:00:00Z'
      where id = ${c}`);
    // a and b share their product: the id breaks the tie, ascending whichever way the key goes.
    const [first, second] = [a, b].sort();
    const cases: [string, string[], string[]][] = [
      // By email: Aaron's zed@ comes last.
      ["customer", [a, b, c], [c, b, a]],
      ["product", [c, first!, second!], [first!, second!, c]],
      // None sorts last ascending, first descending, as PostgreSQL does.
      ["discount", [a, c, b], [b, c, a]],
      ["ends_at", [c, a, b], [b, a, c]],
      ["ended_at", [b, c, a], [a, c, b]],
    ];
    for (const [key, ascending, descending] of cases) {
      expect(await only(`?sorting=${key}`), key).toEqual(ascending);
      expect(await only(`?sorting=-${key}`), `-${key}`).toEqual(descending);
    }
    // As Polar's: the status by its place in a subscription's life (active and canceling after
    // active), the amount per month (a year's 1200 is 100, a week's 20 is 80).
    for (const [id, status, cancel, amount, interval] of [
      [a, "active", true, 1200, "year"],
      [b, "past_due", false, 500, "month"],
      [c, "trialing", false, 20, "week"],
    ] as const) {
      await t.server.database.rows(sql`
        update subscriptions set status = ${status}, cancel_at_period_end = ${cancel},
          amount = ${amount}, recurring_interval = ${interval}
        where id = ${id}`);
    }
    expect(await only("?sorting=status")).toEqual([c, a, b]);
    expect(await only("?sorting=-status")).toEqual([b, a, c]);
    expect(await only("?sorting=amount")).toEqual([c, a, b]);
    expect(await only("?sorting=-amount")).toEqual([b, a, c]);
  });
});
