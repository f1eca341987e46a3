import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createAccessToken, createSeller, signUp } from "../../../test/helpers/auth.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.stop());

const KEYS = [
  "created_at",
  "modified_at",
  "id",
  "url",
  "name",
  "format",
  "secret",
  "organization_id",
  "events",
  "enabled",
];

async function endpointCount(orgId: string): Promise<number> {
  const [row] = await t.server.database.rows<{ n: number }>(
    sql`select count(*)::int as n from webhook_endpoints where organization_id = ${orgId}`,
  );
  return row!.n;
}

describe("/v1/webhooks/endpoints", () => {
  it("creates an endpoint with a server-generated whsec_ secret (201, every key of WebhookEndpoint), reads, lists, updates, resets and deletes it", async () => {
    const { organization, token } = await createSeller(t.url, ["webhooks:write"]);
    const created = await api(t.url, "/v1/webhooks/endpoints", {
      token,
      body: {
        url: "http://localhost:9/hook",
        format: "raw",
        events: ["order.paid", "checkout.expired", "benefit_grant.cycled"],
        name: "Main",
      },
    });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual([...KEYS].sort());
    expect(created.body).toMatchObject({
      url: "http://localhost:9/hook",
      format: "raw",
      name: "Main",
      enabled: true,
      organization_id: organization.id,
      modified_at: null,
    });
    expect(created.body.events).toEqual(["order.paid", "checkout.expired", "benefit_grant.cycled"]);
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(created.body.secret.slice(6), "base64")).toHaveLength(32);
    const id = created.body.id as string;

    const got = await api(t.url, `/v1/webhooks/endpoints/${id}`, { token });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created.body);

    const list = await api(t.url, "/v1/webhooks/endpoints?page=1&limit=10", { token });
    expect(list.status).toBe(200);
    expect(list.body.pagination).toEqual({ total_count: 1, max_page: 1 });
    expect(list.body.items[0].id).toBe(id);
    expect((await api(t.url, "/v1/webhooks/endpoints/", { token })).status).toBe(200);

    const patched = await api(t.url, `/v1/webhooks/endpoints/${id}`, {
      method: "PATCH",
      token,
      body: { format: "slack", events: ["order.created"], enabled: false, name: null },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      format: "slack",
      events: ["order.created"],
      enabled: false,
      name: null,
      secret: created.body.secret,
    });
    expect(patched.body.modified_at).toMatch(/Z$/);

    const reset = await api(t.url, `/v1/webhooks/endpoints/${id}/secret`, {
      method: "PATCH",
      token,
    });
    expect(reset.status).toBe(200);
    expect(reset.body.secret).toMatch(/^whsec_/);
    expect(reset.body.secret).not.toBe(created.body.secret);

    expect(
      (await api(t.url, `/v1/webhooks/endpoints/${id}`, { method: "DELETE", token })).status,
    ).toBe(204);
    expect((await api(t.url, `/v1/webhooks/endpoints/${id}`, { token })).status).toBe(404);
  });

  it("accepts every event type of the contract, including checkout.expired", async () => {
    const { token } = await createSeller(t.url, ["webhooks:write"]);
    const { WEBHOOK_EVENT_TYPES } = await import("./events.ts");
    const res = await api(t.url, "/v1/webhooks/endpoints", {
      token,
      body: { url: "http://localhost:9/all", format: "discord", events: [...WEBHOOK_EVENT_TYPES] },
    });
    expect(res.status).toBe(201);
    expect(res.body.events).toHaveLength(WEBHOOK_EVENT_TYPES.length);
    for (const type of [
      "checkout.created",
      "order.refunded",
      "subscription.uncanceled",
      "customer.state_changed",
      "benefit_grant.cycled",
      "organization.updated",
      "checkout.expired",
    ]) {
      expect(res.body.events).toContain(type);
    }
  });

  it("bad input is a 422 with loc and creates or changes nothing", async () => {
    const { organization, token } = await createSeller(t.url, ["webhooks:write"]);
    const cases: [unknown, (string | number)[]][] = [
      [{ url: "http://localhost:9", format: "xml", events: [] }, ["body", "format"]],
      [
        { url: "http://localhost:9", format: "raw", events: ["order.exploded"] },
        ["body", "events", 0],
      ],
      [{ url: "ftp://example.com", format: "raw", events: [] }, ["body", "url"]],
      [{ url: "not a url", format: "raw", events: [] }, ["body", "url"]],
      [{ format: "raw", events: [] }, ["body", "url"]],
    ];
    for (const [body, loc] of cases) {
      const res = await api(t.url, "/v1/webhooks/endpoints", { token, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.detail[0].loc).toEqual(loc);
    }
    expect(await endpointCount(organization.id)).toBe(0);

    const ok = await api(t.url, "/v1/webhooks/endpoints", {
      token,
      body: { url: "http://localhost:9/x", format: "raw", events: [] },
    });
    const bad = await api(t.url, `/v1/webhooks/endpoints/${ok.body.id}`, {
      method: "PATCH",
      token,
      body: { url: "gopher://x", enabled: false },
    });
    expect(bad.status).toBe(422);
    expect((await api(t.url, `/v1/webhooks/endpoints/${ok.body.id}`, { token })).body).toEqual(
      ok.body,
    );
    expect((await api(t.url, "/v1/webhooks/endpoints/not-a-uuid", { token })).status).toBe(422);
  });

  it("scopes: webhooks:read lists but cannot create; another organization's endpoint is a 404; no token is a 401", async () => {
    const seller = await createSeller(t.url, ["webhooks:write"]);
    const ep = await api(t.url, "/v1/webhooks/endpoints", {
      token: seller.token,
      body: { url: "http://localhost:9/s", format: "raw", events: [] },
    });
    const reader = await createAccessToken(t.url, seller.user, seller.organization.id, [
      "webhooks:read",
    ]);
    expect((await api(t.url, "/v1/webhooks/endpoints", { token: reader })).body.items).toHaveLength(
      1,
    );
    expect(
      (
        await api(t.url, "/v1/webhooks/endpoints", {
          token: reader,
          body: { url: "http://localhost:9", format: "raw", events: [] },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await api(t.url, `/v1/webhooks/endpoints/${ep.body.id}`, {
          method: "DELETE",
          token: reader,
        })
      ).status,
    ).toBe(403);

    const other = await createSeller(t.url, ["webhooks:write"]);
    for (const [method, path] of [
      ["GET", `/v1/webhooks/endpoints/${ep.body.id}`],
      ["PATCH", `/v1/webhooks/endpoints/${ep.body.id}`],
      ["DELETE", `/v1/webhooks/endpoints/${ep.body.id}`],
      ["PATCH", `/v1/webhooks/endpoints/${ep.body.id}/secret`],
    ] as const) {
      const res = await api(t.url, path, {
        method,
        token: other.token,
        ...(method === "PATCH" && !path.endsWith("secret") ? { body: { enabled: false } } : {}),
      });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error).toBe("ResourceNotFound");
    }
    expect((await api(t.url, "/v1/webhooks/endpoints", { token: other.token })).body.items).toEqual(
      [],
    );
    expect(
      (await api(t.url, `/v1/webhooks/endpoints/${ep.body.id}`, { token: seller.token })).body
        .enabled,
    ).toBe(true);
    expect((await api(t.url, "/v1/webhooks/endpoints")).status).toBe(401);
  });

  it("a user with two organizations must name organization_id; naming one they cannot access is a 422", async () => {
    const user = await signUp(t.url);
    const { createOrganization } = await import("../../../test/helpers/auth.ts");
    const a = await createOrganization(t.url, user, "A");
    await createOrganization(t.url, user, "B");
    const missing = await api(t.url, "/v1/webhooks/endpoints", {
      token: user.token,
      body: { url: "http://localhost:9", format: "raw", events: [] },
    });
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0].loc).toEqual(["body", "organization_id"]);
    const stranger = await createSeller(t.url, ["webhooks:write"]);
    const foreign = await api(t.url, "/v1/webhooks/endpoints", {
      token: user.token,
      body: {
        url: "http://localhost:9",
        format: "raw",
        events: [],
        organization_id: stranger.organization.id,
      },
    });
    expect(foreign.status).toBe(422);
    const ok = await api(t.url, "/v1/webhooks/endpoints", {
      token: user.token,
      body: { url: "http://localhost:9", format: "raw", events: [], organization_id: a.id },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.organization_id).toBe(a.id);
  });
});
