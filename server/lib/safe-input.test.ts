// Input PostgreSQL cannot store (NUL, lone surrogates), prototype-named metadata filters, bodies
// nested without end and checkout fields that used to be dropped: each answers a 4xx in Polar's
// shape with the field's loc, and nothing is written.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../test/helpers/auth.ts";
import { startTestServer, type TestServer } from "../../test/helpers/server.ts";
import { US_ADDRESS } from "../../test/helpers/addresses.ts";

let t: TestServer;
let token: string;
let clientSecret: string;
let productId: string;

beforeAll(async () => {
  t = await startTestServer();
  const seller = await createSeller(t.url, [
    "products:write",
    "checkouts:write",
    "customers:write",
    "subscriptions:read",
    "license_keys:write",
  ]);
  token = seller.token;
  const product = await api(t.url, "/v1/products/", {
    token,
    body: {
      name: "Pro",
      recurring_interval: "month",
      prices: [{ amount_type: "fixed", price_amount: 1500, price_currency: "usd" }],
    },
  });
  expect(product.status).toBe(201);
  productId = product.body.id;
  const checkout = await api(t.url, "/v1/checkouts/", { token, body: { products: [productId] } });
  expect(checkout.status).toBe(201);
  clientSecret = checkout.body.client_secret;
});
afterAll(() => t.stop());

function expectLoc(
  res: { status: number; body: { error?: string; detail: { loc: unknown }[] } },
  loc: (string | number)[],
) {
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  expect(res.body.error).toBe("RequestValidationError");
  expect(res.body.detail[0]?.loc).toEqual(loc);
}

