// GET /v1/checkouts/ with Polar's filters: by the seller's external id for the customer (the
// customer's, or the one a checkout was opened with before any customer existed), by status and
// by customer email; another organization's token naming the same external id sees none.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

const SCOPES = ["products:write", "customers:write", "checkouts:read", "checkouts:write"];
let t: TestServer;
let token: string;
let other: string;
let a: string;
let b: string;
let c: string;

async function call(path: string, init: { method?: string; body?: unknown } = {}, as = token) {
  return api(t.url, path, { ...init, token: as });
}

beforeAll(async () => {
  t = await startTestServer();
  token = (await createSeller(t.url, SCOPES)).token;
  other = (await createSeller(t.url, SCOPES)).token;
  const product = await call("/v1/products/", {
    body: {
      name: "Ebook",
      prices: [{ amount_type: "fixed", price_amount: 900, price_currency: "usd" }],
    },
  });
  expect(product.status).toBe(201);
  const open = async (body: Record<string, unknown>) => {
    const res = await call("/v1/checkouts/", { body: { products: [product.body.id], ...body } });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  // `a` names an external id and no customer; `b` a customer whose external id is set afterwards.
  a = await open({ external_customer_id: "u1", customer_email: "ada@buyer.example" });
  const customer = await call("/v1/customers/", { body: { email: "grace@buyer.example" } });
  expect(customer.status).toBe(201);
  b = await open({ customer_id: customer.body.id });
  const linked = await call(`/v1/customers/${customer.body.id}`, {
    method: "PATCH",
    body: { external_id: "u2" },
  });
  expect(linked.status).toBe(200);
  c = await open({});
  await t.server.database.rows(sql`update checkouts set status = 'expired' where id = ${c}`);
});
afterAll(() => t?.stop());

async function only(query: string): Promise<string[]> {
  const res = await call(`/v1/checkouts/${query}`);
  expect(res.status, query).toBe(200);
  return res.body.items.map((x: { id: string }) => x.id);
}

describe("GET /v1/checkouts/ filters", () => {
  it("by external customer id: the customer's or the checkout's own", async () => {
    expect(await only("")).toEqual([c, b, a]);
    expect(await only("?external_customer_id=u1")).toEqual([a]);
    expect(await only("?external_customer_id=u2")).toEqual([b]);
    expect(await only("?external_customer_id=u1&external_customer_id=u2")).toEqual([b, a]);
    expect(await only("?external_customer_id=nobody")).toEqual([]);
    const foreign = await call("/v1/checkouts/?external_customer_id=u1", {}, other);
    expect(foreign.status).toBe(200);
    expect(foreign.body.items).toEqual([]);
  });

  it("by status and by customer email", async () => {
    expect(await only("?status=expired")).toEqual([c]);
    expect(await only("?status=open")).toEqual([b, a]);
    expect(await only("?query=grace")).toEqual([b]);
    expect(await only("?query=grace&external_customer_id=u1")).toEqual([]);
    const bad = await call("/v1/checkouts/?status=pending");
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc.slice(0, 2)).toEqual(["query", "status"]);
  });
});
