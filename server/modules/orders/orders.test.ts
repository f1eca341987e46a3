// Orders over HTTP: the orders a purchase makes, read through Polar's client (which checks the wire
// shape), listed with each filter, sorted and paged; another organization's token sees none of them,
// a token without orders:read is refused, and bad query input is a 422.
import { Polar } from "@polar-sh/sdk";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { buy } from "../../../test/helpers/grants.ts";
import { oneDollarOff } from "../../../test/helpers/catalog.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

const SCOPES = [
  "products:write",
  "checkouts:write",
  "orders:read",
  "customers:write",
  "discounts:write",
];
let t: TestServer;
let polar: Polar;
let organizationId: string;
let token: string;
let other: string;
let oneTime: Awaited<ReturnType<typeof buy>>;
let monthly: Awaited<ReturnType<typeof buy>>;

beforeAll(async () => {
  t = await startTestServer();
  const seller = await createSeller(t.url, SCOPES);
  organizationId = seller.organization.id;
  token = seller.token;
  other = (await createSeller(t.url, SCOPES)).token;
  polar = new Polar({ accessToken: token, serverURL: t.url });
  const ebook = await polar.products.create({
    name: "Ebook",
    prices: [{ amountType: "fixed", priceAmount: 900, priceCurrency: "usd" }],
  });
  const pro = await polar.products.create({
    name: "Pro",
    recurringInterval: "month",
    prices: [{ amountType: "fixed", priceAmount: 1500, priceCurrency: "usd" }],
  });
  oneTime = await buy(polar, organizationId, ebook.id, "ada@buyer.example");
  monthly = await buy(polar, organizationId, pro.id, "grace@buyer.example");
});
afterAll(() => t.stop());

async function list(query: string, as = token) {
  return api(t.url, `/v1/orders/${query}`, { token: as });
}

