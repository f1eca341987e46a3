// CORS on /v1: bearer calls from any origin (preflight included) work; the session cookie is
// accepted only from a trusted origin, so a cross-site simple request cannot act as the user.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../test/helpers/auth.ts";
import { startTestServer, type TestServer } from "../../test/helpers/server.ts";

let t: TestServer;
let seller: Awaited<ReturnType<typeof createSeller>>;
let cookie: string;
const EVIL = "https://evil.example";

beforeAll(async () => {
  t = await startTestServer();
  seller = await createSeller(t.url, ["products:write", "webhooks:write"]);
  const res = await fetch(`${t.url}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { origin: t.url, "content-type": "application/json" },
    body: JSON.stringify({ email: seller.user.email, password: seller.user.password }),
  });
  expect(res.status).toBe(200);
  cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  expect(cookie).toContain("session_token=");
});
afterAll(() => t.stop());

async function productCount(): Promise<number> {
  const res = await api(t.url, "/v1/products/", { token: seller.token });
  return res.body.pagination.total_count;
}

describe("bearer tokens from any origin", () => {
  it("preflight answers 204 with the methods and the asked headers, for any origin", async () => {
    const res = await fetch(`${t.url}/v1/products/`, {
      method: "OPTIONS",
      headers: {
        origin: "https://shop.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type, idempotency-key",
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-methods")).toContain("PATCH");
    expect(res.headers.get("access-control-allow-headers")).toContain("authorization");
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
  });

  it("a bearer call from another origin works and is readable", async () => {
    const res = await api(t.url, "/v1/products/", {
      token: seller.token,
      headers: { origin: "https://shop.example" },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
  });
});

describe("the session cookie", () => {
  it("works from the server's own origin", async () => {
    const res = await api(t.url, "/v1/products/", { headers: { cookie } });
    expect(res.status).toBe(200);
    const created = await api(t.url, "/v1/products/", {
      headers: { cookie },
      body: {
        name: "Same origin",
        organization_id: seller.organization.id,
        prices: [{ amount_type: "free" }],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  });

  it("is refused from another origin: a text/plain POST changes nothing", async () => {
    const before = await productCount();
    const res = await fetch(`${t.url}/v1/products/`, {
      method: "POST",
      headers: { origin: EVIL, cookie, "content-type": "text/plain" },
      body: JSON.stringify({ name: "Forged", prices: [{ amount_type: "free" }] }),
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: "NotPermitted" });
    expect(await productCount()).toBe(before);

    const redeliver = await fetch(`${t.url}/v1/webhooks/events/${randomUUID()}/redeliver`, {
      method: "POST",
      headers: { origin: EVIL, cookie, "content-type": "text/plain" },
    });
    expect(redeliver.status).toBe(403);
  });

  it("is refused on a write without any origin, and on a cross-site read", async () => {
    const write = await fetch(`${t.url}/v1/products/`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body: JSON.stringify({ name: "No origin", prices: [{ amount_type: "free" }] }),
    });
    expect(write.status).toBe(403);
    const read = await fetch(`${t.url}/v1/products/`, {
      headers: { cookie, "sec-fetch-site": "cross-site" },
    });
    expect(read.status).toBe(403);
    const sameSiteRead = await fetch(`${t.url}/v1/products/`, {
      headers: { cookie, "sec-fetch-site": "same-origin" },
    });
    expect(sameSiteRead.status).toBe(200);
  });
});
