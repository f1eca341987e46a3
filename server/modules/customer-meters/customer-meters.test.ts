import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { polarClient } from "../../../test/helpers/polar.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

type Seller = Awaited<ReturnType<typeof createSeller>>;
let t: TestServer;
let seller: Seller;
let other: Seller;
const SCOPES = ["customers:write", "meters:write", "events:write", "customer_meters:read"];
const apiCalls = {
  conjunction: "and" as const,
  clauses: [{ property: "name", operator: "eq" as const, value: "api_call" }],
};
let ada: string;
let bob: string;
let calls: string;
let storage: string;
const ids: Record<string, string> = {};

/** A customer meter as a meter_credit grant leaves it (credited units, counted from `since`). */
async function credit(customerId: string, meterId: string, units: number, since: string) {
  const [row] = await t.server.database.rows<{ id: string }>(sql`
    insert into customer_meters (organization_id, customer_id, meter_id, credited_units, created_at)
    select organization_id, ${customerId}, ${meterId}, ${units}, ${since}::timestamptz
    from customers where id = ${customerId} returning id`);
  return row!.id;
}

beforeAll(async () => {
  t = await startTestServer();
  seller = await createSeller(t.url, SCOPES);
  other = await createSeller(t.url, SCOPES);
  const polar = polarClient(t, seller.token);
  ada = (
    await polar.customers.create({ email: "ada@example.com", name: "Ada", externalId: "u_ada" })
  ).id;
  bob = (await polar.customers.create({ email: "bob@example.com", name: "Bob" })).id;
  calls = (
    await polar.meters.create({
      name: "API calls",
      filter: apiCalls,
      aggregation: { func: "count" },
    })
  ).id;
  storage = (
    await polar.meters.create({
      name: "Storage",
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "gb" }] },
      aggregation: { func: "sum", property: "gb" },
    })
  ).id;
  ids.adaCalls = await credit(ada, calls, 100, "2026-03-01T00:00:00Z");
  ids.bobCalls = await credit(bob, calls, 10, "2026-03-01T00:00:00Z");
  ids.adaStorage = await credit(ada, storage, 50, "2026-03-01T00:00:00Z");
  const at = (d: string) => new Date(d);
  await polar.events.ingest({
    events: [
      // Before the customer meter began: not consumed.
      { name: "api_call", timestamp: at("2026-02-28T23:00:00Z"), customerId: ada },
      ...Array.from({ length: 3 }, (_, i) => ({
        name: "api_call",
        timestamp: at(`2026-03-0${i + 1}T10:00:00Z`),
        customerId: ada,
      })),
      ...Array.from({ length: 12 }, () => ({
        name: "api_call",
        timestamp: at("2026-03-02T10:00:00Z"),
        customerId: bob,
      })),
      { name: "gb", timestamp: at("2026-03-02T10:00:00Z"), customerId: ada, metadata: { gb: 7 } },
    ],
  });
}, 60_000);
afterAll(() => t.stop());

describe("customer meters through @polar-sh/sdk", () => {
  it("lists and gets balances with the customer and meter", async () => {
    const polar = polarClient(t, seller.token);
    const page = await polar.customerMeters.list({ sorting: ["balance"] });
    expect(page.result.pagination).toEqual({ totalCount: 3, maxPage: 1 });
    expect(
      page.result.items.map((m) => [
        m.customer.email,
        m.meter.name,
        m.consumedUnits,
        m.creditedUnits,
        m.balance,
      ]),
    ).toEqual([
      ["bob@example.com", "API calls", 12, 10, -2],
      ["ada@example.com", "Storage", 7, 50, 43],
      ["ada@example.com", "API calls", 3, 100, 97],
    ]);
    const one = await polar.customerMeters.get({ id: ids.adaCalls! });
    expect(one).toMatchObject({
      id: ids.adaCalls,
      customerId: ada,
      meterId: calls,
      consumedUnits: 3,
      balance: 97,
      customer: { externalId: "u_ada" },
      meter: { name: "API calls" },
    });
  });

  it("filters by customer, external customer id and meter, and pages", async () => {
    const polar = polarClient(t, seller.token);
    const byCustomer = await polar.customerMeters.list({ customerId: bob });
    expect(byCustomer.result.items.map((m) => m.id)).toEqual([ids.bobCalls]);
    const byExternal = await polar.customerMeters.list({
      externalCustomerId: "u_ada",
      meterId: storage,
    });
    expect(byExternal.result.items.map((m) => m.id)).toEqual([ids.adaStorage]);
    const pages = [];
    for await (const p of await polar.customerMeters.list({
      limit: 2,
      sorting: ["meter_name", "customer_name"],
    }))
      pages.push(p.result.items.map((m) => m.id));
    expect(pages).toEqual([[ids.adaCalls, ids.bobCalls], [ids.adaStorage]]);
  });
});

describe("customer meters over HTTP", () => {
  it("hides another organization's customer meters", async () => {
    const theirs = await api(t.url, `/v1/customer-meters/${ids.adaCalls}`, { token: other.token });
    expect(theirs.status).toBe(404);
    expect(theirs.body.error).toBe("ResourceNotFound");
    const list = await api(
      t.url,
      `/v1/customer-meters/?organization_id=${seller.organization.id}`,
      { token: other.token },
    );
    expect(list.body).toEqual({ items: [], pagination: { total_count: 0, max_page: 0 } });
  });

  it("rejects bad input with 422 and a token without the scope with 403", async () => {
    for (const [path, loc] of [
      ["/v1/customer-meters/nope", ["path", "id"]],
      ["/v1/customer-meters/?sorting=height", ["query", "sorting"]],
      ["/v1/customer-meters/?meter_id=x", ["query", "meter_id"]],
    ] as const) {
      const res = await api(t.url, path, { token: seller.token });
      expect(res.status, path).toBe(422);
      expect(res.body.detail[0].loc.slice(0, 2)).toEqual(loc);
    }
    const narrow = await createSeller(t.url, ["meters:read"]);
    expect((await api(t.url, "/v1/customer-meters/", { token: narrow.token })).status).toBe(403);
  });
});
