// The customer portal's members over HTTP: a customer, by its session token, manages its own team
// under the same rules as the seller (answered 400 as Polar's portal answers), and never sees
// another customer's members.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCOPES } from "../../../server/lib/scopes.ts";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

let t: TestServer;
let seller: Awaited<ReturnType<typeof createSeller>>;
let stranger: Awaited<ReturnType<typeof createSeller>>;

beforeAll(async () => {
  t = await startTestServer({ worker: false });
  seller = await createSeller(t.url, [...SCOPES]);
  stranger = await createSeller(t.url, [...SCOPES]);
});
afterAll(() => t?.stop());

let n = 0;
/** A customer of `owner` and a portal session token for it. */
async function team(owner = seller) {
  const c = await api(t.url, "/v1/customers/", {
    token: owner.token,
    body: { email: `portal-${++n}@example.com` },
  });
  const s = await api(t.url, "/v1/customer-sessions/", {
    token: owner.token,
    body: { customer_id: c.body.id },
  });
  expect(s.status, JSON.stringify(s.body)).toBe(201);
  const as = (path: string, init: { method?: string; body?: unknown } = {}) =>
    api(t.url, `/v1/customer-portal/members${path}`, { token: s.body.token, ...init });
  return { id: c.body.id as string, as };
}

async function memberEvents(customerId: string) {
  return t.server.database.rows<{ type: string }>(
    sql`select type from webhook_events
        where type like 'member.%' and payload->'data'->>'customer_id' = ${customerId}
        order by created_at, id`,
  );
}

async function membersOf(customerId: string) {
  return t.server.database.rows(
    sql`select id, email, name, role from members where customer_id = ${customerId} order by id`,
  );
}

describe("customer portal members", () => {
  it("lists, adds, updates and removes the customer's own team", async () => {
    const c = await team();
    expect((await c.as("")).body).toEqual({
      items: [],
      pagination: { total_count: 0, max_page: 0 },
    });
    const added = await c.as("", { body: { email: "Kim@example.com", name: "Kim" } });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({
      created_at: expect.any(String),
      modified_at: null,
      id: expect.any(String),
      email: "Kim@example.com",
      name: "Kim",
      role: "member",
    });
    // Polar: an address already on the team answers with that member, nothing added.
    const again = await c.as("", { body: { email: "kim@EXAMPLE.com" } });
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(added.body.id);

    const lee = (await c.as("/", { body: { email: "lee@example.com", role: "billing_manager" } }))
      .body;
    const listed = await c.as("?limit=1");
    expect(listed.body.pagination).toEqual({ total_count: 2, max_page: 2 });

    const owner = await c.as(`/${added.body.id}`, { method: "PATCH", body: { role: "owner" } });
    expect(owner.status).toBe(200);
    expect(owner.body.role).toBe("owner");
    const renamed = await c.as(`/${lee.id}`, { method: "PATCH", body: { name: "Lee" } });
    expect(renamed.body).toMatchObject({ name: "Lee", role: "billing_manager" });
    expect((await c.as(`/${lee.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await c.as("")).body.items.map((m: { id: string }) => m.id)).toEqual([added.body.id]);
    expect((await memberEvents(c.id)).map((e) => e.type)).toEqual([
      "member.created",
      "member.created",
      "member.updated",
      "member.updated",
      "member.deleted",
    ]);
  });

  it("keeps one owner: no adding as owner, no demoting or removing the owner (400)", async () => {
    const c = await team();
    const a = (await c.as("", { body: { email: "a@example.com" } })).body;
    const b = (await c.as("", { body: { email: "b@example.com" } })).body;
    await c.as(`/${a.id}`, { method: "PATCH", body: { role: "owner" } });
    const moved = await c.as(`/${b.id}`, { method: "PATCH", body: { role: "owner" } });
    expect(moved.body.role).toBe("owner");
    const before = await membersOf(c.id);
    expect(before.filter((m) => (m as { role: string }).role === "owner")).toHaveLength(1);
    const events = (await memberEvents(c.id)).length;
    for (const [path, init] of [
      ["", { body: { email: "c@example.com", role: "owner" } }],
      [`/${b.id}`, { method: "PATCH", body: { role: "member" } }],
      [`/${b.id}`, { method: "DELETE" }],
    ] as const) {
      const res = await c.as(path, init);
      expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body).toEqual({ error: "BadRequest", detail: expect.any(String) });
    }
    expect(await membersOf(c.id)).toEqual(before);
    expect((await memberEvents(c.id)).length).toBe(events);
  });

  it("never reaches another customer's members, and answers bad input with 4xx", async () => {
    const mine = await team();
    const theirs = await team();
    const elsewhere = await team(stranger);
    const m = (await theirs.as("", { body: { email: "theirs@example.com" } })).body;
    const before = await membersOf(theirs.id);
    for (const c of [mine, elsewhere]) {
      expect((await c.as(`/${m.id}`, { method: "PATCH", body: { name: "x" } })).status).toBe(404);
      expect((await c.as(`/${m.id}`, { method: "DELETE" })).status).toBe(404);
      expect((await c.as("")).body.items).toEqual([]);
    }
    for (const [path, init, status] of [
      ["", { body: { email: "nope" } }, 422],
      ["", { body: { email: "r@example.com", role: "admin" } }, 422],
      ["/not-a-uuid", { method: "PATCH", body: {} }, 422],
      [`/${m.id}`, { method: "PATCH", body: { name: "x".repeat(300) } }, 422],
    ] as const) {
      const res = await theirs.as(path, init);
      expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBe(status);
    }
    expect(await membersOf(theirs.id)).toEqual(before);
  });

  it("takes a customer session only: none or a seller's token is 401", async () => {
    expect((await api(t.url, "/v1/customer-portal/members")).status).toBe(401);
    const seller401 = await api(t.url, "/v1/customer-portal/members", { token: seller.token });
    expect(seller401.status).toBe(401);
    expect(seller401.body.error).toBe("Unauthorized");
  });
});
