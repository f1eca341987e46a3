import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createOrganization, createSeller } from "../../../test/helpers/auth.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

type Seller = Awaited<ReturnType<typeof createSeller>>;
let t: TestServer;
let seller: Seller;
let other: Seller;
let reader: string;

beforeAll(async () => {
  t = await startTestServer({ worker: false });
  seller = await createSeller(t.url, ["metrics:read", "metrics:write"]);
  other = await createSeller(t.url, ["metrics:read", "metrics:write"]);
  const res = await api(t.url, "/v1/organization-access-tokens/", {
    token: seller.user.token,
    body: { organization_id: seller.organization.id, comment: "ro", scopes: ["metrics:read"] },
  });
  reader = res.body.token;
}, 60_000);
afterAll(() => t.stop());

describe("metric dashboards", () => {
  it("creates, lists, reads, updates and deletes a dashboard", async () => {
    const created = await api(t.url, "/v1/metrics/dashboards", {
      token: seller.token,
      body: { name: "Revenue", metrics: ["revenue", "orders"] },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      created_at: expect.any(String),
      modified_at: null,
      id: expect.any(String),
      name: "Revenue",
      metrics: ["revenue", "orders"],
      organization_id: seller.organization.id,
    });
    const id = created.body.id;

    const list = await api(t.url, "/v1/metrics/dashboards", { token: reader });
    expect(list.status).toBe(200);
    expect(list.body.map((d: { id: string }) => d.id)).toEqual([id]);
    expect((await api(t.url, `/v1/metrics/dashboards/${id}`, { token: reader })).body.name).toBe(
      "Revenue",
    );

    const renamed = await api(t.url, `/v1/metrics/dashboards/${id}`, {
      method: "PATCH",
      token: seller.token,
      body: { name: "Money" },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: "Money", metrics: ["revenue", "orders"] });
    expect(renamed.body.modified_at).not.toBeNull();

    const remetric = await api(t.url, `/v1/metrics/dashboards/${id}`, {
      method: "PATCH",
      token: seller.token,
      body: { metrics: ["net_revenue"], name: null },
    });
    expect(remetric.body).toMatchObject({ name: "Money", metrics: ["net_revenue"] });

    const gone = await api(t.url, `/v1/metrics/dashboards/${id}`, {
      method: "DELETE",
      token: seller.token,
    });
    expect(gone.status).toBe(204);
    expect((await api(t.url, `/v1/metrics/dashboards/${id}`, { token: reader })).status).toBe(404);
  });

  it("refuses unknown metric slugs, too many metrics and an empty name", async () => {
    const unknown = await api(t.url, "/v1/metrics/dashboards", {
      token: seller.token,
      body: { name: "X", metrics: ["orders", "nope"] },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error).toBe("RequestValidationError");
    expect(unknown.body.detail[0].loc).toEqual(["body", "metrics", 1]);
    const many = await api(t.url, "/v1/metrics/dashboards", {
      token: seller.token,
      body: { name: "X", metrics: Array.from({ length: 11 }, () => "orders") },
    });
    expect(many.status).toBe(422);
    const empty = await api(t.url, "/v1/metrics/dashboards", {
      token: seller.token,
      body: { name: "" },
    });
    expect(empty.status).toBe(422);

    const made = await api(t.url, "/v1/metrics/dashboards", {
      token: seller.token,
      body: { name: "Kept", metrics: ["orders"] },
    });
    const bad = await api(t.url, `/v1/metrics/dashboards/${made.body.id}`, {
      method: "PATCH",
      token: seller.token,
      body: { metrics: ["nope"] },
    });
    expect(bad.status).toBe(422);
    const after = await api(t.url, `/v1/metrics/dashboards/${made.body.id}`, {
      token: seller.token,
    });
    expect(after.body).toMatchObject({ name: "Kept", metrics: ["orders"], modified_at: null });
  });

  it("needs metrics:write to write and any token to read", async () => {
    const res = await api(t.url, "/v1/metrics/dashboards", {
      token: reader,
      body: { name: "No", metrics: [] },
    });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe("NotPermitted");
    expect((await api(t.url, "/v1/metrics/dashboards")).status).toBe(401);
  });

  it("asks a user of several organizations to name one", async () => {
    const second = await createOrganization(t.url, seller.user, "Second");
    const missing = await api(t.url, "/v1/metrics/dashboards", {
      token: seller.user.token,
      body: { name: "Which" },
    });
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0].loc).toEqual(["body", "organization_id"]);
    const named = await api(t.url, "/v1/metrics/dashboards", {
      token: seller.user.token,
      body: { name: "Second's", organization_id: second.id },
    });
    expect(named.status).toBe(201);
    expect(named.body.organization_id).toBe(second.id);
    const foreign = await api(t.url, "/v1/metrics/dashboards", {
      token: seller.user.token,
      body: { name: "Theirs", organization_id: other.organization.id },
    });
    expect(foreign.status).toBe(422);
    const filtered = await api(t.url, `/v1/metrics/dashboards?organization_id=${second.id}`, {
      token: seller.user.token,
    });
    expect(filtered.body.map((d: { name: string }) => d.name)).toEqual(["Second's"]);
  });

  it("hides another organization's dashboards and leaves them unchanged", async () => {
    const mine = await api(t.url, "/v1/metrics/dashboards", {
      token: seller.token,
      body: { name: "Private", metrics: ["orders"] },
    });
    const url = `/v1/metrics/dashboards/${mine.body.id}`;
    expect((await api(t.url, url, { token: other.token })).status).toBe(404);
    const patch = await api(t.url, url, {
      method: "PATCH",
      token: other.token,
      body: { name: "Stolen" },
    });
    expect(patch.status).toBe(404);
    expect((await api(t.url, url, { method: "DELETE", token: other.token })).status).toBe(404);
    const list = await api(t.url, "/v1/metrics/dashboards", { token: other.token });
    expect(list.body).toEqual([]);
    expect((await api(t.url, url, { token: seller.token })).body).toEqual(mine.body);
  });
});
