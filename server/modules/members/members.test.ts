// Members through the seller's API over HTTP: CRUD by id and by external ids, the owner rules,
// duplicates, bad input, tenancy and scopes, and the member.* events recorded with each change.
import { sql } from "drizzle-orm";
import { createPolar } from "polar-sdk-1/2026-10";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

type Seller = Awaited<ReturnType<typeof createSeller>>;
let t: TestServer;
let seller: Seller;
let other: Seller;
let readOnly: Seller;

beforeAll(async () => {
  t = await startTestServer({ worker: false });
  seller = await createSeller(t.url, ["customers:write", "members:write"]);
  other = await createSeller(t.url, ["customers:write", "members:write"]);
  readOnly = await createSeller(t.url, ["members:read"]);
});
afterAll(() => t?.stop());

const call = (path: string, init: { method?: string; body?: unknown; token?: string } = {}) =>
  api(t.url, path, { token: seller.token, ...init });

let n = 0;
async function customer(externalId?: string): Promise<{ id: string; external_id: string | null }> {
  const res = await call("/v1/customers/", {
    body: { email: `team-${++n}@example.com`, ...(externalId ? { external_id: externalId } : {}) },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function add(customerId: string, body: Record<string, unknown>) {
  const res = await call(`/v1/customers/${customerId}/members`, { body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** The members and member.* events of the database, to show a refused change changed nothing. */
async function snapshot() {
  const members = await t.server.database.rows(
    sql`select id, email, name, external_id, role, modified_at from members order by id`,
  );
  const events = await t.server.database.rows(
    sql`select count(*)::int as n from webhook_events where type like 'member.%'`,
  );
  return { members, events };
}

async function eventsOf(memberId: string) {
  return t.server.database.rows<{ type: string; payload: { type: string; data: any } }>(
    sql`select type, payload from webhook_events
        where payload->'data'->>'id' = ${memberId} order by created_at, id`,
  );
}

describe("members by customer id", () => {
  it("creates, gets, lists, updates and deletes, with member.* events", async () => {
    const c = await customer();
    const m = await add(c.id, { email: "Ada@Example.com", name: "Ada", external_id: "u_ada" });
    expect(m).toEqual({
      id: expect.any(String),
      created_at: expect.any(String),
      modified_at: null,
      customer_id: c.id,
      email: "Ada@Example.com",
      name: "Ada",
      external_id: "u_ada",
      role: "member",
    });
    expect((await call(`/v1/customers/${c.id}/members/${m.id}`)).body).toEqual(m);
    const b = await add(c.id, { email: "bob@example.com", role: "billing_manager" });
    expect(b).toMatchObject({ name: null, external_id: null, role: "billing_manager" });

    const all = await call(`/v1/members/?customer_id=${c.id}&limit=1&sorting=created_at`);
    expect(all.status).toBe(200);
    expect(all.body.items.map((x: { id: string }) => x.id)).toEqual([m.id]);
    expect(all.body.pagination).toEqual({ total_count: 2, max_page: 2 });
    const managers = await call(`/v1/members/?customer_id=${c.id}&role=billing_manager`);
    expect(managers.body.items.map((x: { id: string }) => x.id)).toEqual([b.id]);
    const nested = await call(`/v1/customers/${c.id}/members?sorting=-created_at`);
    expect(nested.body.items.map((x: { id: string }) => x.id)).toEqual([b.id, m.id]);

    const updated = await call(`/v1/customers/${c.id}/members/${m.id}`, {
      method: "PATCH",
      body: { name: "Ada L.", email: "ada@new.example.com" },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: "Ada L.", email: "ada@new.example.com" });
    expect(updated.body.modified_at).not.toBeNull();

    const del = await call(`/v1/customers/${c.id}/members/${m.id}`, { method: "DELETE" });
    expect(del.status).toBe(204);
    const gone = await call(`/v1/customers/${c.id}/members/${m.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ error: "ResourceNotFound", detail: "Member not found." });

    const events = await eventsOf(m.id);
    expect(events.map((e) => e.type)).toEqual([
      "member.created",
      "member.updated",
      "member.deleted",
    ]);
    expect(events[0]!.payload).toMatchObject({ type: "member.created", data: m });
    expect(events[1]!.payload.data).toEqual(updated.body);
  });

  it("lists nothing of a deleted customer", async () => {
    const c = await customer();
    await add(c.id, { email: "x@example.com" });
    expect((await call(`/v1/customers/${c.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await call(`/v1/members/?customer_id=${c.id}`)).body.pagination.total_count).toBe(0);
    expect((await call(`/v1/customers/${c.id}/members`)).status).toBe(404);
  });
});

describe("members by external ids", () => {
  it("creates, gets, updates and deletes by the customer's and member's external ids", async () => {
    const c = await customer("cust_ext_1");
    const created = await call("/v1/customers/external/cust_ext_1/members", {
      body: { email: "eve@example.com", external_id: "usr_eve" },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ customer_id: c.id, external_id: "usr_eve" });
    const path = "/v1/customers/external/cust_ext_1/members/usr_eve";
    expect((await call(path)).body.id).toBe(created.body.id);
    const listed = await call("/v1/members/?external_customer_id=cust_ext_1");
    expect(listed.body.items.map((x: { id: string }) => x.id)).toEqual([created.body.id]);
    expect((await call("/v1/customers/external/cust_ext_1/members")).body.items).toHaveLength(1);
    const patched = await call(path, { method: "PATCH", body: { role: "billing_manager" } });
    expect(patched.body.role).toBe("billing_manager");
    expect((await call(path, { method: "DELETE" })).status).toBe(204);
    expect((await call(path)).status).toBe(404);
    expect((await call("/v1/customers/external/nobody/members/usr_eve")).status).toBe(404);
  });

  it("works through Polar's SDK 1.x", async () => {
    const polar = createPolar({ accessToken: seller.token, baseUrl: t.url });
    const c = await customer("cust_sdk");
    const m = await polar.customers.members.create(c.id, { email: "sdk@example.com" });
    expect((await polar.customers.members.get(c.id, m.id)).email).toBe("sdk@example.com");
    const listed = await polar.customers.members.listExternal("cust_sdk");
    expect(listed.items.map((x) => x.id)).toEqual([m.id]);
    const owner = await polar.customers.members.update(c.id, m.id, { role: "owner" });
    expect(owner.role).toBe("owner");
  });
});

describe("the owner", () => {
  it("is one at most: promoting another moves ownership; the owner stays until replaced", async () => {
    const c = await customer();
    const a = await add(c.id, { email: "a@example.com" });
    const b = await add(c.id, { email: "b@example.com" });
    const url = (id: string) => `/v1/customers/${c.id}/members/${id}`;
    expect((await call(url(a.id), { method: "PATCH", body: { role: "owner" } })).body.role).toBe(
      "owner",
    );
    const moved = await call(url(b.id), { method: "PATCH", body: { role: "owner" } });
    expect(moved.body.role).toBe("owner");
    expect((await call(url(a.id))).body.role).toBe("billing_manager");
    expect((await eventsOf(a.id)).at(-1)!.payload.data.role).toBe("billing_manager");

    const before = await snapshot();
    const demote = await call(url(b.id), { method: "PATCH", body: { role: "member" } });
    expect(demote.status).toBe(422);
    expect(demote.body.error).toBe("RequestValidationError");
    expect(demote.body.detail[0].loc).toEqual(["body", "role"]);
    const remove = await call(url(b.id), { method: "DELETE" });
    expect(remove.status).toBe(422);
    expect(remove.body.detail[0].loc).toEqual(["path", "member_id"]);
    const asOwner = await call(`/v1/customers/${c.id}/members`, {
      body: { email: "c@example.com", role: "owner" },
    });
    expect(asOwner.status).toBe(422);
    expect(asOwner.body.detail[0].loc).toEqual(["body", "role"]);
    expect(await snapshot()).toEqual(before);
    const owners = await call(`/v1/members/?customer_id=${c.id}&role=owner`);
    expect(owners.body.items.map((x: { id: string }) => x.id)).toEqual([b.id]);
  });
});

describe("duplicates and bad input", () => {
  it("refuses an email or external id already on the team, 422, nothing changed", async () => {
    const c = await customer();
    const a = await add(c.id, { email: "dup@example.com", external_id: "x1" });
    const b = await add(c.id, { email: "other@example.com" });
    const before = await snapshot();
    for (const [body, field] of [
      [{ email: "DUP@example.com" }, "email"],
      [{ email: "new@example.com", external_id: "x1" }, "external_id"],
    ] as const) {
      const res = await call(`/v1/customers/${c.id}/members`, { body });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        error: "RequestValidationError",
        detail: [{ loc: ["body", field], msg: expect.any(String), type: "value_error" }],
      });
    }
    const clash = await call(`/v1/customers/${c.id}/members/${b.id}`, {
      method: "PATCH",
      body: { email: "Dup@Example.com" },
    });
    expect(clash.status).toBe(422);
    expect(await snapshot()).toEqual(before);
    // Another customer's team may hold the same address.
    const d = await customer();
    expect((await add(d.id, { email: "dup@example.com", external_id: "x1" })).id).not.toBe(a.id);
  });

  it("answers bad input with Polar's errors, never a 500, and changes nothing", async () => {
    const c = await customer();
    const m = await add(c.id, { email: "ok@example.com" });
    const before = await snapshot();
    const cases: [string, string, unknown, number][] = [
      ["POST", `/v1/customers/${c.id}/members`, { email: "not-an-email" }, 422],
      ["POST", `/v1/customers/${c.id}/members`, {}, 422],
      ["POST", `/v1/customers/${c.id}/members`, { email: "r@example.com", role: "admin" }, 422],
      [
        "POST",
        `/v1/customers/${c.id}/members`,
        { email: "n@example.com", name: "x".repeat(300) },
        422,
      ],
      ["PATCH", `/v1/customers/${c.id}/members/${m.id}`, { role: "boss" }, 422],
      ["PATCH", `/v1/customers/${c.id}/members/${m.id}`, { email: 3 }, 422],
      ["GET", `/v1/customers/${c.id}/members/not-a-uuid`, undefined, 422],
      ["GET", `/v1/members/?role=admin`, undefined, 422],
      ["GET", `/v1/members/?sorting=email`, undefined, 422],
      ["POST", `/v1/customers/${crypto.randomUUID()}/members`, { email: "z@example.com" }, 404],
      ["DELETE", `/v1/customers/${c.id}/members/${crypto.randomUUID()}`, undefined, 404],
    ];
    for (const [method, path, body, status] of cases) {
      const res = await call(path, { method, ...(body === undefined ? {} : { body }) });
      expect(res.status, `${method} ${path} ${JSON.stringify(res.body)}`).toBe(status);
      expect(typeof res.body.error).toBe("string");
    }
    const odd = await call("/v1/members/?customer_id=not-a-uuid");
    expect(odd.body.items).toEqual([]);
    expect(await snapshot()).toEqual(before);
  });
});

describe("tenancy and scopes", () => {
  it("another organization finds none of the customer's members and changes nothing", async () => {
    const c = await customer("cust_tenant");
    const m = await add(c.id, { email: "mine@example.com", external_id: "usr_mine" });
    const before = await snapshot();
    const as = other.token;
    const paths = [
      `/v1/customers/${c.id}/members/${m.id}`,
      "/v1/customers/external/cust_tenant/members/usr_mine",
    ];
    for (const path of paths) {
      for (const [method, body] of [["GET"], ["PATCH", { name: "x" }], ["DELETE"]] as const) {
        const res = await call(path, { method, token: as, ...(body ? { body } : {}) });
        expect(res.status, `${method} ${path}`).toBe(404);
      }
    }
    for (const path of [
      `/v1/customers/${c.id}/members`,
      "/v1/customers/external/cust_tenant/members",
    ]) {
      expect((await call(path, { token: as, body: { email: "in@example.com" } })).status).toBe(404);
      expect((await call(path, { token: as })).status).toBe(404);
    }
    const listed = await call(`/v1/members/?customer_id=${c.id}`, { token: as });
    expect(listed.body).toEqual({ items: [], pagination: { total_count: 0, max_page: 0 } });
    expect(await snapshot()).toEqual(before);
  });

  it("requires members:write to change and a token at all", async () => {
    const c = await customer();
    const res = await call(`/v1/customers/${c.id}/members`, {
      token: readOnly.token,
      body: { email: "ro@example.com" },
    });
    expect(res.status).toBe(403);
    expect((await call("/v1/members/", { token: readOnly.token })).status).toBe(200);
    expect((await api(t.url, "/v1/members/")).status).toBe(401);
  });
});
