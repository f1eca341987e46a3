// Security headers on every page: a CSP, no framing of the dashboard and the portal, the hosted
// checkout framed only by its own embed_origin, nosniff, a referrer policy, HSTS in production.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../test/helpers/auth.ts";
import { startTestServer, type TestServer } from "../../test/helpers/server.ts";

let t: TestServer;
let token: string;
let productId: string;

beforeAll(async () => {
  t = await startTestServer();
  token = (await createSeller(t.url, ["products:write", "checkouts:write"])).token;
  const product = await api(t.url, "/v1/products/", {
    token,
    body: {
      name: "Pro",
      prices: [{ amount_type: "fixed", price_amount: 900, price_currency: "usd" }],
    },
  });
  productId = product.body.id;
});
afterAll(() => t.stop());

async function headersOf(path: string): Promise<Headers> {
  const res = await fetch(`${t.url}${path}`, { headers: { accept: "text/html" } });
  await res.text();
  return res.headers;
}

function directive(headers: Headers, name: string): string | undefined {
  return headers
    .get("content-security-policy")
    ?.split(";")
    .map((d) => d.trim())
    .find((d) => d.startsWith(`${name} `));
}

async function checkoutSecret(embedOrigin?: string): Promise<string> {
  const res = await api(t.url, "/v1/checkouts/", {
    token,
    body: { products: [productId], ...(embedOrigin ? { embed_origin: embedOrigin } : {}) },
  });
  expect(res.status).toBe(201);
  return res.body.client_secret;
}

describe("page headers", () => {
  it("dashboard and portal: a CSP, never frameable, nosniff, a referrer policy", async () => {
    for (const path of ["/", "/settings", "/portal"]) {
      const h = await headersOf(path);
      expect(directive(h, "frame-ancestors"), path).toBe("frame-ancestors 'none'");
      expect(directive(h, "script-src"), path).toMatch(
        /^script-src 'self' 'nonce-[A-Za-z0-9+/=]+'$/,
      );
      expect(directive(h, "object-src"), path).toBe("object-src 'none'");
      expect(h.get("x-frame-options"), path).toBe("DENY");
      expect(h.get("x-content-type-options"), path).toBe("nosniff");
      expect(h.get("referrer-policy"), path).toBeTruthy();
      expect(h.get("strict-transport-security"), path).toBeNull();
    }
    expect((await headersOf("/portal")).get("referrer-policy")).toBe("no-referrer");
  });

  it("a new nonce per response, and the device page's inline script carries it", async () => {
    const res = await fetch(`${t.url}/device`);
    const html = await res.text();
    const nonce = /'nonce-([^']+)'/.exec(res.headers.get("content-security-policy") ?? "")?.[1];
    expect(nonce).toBeTruthy();
    expect(html).toContain(`<script nonce="${nonce}">`);
    const again = (await headersOf("/device")).get("content-security-policy");
    expect(again).not.toContain(nonce);
  });

  it("the hosted checkout is frameable only by its validated embed_origin", async () => {
    const embedded = await headersOf(`/checkout/${await checkoutSecret("https://shop.example/x")}`);
    expect(directive(embedded, "frame-ancestors")).toBe("frame-ancestors https://shop.example");
    expect(embedded.get("x-frame-options")).toBeNull();

    const plain = await headersOf(`/checkout/${await checkoutSecret()}`);
    expect(directive(plain, "frame-ancestors")).toBe("frame-ancestors 'none'");
    expect(plain.get("x-frame-options")).toBe("DENY");

    const unknown = await headersOf("/checkout/till_c_unknown");
    expect(directive(unknown, "frame-ancestors")).toBe("frame-ancestors 'none'");
  });

  it("the API's JSON answers carry nosniff too", async () => {
    const res = await fetch(`${t.url}/v1/products/`);
    expect(res.status).toBe(401);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });
});

describe("production", () => {
  it("sends HSTS and upgrades insecure requests", async () => {
    const prod = await startTestServer({ env: { TILL_MODE: "production" } });
    try {
      const res = await fetch(`${prod.url}/healthz`);
      expect(res.headers.get("strict-transport-security")).toBe(
        "max-age=31536000; includeSubDomains",
      );
      expect(res.headers.get("content-security-policy")).toContain("upgrade-insecure-requests");
    } finally {
      await prod.stop();
    }
  });
});