describe("/v1/orders", () => {
  it("a purchase makes one paid order, read back through Polar's client", async () => {
    expect(oneTime).toMatchObject({ status: "paid", paid: true, billingReason: "purchase" });
    expect(monthly).toMatchObject({ status: "paid", billingReason: "subscription_create" });
    expect(monthly.subscriptionId).toBeTruthy();
    expect(oneTime.subscriptionId).toBeNull();
    const read = await polar.orders.get({ id: oneTime.id });
    expect(read).toMatchObject({
      id: oneTime.id,
      totalAmount: 900,
      currency: "usd",
      product: { name: "Ebook" },
      customer: { email: "ada@buyer.example" },
    });
    expect(read.items).toHaveLength(1);
  });

  it("lists newest first, filters by product, customer, checkout and subscription, sorts and pages", async () => {
    const all = await list("");
    expect(all.status).toBe(200);
    expect(all.body.items.map((o: { id: string }) => o.id)).toEqual([monthly.id, oneTime.id]);
    expect(all.body.pagination).toEqual({ total_count: 2, max_page: 1 });

    const only = async (query: string) =>
      (await list(query)).body.items.map((o: { id: string }) => o.id);
    expect(await only(`?product_id=${oneTime.productId}`)).toEqual([oneTime.id]);
    expect(await only(`?customer_id=${monthly.customerId}`)).toEqual([monthly.id]);
    expect(await only(`?checkout_id=${oneTime.checkoutId}`)).toEqual([oneTime.id]);
    expect(await only(`?subscription_id=${monthly.subscriptionId}`)).toEqual([monthly.id]);
    expect(await only(`?product_id=${oneTime.productId}&product_id=${monthly.productId}`)).toEqual([
      monthly.id,
      oneTime.id,
    ]);
    expect(await only("?sorting=net_amount")).toEqual([oneTime.id, monthly.id]);
    expect(await only("?sorting=-net_amount")).toEqual([monthly.id, oneTime.id]);

    const page2 = await list("?limit=1&page=2");
    expect(page2.body.pagination).toEqual({ total_count: 2, max_page: 2 });
    expect(page2.body.items.map((o: { id: string }) => o.id)).toEqual([oneTime.id]);
  });

  it("filters by external customer id, discount, status, creation time, billing type and metadata", async () => {
    const only = async (query: string) => {
      const res = await list(query);
      expect(res.status, query).toBe(200);
      return res.body.items.map((o: { id: string }) => o.id);
    };
    // Only the one-time order carries each of these; before the changes every filter sees both.
    await polar.customers.update({ id: oneTime.customerId, customerUpdate: { externalId: "u1" } });
    await polar.customers.update({ id: monthly.customerId, customerUpdate: { externalId: "u2" } });
    const discount = await oneDollarOff(polar, "Launch");
    await t.server.database.rows(sql`
      update orders set discount_id = ${discount.id}, status = 'partially_refunded',
        created_at = '2026-01-01T00:00:00Z', metadata = '{"source": "ads", "n": 1}'::jsonb
      where id = ${oneTime.id}`);
    await t.server.database.rows(sql`
      update orders set created_at = '2026-02-01T00:00:00Z', metadata = '{"source": "seo"}'::jsonb
      where id = ${monthly.id}`);

    expect(await only("?external_customer_id=u1")).toEqual([oneTime.id]);
    expect(await only("?external_customer_id=u2")).toEqual([monthly.id]);
    expect(await only("?external_customer_id=u1&external_customer_id=u2")).toEqual([
      monthly.id,
      oneTime.id,
    ]);
    expect(await only("?external_customer_id=nobody")).toEqual([]);
    expect(await only(`?discount_id=${discount.id}`)).toEqual([oneTime.id]);
    expect(await only("?status=partially_refunded")).toEqual([oneTime.id]);
    expect(await only("?status=paid")).toEqual([monthly.id]);
    expect(await only("?status=paid&status=partially_refunded")).toEqual([monthly.id, oneTime.id]);
    expect(await only("?created_after=2026-01-15T00:00:00Z")).toEqual([monthly.id]);
    expect(await only("?created_before=2026-01-15T00:00:00%2B00:00")).toEqual([oneTime.id]);
    // Strictly after and before: the bounds themselves are left out.
    expect(
      await only("?created_after=2026-01-01T00:00:00Z&created_before=2026-02-01T00:00:00Z"),
    ).toEqual([]);
    expect(await only("?product_billing_type=one_time")).toEqual([oneTime.id]);
    expect(await only("?product_billing_type=recurring")).toEqual([monthly.id]);
    expect(await only("?product_billing_type=recurring&product_billing_type=one_time")).toEqual([
      monthly.id,
      oneTime.id,
    ]);
    expect(await only("?metadata[source]=ads")).toEqual([oneTime.id]);
    expect(await only("?metadata[source]=ads&metadata[source]=seo")).toEqual([
      monthly.id,
      oneTime.id,
    ]);
    expect(await only("?metadata[n]=1")).toEqual([oneTime.id]);
    expect(await only("?metadata[source]=seo&metadata[n]=1")).toEqual([]);
    // Filters combine: u1's orders paid in full are none.
    expect(await only("?external_customer_id=u1&status=paid")).toEqual([]);
    // Another organization's token naming the same external id sees nothing.
    expect((await list("?external_customer_id=u1", other)).body.items).toEqual([]);
  });

  it("another organization's token sees no order: 404 and an empty list", async () => {
    const read = await api(t.url, `/v1/orders/${oneTime.id}`, { token: other });
    expect(read.status).toBe(404);
    expect(read.body.error).toBe("ResourceNotFound");
    const listed = await list("", other);
    expect(listed.status).toBe(200);
    expect(listed.body.items).toEqual([]);
    // Naming the first organization filters to it: still nothing.
    const named = await list(`?organization_id=${organizationId}`, other);
    expect(named.status).toBe(200);
    expect(named.body.items).toEqual([]);
  });

  it("a token without orders:read is refused; no token is a 401", async () => {
    const narrow = await createSeller(t.url, ["products:read"]);
    expect((await list("", narrow.token)).status).toBe(403);
    expect((await api(t.url, "/v1/orders/")).status).toBe(401);
  });

  it("bad query input is a 422 on the parameter", async () => {
    for (const [query, loc] of [
      ["?product_id=not-a-uuid", ["query", "product_id"]],
      ["?sorting=bogus", ["query", "sorting"]],
      // The portal's key for subscriptions, not one of OrderSortProperty.
      ["?sorting=-organization", ["query", "sorting"]],
      ["?limit=0", ["query", "limit"]],
      ["?status=settled", ["query", "status"]],
      ["?discount_id=not-a-uuid", ["query", "discount_id"]],
      ["?product_billing_type=monthly", ["query", "product_billing_type"]],
      ["?created_after=yesterday", ["query", "created_after"]],
      ["?created_before=2026-01-01", ["query", "created_before"]],
      ["?metadata[]=x", ["query", "metadata"]],
    ] as const) {
      const res = await list(query);
      expect(res.status, query).toBe(422);
      expect(res.body.error).toBe("RequestValidationError");
      expect(res.body.detail[0].loc.slice(0, 2)).toEqual(loc);
    }
    const badId = await api(t.url, "/v1/orders/not-a-uuid", { token });
    expect(badId.status).toBe(422);
    expect(badId.body.detail[0].loc).toEqual(["path", "id"]);
  });

  // Runs last: it adds a third order, which the lists above do not expect.
  it("sorts by every key of Polar's OrderSortProperty, both ways, and pages without repeats", async () => {
    const atlas = await polar.products.create({
      name: "Atlas",
      recurringInterval: "month",
      prices: [{ amountType: "fixed", priceAmount: 500, priceCurrency: "usd" }],
    });
    const third = await buy(polar, organizationId, atlas.id, "zed@buyer.example");
    const zeta = await oneDollarOff(polar, "Zeta");
    // The one-time order is partially refunded with the discount Launch (the test above); the third
    // is pending with Zeta, and its customer's name comes first though the email comes last.
    await t.server.database.rows(sql`
      update orders set status = 'pending', discount_id = ${zeta.id} where id = ${third.id}`);
    await t.server.database.rows(
      sql`update customers set name = 'Aaron' where id = ${third.customerId}`,
    );
    for (const [id, number] of [
      [oneTime.id, "T-0003"],
      [monthly.id, "T-0001"],
      [third.id, "T-0002"],
    ] as const) {
      await t.server.database.rows(
        sql`update orders set invoice_number = ${number} where id = ${id}`,
      );
    }
    const ids = async (query: string) => {
      const res = await list(query);
      expect(res.status, query).toBe(200);
      return res.body.items.map((o: { id: string }) => o.id);
    };
    const [o1, o2, o3] = [oneTime.id, monthly.id, third.id];
    const bySubscription = [monthly, third]
      .sort((x, y) => (x.subscriptionId! < y.subscriptionId! ? -1 : 1))
      .map((o) => o.id);
    const ascending: [string, string[]][] = [
      // Polar's order of an order's life: pending, paid, partially refunded (not alphabetical).
      ["status", [o3, o2, o1]],
      ["invoice_number", [o2, o3, o1]],
      ["customer", [o1, o2, o3]],
      ["product", [o3, o1, o2]],
      // No discount or subscription sorts last ascending, first descending, as PostgreSQL does.
      ["discount", [o1, o3, o2]],
      ["subscription", [...bySubscription, o1]],
    ];
    for (const [key, order] of ascending) {
      expect(await ids(`?sorting=${key}`), key).toEqual(order);
      expect(await ids(`?sorting=-${key}`), `-${key}`).toEqual([...order].reverse());
    }
    // Pages one row long walk the whole list once, in the list's order.
    for (const query of ["?sorting=-subscription", "?sorting=status&sorting=-customer"]) {
      const whole = await ids(query);
      const paged = [];
      for (let page = 1; page <= 3; page++)
        paged.push(...(await ids(`${query}&limit=1&page=${page}`)));
      expect(paged, query).toEqual(whole);
    }
    // amount sorts by the net amount, as Polar's: o3 is the smallest net and the largest total.
    for (const [id, net, total] of [
      [o1, 100, 100],
      [o2, 200, 200],
      [o3, 50, 900],
    ] as const) {
      await t.server.database.rows(
        sql`update orders set net_amount = ${net}, total_amount = ${total} where id = ${id}`,
      );
    }
    expect(await ids("?sorting=amount")).toEqual([o3, o1, o2]);
    expect(await ids("?sorting=-amount")).toEqual([o2, o1, o3]);
  });
});
