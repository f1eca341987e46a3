// Customer sessions over HTTP: a seller opens a one-hour session for its customer (by id or
// external id); the till_cst_ token opens that customer's portal and nothing else, until it
// expires or the customer is deleted. A customer (or, with the member model on, a member) that is
// not the seller's is a 422 on the field that named it, as other bad input; none creates a session.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { countRows } from "../../../test/helpers/catalog.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { TestClock } from "../../lib/clock.ts";

const SCOPES = [
  "customers:write",
  "customer_sessions:write",
  "products:read",
  "members:write",
  "organizations:write",
];
const clock = new TestClock();
let t: TestServer;
let token: string;
let organizationId: string;
let otherToken: string;

beforeAll(async () => {
  t = await startTestServer({ clock });
  const seller = await createSeller(t.url, SCOPES);
  token = seller.token;
  organizationId = seller.organization.id;
  otherToken = (await createSeller(t.url, SCOPES)).token;
});
afterAll(() => t.stop());

async function customer(email: string, externalId?: string, as = token) {
  const res = await api(t.url, "/v1/customers/", {
    token: as,
    body: { email, name: "Ada", ...(externalId ? { external_id: externalId } : {}) },
  });
  if (res.status !== 201) throw new Error(`customer: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; email: string };
}

async function open(body: Record<string, unknown>, as = token) {
  return api(t.url, "/v1/customer-sessions/", { token: as, body });
}

async function me(sessionToken: string) {
  return api(t.url, "/v1/customer-portal/customers/me", { token: sessionToken });
}

describe("/v1/customer-sessions", () => {
  it("opens a one-hour session by customer id; its token is that customer's in the portal", async () => {
    const c = await customer("ada@buyer.example");
    const res = await open({ customer_id: c.id, return_url: "https://shop.example/account" });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      customer_id: c.id,
      return_url: "https://shop.example/account",
      customer: { id: c.id, email: "ada@buyer.example" },
    });
    expect(res.body.token).toMatch(/^till_cst_/);
    expect(res.body.customer_portal_url).toBe(
      `${t.url}/portal?customer_session_token=${encodeURIComponent(res.body.token)}`,
    );
    const lifetime = Date.parse(res.body.expires_at) - Date.parse(res.body.created_at);
    expect(lifetime).toBe(3_600_000);

    const portal = await me(res.body.token);
    expect(portal.status).toBe(200);
    expect(portal.body).toMatchObject({ id: c.id, email: "ada@buyer.example" });
  });

  it("opens one by external customer id too", async () => {
    const c = await customer("grace@buyer.example", "user_42");
    const res = await open({ external_customer_id: "user_42" });
    expect(res.status).toBe(201);
    expect(res.body.customer_id).toBe(c.id);
    expect((await me(res.body.token)).body.id).toBe(c.id);
  });

  it("the token expires after an hour, dies with its customer, and never opens seller routes", async () => {
    const c = await customer("linus@buyer.example");
    const expiring = (await open({ customer_id: c.id })).body.token as string;
    const deleted = (await open({ customer_id: c.id })).body.token as string;

    // A customer token is not a seller's token.
    expect((await api(t.url, "/v1/products/", { token: expiring })).status).toBe(401);

    const gone = await api(t.url, `/v1/customers/${c.id}`, { method: "DELETE", token });
    expect(gone.status).toBe(204);
    expect((await me(deleted)).status).toBe(401);

    const c2 = await customer("barbara@buyer.example");
    const later = (await open({ customer_id: c2.id })).body.token as string;
    clock.advance(59 * 60_000);
    expect((await me(later)).status).toBe(200);
    clock.advance(2 * 60_000);
    expect((await me(later)).status).toBe(401);
  });

  it("another organization's customer, or an unknown one, is a 422 on the field naming it; no session is made", async () => {
    const theirs = await customer("other@buyer.example", "ext_other", otherToken);
    const before = await countRows(t, "customer_sessions");
    const unknown = "00000000-0000-4000-8000-000000000000";
    for (const [body, field, input] of [
      [{ customer_id: theirs.id }, "customer_id", theirs.id],
      [{ customer_id: unknown }, "customer_id", unknown],
      [{ external_customer_id: "ext_other" }, "external_customer_id", "ext_other"],
      [{ external_customer_id: "nobody" }, "external_customer_id", "nobody"],
      // With both, the customer_id wins (as Polar's union picks it) and is the one refused.
      [{ customer_id: unknown, external_customer_id: "nobody" }, "customer_id", unknown],
    ] as const) {
      const res = await open(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body).toEqual({
        error: "RequestValidationError",
        detail: [
          { loc: ["body", field], msg: "Customer does not exist.", type: "value_error", input },
        ],
      });
    }
    expect(await countRows(t, "customer_sessions")).toBe(before);
  });

  it("with both ids given, the session is for customer_id's customer", async () => {
    const c = await customer("both@buyer.example");
    await customer("else@buyer.example", "ext_else");
    const res = await open({ customer_id: c.id, external_customer_id: "ext_else" });
    expect(res.status).toBe(201);
    expect(res.body.customer_id).toBe(c.id);
  });

  it("bad input is a 422 and a token without customer_sessions:write a 403; nothing is made", async () => {
    const c = await customer("input@buyer.example");
    const before = await countRows(t, "customer_sessions", organizationId);
    for (const body of [
      {},
      { customer_id: "not-a-uuid" },
      { customer_id: c.id, return_url: "javascript:alert(1)" },
      { external_customer_id: "" },
    ]) {
      const res = await open(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error).toBe("RequestValidationError");
      expect(res.body.detail[0].loc[0]).toBe("body");
    }
    const narrow = await createSeller(t.url, ["customers:read"]);
    expect((await open({ customer_id: c.id }, narrow.token)).status).toBe(403);
    expect(await countRows(t, "customer_sessions", organizationId)).toBe(before);
  });
});

describe("/v1/customer-sessions with a member", () => {
  async function member(customerId: string, email: string, externalId: string) {
    const res = await api(t.url, `/v1/customers/${customerId}/members`, {
      token,
      body: { email, external_id: externalId },
    });
    if (res.status !== 201) throw new Error(`member: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { id: string };
  }
  const memberModel = (on: boolean) =>
    api(t.url, `/v1/organizations/${organizationId}`, {
      method: "PATCH",
      token,
      body: { feature_settings: { member_model_enabled: on } },
    });

  it("with the member model on, a member not of that customer is a 422 and no session is made", async () => {
    const c = await customer("team@buyer.example");
    const other = await customer("team2@buyer.example");
    const mine = await member(c.id, "mine@buyer.example", "m_mine");
    const theirs = await member(other.id, "theirs@buyer.example", "m_theirs");
    expect((await memberModel(true)).status).toBe(200);
    try {
      const before = await countRows(t, "customer_sessions", organizationId);
      const unknown = "00000000-0000-4000-8000-000000000001";
      for (const [body, field, input] of [
        [{ member_id: unknown }, "member_id", unknown],
        [{ member_id: theirs.id }, "member_id", theirs.id],
        [{ external_member_id: "m_theirs" }, "external_member_id", "m_theirs"],
        // member_id is looked at first, as Polar's _resolve_member does.
        [{ member_id: theirs.id, external_member_id: "m_mine" }, "member_id", theirs.id],
      ] as const) {
        const res = await open({ customer_id: c.id, ...body });
        expect(res.status, JSON.stringify(body)).toBe(422);
        expect(res.body).toEqual({
          error: "RequestValidationError",
          detail: [
            {
              loc: ["body", field],
              msg: "Member does not exist for this customer.",
              type: "value_error",
              input,
            },
          ],
        });
      }
      expect(await countRows(t, "customer_sessions", organizationId)).toBe(before);

      for (const body of [{ member_id: mine.id }, { external_member_id: "m_mine" }, {}]) {
        const res = await open({ customer_id: c.id, ...body });
        expect(res.status, JSON.stringify(body)).toBe(201);
        expect(res.body.customer_id).toBe(c.id);
      }
    } finally {
      await memberModel(false);
    }
  });

  it("with the member model off, as Polar, member ids are not looked at", async () => {
    const c = await customer("solo@buyer.example");
    const res = await open({
      customer_id: c.id,
      member_id: "00000000-0000-4000-8000-000000000002",
      external_member_id: "nobody",
    });
    expect(res.status).toBe(201);
    expect(res.body.customer_id).toBe(c.id);
  });
});