describe("strings PostgreSQL cannot store", () => {
  it("a NUL in a JSON string is a 422 at its field, nothing created", async () => {
    const before = await api(t.url, "/v1/products/?limit=100", { token });
    expectLoc(await api(t.url, "/v1/products/", { token, body: { name: "a\u0000b" } }), [
      "body",
      "name",
    ]);
    expectLoc(
      await api(t.url, "/v1/products/", {
        token,
        body: { name: "x", metadata: { "k\u0000": "v" }, prices: [] },
      }),
      ["body", "metadata", "k\u0000"],
    );
    const after = await api(t.url, "/v1/products/?limit=100", { token });
    expect(after.body.pagination.total_count).toBe(before.body.pagination.total_count);
  });

  it("unauthenticated checkout client update and confirm, and license-key validate", async () => {
    expectLoc(
      await api(t.url, `/v1/checkouts/client/${clientSecret}`, {
        method: "PATCH",
        body: { customer_name: "Ada\u0000" },
      }),
      ["body", "customer_name"],
    );
    expectLoc(
      await api(t.url, `/v1/checkouts/client/${clientSecret}/confirm`, {
        body: { customer_email: "a@example.com", customer_billing_address: { city: "\u0000" } },
      }),
      ["body", "customer_billing_address", "city"],
    );
    expectLoc(
      await api(t.url, "/v1/customer-portal/license-keys/validate", {
        body: { key: "K\u0000", organization_id: "00000000-0000-4000-8000-000000000000" },
      }),
      ["body", "key"],
    );
  });

  it("a NUL in a query value or a path segment is a 422 at that field", async () => {
    expectLoc(await api(t.url, "/v1/products/?query=a%00b", { token }), ["query", "query"]);
    expectLoc(await api(t.url, "/v1/checkouts/client/till_c_x%00y", {}), ["path", "client_secret"]);
    expectLoc(await api(t.url, "/buy/abc%00"), ["path", "clientSecret"]);
    // The device-approval lookup, answered by better-auth, too.
    expectLoc(await api(t.url, "/api/auth/device?user_code=%00"), ["query", "user_code"]);
  });

  it("a lone surrogate in metadata, a body nested past 32 levels, a broken percent-encoding", async () => {
    const lone = '{"name":"x","prices":[],"metadata":{"k":"\\ud800"}}';
    const res = await fetch(`${t.url}/v1/products/`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: lone,
    });
    expectLoc({ status: res.status, body: await res.json() }, ["body", "metadata", "k"]);
    const deep = `{"name":"x","metadata":${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
    const nested = await fetch(`${t.url}/v1/products/`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: deep,
    });
    expect(nested.status).toBe(422);
    expect(((await nested.json()) as { detail: { type: string }[] }).detail[0]!.type).toBe(
      "too_deep",
    );
    expectLoc(await api(t.url, "/v1/products/%E0%A4%A", { token }), ["path"]);
  });
});

describe("metadata integers JSON.parse cannot hold exactly", () => {
  it("are a 422 at the key, nothing created; safe integers and floats are kept", async () => {
    const post = (metadata: string) =>
      fetch(`${t.url}/v1/customers/`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: `{"email":"big@example.com","metadata":${metadata}}`,
      });
    for (const n of ["12345678901234567890", "-9007199254740993"]) {
      const res = await post(`{"n":${n}}`);
      expectLoc({ status: res.status, body: await res.json() }, ["body", "metadata", "n"]);
    }
    const listed = await api(t.url, "/v1/customers/?email=big@example.com", { token });
    expect(listed.body.items).toEqual([]);
    const kept = await post('{"n":9007199254740991,"f":1.5}');
    expect(kept.status).toBe(201);
    expect(((await kept.json()) as { metadata: unknown }).metadata).toEqual({
      n: 9007199254740991,
      f: 1.5,
    });
  });
});

describe("metadata filters named like Object.prototype members", () => {
  it("are ordinary keys: 200, no match, no prototype touched", async () => {
    for (const key of ["constructor", "toString", "__proto__", "hasOwnProperty"]) {
      for (const path of ["/v1/products/", "/v1/customers/", "/v1/subscriptions/"]) {
        const res = await api(t.url, `${path}?metadata[${key}]=x`, { token });
        expect(res.status, `${path} ${key}: ${JSON.stringify(res.body)}`).toBe(200);
        expect(res.body.items).toEqual([]);
      }
    }
    expect(({} as Record<string, unknown>).x).toBeUndefined();
    expect(Object.hasOwn(Object.prototype, "x")).toBe(false);
  });
});

describe("checkout fields validated like every other", () => {
  it("seats and trial_interval out of range are a 422", async () => {
    expectLoc(
      await api(t.url, `/v1/checkouts/client/${clientSecret}`, {
        method: "PATCH",
        body: { seats: 0 },
      }),
      ["body", "seats"],
    );
    const checkout = await api(t.url, "/v1/checkouts/", { token, body: { products: [productId] } });
    expectLoc(
      await api(t.url, `/v1/checkouts/${checkout.body.id}`, {
        token,
        method: "PATCH",
        body: { trial_interval: "fortnight" },
      }),
      ["body", "trial_interval"],
    );
    expectLoc(
      await api(t.url, `/v1/checkouts/${checkout.body.id}`, {
        token,
        method: "PATCH",
        body: { seats: "many" },
      }),
      ["body", "seats"],
    );
  });
});

describe("customers ?active=", () => {
  it("true lists customers with an active subscription, false the others", async () => {
    const idle = await api(t.url, "/v1/customers/", {
      token,
      body: { email: "idle@example.com", name: "Idle" },
    });
    expect(idle.status).toBe(201);
    const checkout = await api(t.url, "/v1/checkouts/", { token, body: { products: [productId] } });
    const confirmed = await api(
      t.url,
      `/v1/checkouts/client/${checkout.body.client_secret}/confirm`,
      {
        body: {
          customer_email: "payer@example.com",
          customer_name: "Payer",
          customer_billing_address: US_ADDRESS,
          confirmation_token_id: "sandbox_token_success",
        },
      },
    );
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    let payer: { id: string } | undefined;
    for (let i = 0; i < 50 && !payer; i++) {
      const subs = await api(t.url, "/v1/subscriptions/?active=true", { token });
      payer = subs.body.items[0]?.customer;
      if (!payer) await new Promise((r) => setTimeout(r, 100));
    }
    expect(payer).toBeDefined();
    const active = await api(t.url, "/v1/customers/?active=true", { token });
    expect(active.body.items.map((c: { id: string }) => c.id)).toEqual([payer!.id]);
    const inactive = await api(t.url, "/v1/customers/?active=false", { token });
    const ids = inactive.body.items.map((c: { id: string }) => c.id);
    expect(ids).toContain(idle.body.id);
    expect(ids).not.toContain(payer!.id);
  });
});
