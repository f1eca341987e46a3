// Organization access tokens over HTTP: created by a member, shown once, used as a bearer with its
// scopes, last use recorded at most once a minute, expired, updated, revoked; another
// organization's member reaches none of them, and bad input creates nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestClock } from "../../lib/clock.ts";
import { api, createOrganization, signUp, type TestUser } from "../../../test/helpers/auth.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

let t: TestServer;
const clock = new TestClock();
let alice: TestUser;
let mallory: TestUser;
let org: { id: string };

beforeAll(async () => {
  t = await startTestServer({ clock });
  alice = await signUp(t.url);
  mallory = await signUp(t.url);
  org = await createOrganization(t.url, alice, "Tokens");
  await createOrganization(t.url, mallory, "Elsewhere");
});
afterAll(() => t.stop());

async function create(body: Record<string, unknown>, user = alice) {
  return api(t.url, "/v1/organization-access-tokens/", { token: user.token, body });
}

async function listed(user = alice): Promise<{ id: string; comment: string }[]> {
  const res = await api(t.url, `/v1/organization-access-tokens/?organization_id=${org.id}`, {
    token: user.token,
  });
  return res.status === 200 ? res.body.items : [];
}

describe("/v1/organization-access-tokens", () => {
  it("a member creates a token shown once; it calls the API within its scopes only", async () => {
    const res = await create({
      organization_id: org.id,
      comment: "CI",
      scopes: ["products:read", "products:read"],
    });
    expect(res.status).toBe(201);
    expect(res.body.token).toMatch(/^till_oat_/);
    expect(res.body.organization_access_token).toMatchObject({
      comment: "CI",
      scopes: ["products:read"],
      organization_id: org.id,
      expires_at: null,
      last_used_at: null,
    });
    const token = res.body.token as string;
    expect((await api(t.url, "/v1/products/", { token })).status).toBe(200);
    const write = await api(t.url, "/v1/products/", {
      token,
      body: { name: "Nope", prices: [{ amount_type: "free" }] },
    });
    expect(write.status).toBe(403);
    // The secret is never listed again.
    const item = (await listed()).find((i) => i.id === res.body.organization_access_token.id);
    expect(item).toBeDefined();
    expect(JSON.stringify(item)).not.toContain(token);
  });

  it("records the last use at most once a minute", async () => {
    const res = await create({
      organization_id: org.id,
      comment: "busy",
      scopes: ["products:read"],
    });
    const { token } = res.body as { token: string };
    const id = res.body.organization_access_token.id as string;
    const lastUsed = async () =>
      (await listed()).find((i) => i.id === id) as unknown as { last_used_at: string | null };

    await api(t.url, "/v1/products/", { token });
    const first = (await lastUsed()).last_used_at;
    expect(first).not.toBeNull();
    clock.advance(30_000);
    await api(t.url, "/v1/products/", { token });
    expect((await lastUsed()).last_used_at).toBe(first);
    clock.advance(40_000);
    await api(t.url, "/v1/products/", { token });
    const third = (await lastUsed()).last_used_at;
    expect(new Date(third!).getTime()).toBeGreaterThan(new Date(first!).getTime());
  });

  it("an expired token is refused with 401", async () => {
    const res = await create({
      organization_id: org.id,
      comment: "short",
      expires_in: "PT1H",
      scopes: ["products:read"],
    });
    expect(res.status).toBe(201);
    const { token } = res.body as { token: string };
    expect((await api(t.url, "/v1/products/", { token })).status).toBe(200);
    clock.advance(2 * 3_600_000);
    expect((await api(t.url, "/v1/products/", { token })).status).toBe(401);
  });

  it("PATCH changes comment and scopes; DELETE revokes the token at once", async () => {
    const res = await create({
      organization_id: org.id,
      comment: "old",
      scopes: ["products:read"],
    });
    const { token } = res.body as { token: string };
    const id = res.body.organization_access_token.id as string;
    const patched = await api(t.url, `/v1/organization-access-tokens/${id}`, {
      method: "PATCH",
      token: alice.token,
      body: { comment: "new", scopes: ["products:read", "products:write"] },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      comment: "new",
      scopes: ["products:read", "products:write"],
    });
    const write = await api(t.url, "/v1/products/", {
      token,
      body: { name: "Allowed", prices: [{ amount_type: "free" }] },
    });
    expect(write.status).toBe(201);

    const deleted = await api(t.url, `/v1/organization-access-tokens/${id}`, {
      method: "DELETE",
      token: alice.token,
    });
    expect(deleted.status).toBe(204);
    expect((await api(t.url, "/v1/products/", { token })).status).toBe(401);
    expect((await listed()).some((i) => i.id === id)).toBe(false);
  });

  it("another organization's member gets 404 and changes nothing; a token cannot manage tokens", async () => {
    const res = await create({
      organization_id: org.id,
      comment: "mine",
      scopes: ["products:read"],
    });
    const id = res.body.organization_access_token.id as string;
    for (const [method, body] of [
      ["PATCH", { comment: "taken" }],
      ["DELETE", undefined],
    ] as const) {
      const other = await api(t.url, `/v1/organization-access-tokens/${id}`, {
        method,
        token: mallory.token,
        ...(body ? { body } : {}),
      });
      expect(other.status).toBe(404);
      expect(other.body.error).toBe("ResourceNotFound");
    }
    expect((await listed()).find((i) => i.id === id)?.comment).toBe("mine");
    const byToken = await api(t.url, "/v1/organization-access-tokens/", {
      token: res.body.token,
    });
    expect(byToken.status).toBe(403);
    expect(byToken.body.error).toBe("NotPermitted");
  });

  it("bad input is a 422 on the field and creates nothing", async () => {
    const before = (await listed()).length;
    const cases: [Record<string, unknown>, string][] = [
      [{ organization_id: org.id, comment: "x", scopes: [] }, "scopes"],
      [{ organization_id: org.id, comment: "x", scopes: ["nope:read"] }, "scopes"],
      [
        { organization_id: org.id, comment: "x", expires_in: "P", scopes: ["products:read"] },
        "expires_in",
      ],
      [{ organization_id: org.id, comment: "", scopes: ["products:read"] }, "comment"],
    ];
    for (const [body, field] of cases) {
      const res = await create(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error).toBe("RequestValidationError");
      expect(res.body.detail[0].loc.slice(0, 2)).toEqual(["body", field]);
    }
    expect((await listed()).length).toBe(before);
  });
});
