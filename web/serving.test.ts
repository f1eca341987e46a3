// How till serves the pages over real HTTP: the build's Brotli/gzip copies of hashed assets sent
// immutable, HTML compressed and never cached, a favicon, API answers compressed above a threshold,
// and the checkout's status stream never compressed (it must flush each event).
import http from "node:http";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../test/helpers/auth.ts";
import { startTestServer, type TestServer } from "../test/helpers/server.ts";

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ worker: false });
});
afterAll(async () => {
  await t?.stop();
});

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A request without any client-side decoding, so the test sees what went over the wire. */
function raw(
  path: string,
  headers: Record<string, string> = {},
  firstChunkOnly = false,
): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${t.url}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => {
        chunks.push(c);
        if (firstChunkOnly) {
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks),
          });
          req.destroy();
        }
      });
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    });
    req.on("error", (e) => (firstChunkOnly ? undefined : reject(e)));
  });
}

function decode(r: Raw): string {
  const enc = r.headers["content-encoding"];
  return (
    enc === "br" ? brotliDecompressSync(r.body) : enc === "gzip" ? gunzipSync(r.body) : r.body
  ).toString("utf8");
}

describe("serving the pages", () => {
  it("hashed assets: Brotli or gzip from the build when accepted, immutable for a year, identical once decoded", async () => {
    const page = await raw("/checkout/anything", { "accept-encoding": "br" });
    expect(page.headers["content-encoding"]).toBe("br");
    expect(page.headers["cache-control"]).toBe("no-cache");
    const html = decode(page);
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const plain = await raw(script!);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    const br = await raw(script!, { "accept-encoding": "gzip, deflate, br" });
    const gz = await raw(script!, { "accept-encoding": "gzip" });
    expect([br.headers["content-encoding"], gz.headers["content-encoding"]]).toEqual([
      "br",
      "gzip",
    ]);
    for (const r of [plain, br, gz]) {
      expect(r.status).toBe(200);
      expect(r.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
      expect(r.headers["content-type"]).toContain("javascript");
      expect(r.headers.vary).toContain("accept-encoding");
      expect(decode(r)).toBe(plain.body.toString("utf8"));
    }
    expect(br.body.length).toBeLessThan(plain.body.length / 2);
    // The compressed copies themselves are not addressable.
    expect((await raw(`${script}.br`)).status).toBe(404);
  });

  it("the dashboard's HTML is compressed and not cached; the favicon is served", async () => {
    const index = await raw("/", { accept: "text/html", "accept-encoding": "gzip" });
    expect(index.headers["content-encoding"]).toBe("gzip");
    expect(index.headers["cache-control"]).toBe("no-cache");
    expect(decode(index)).toContain('<link rel="icon" href="/favicon.svg"');
    const icon = await raw("/favicon.ico");
    expect(icon.status).toBe(200);
    expect(icon.headers["content-type"]).toContain("image/svg+xml");
  });

  it("an API path with a repeated slash answers the API's 404, not the dashboard", async () => {
    // A client whose base URL ends in a slash asks for //v1/products/: it must see why it failed.
    for (const path of ["//v1/products/", "//v1", "///api/auth/get-session", "//assets/x.js"]) {
      const r = await raw(path, { accept: "text/html,*/*" });
      expect(r.status, path).toBe(404);
      expect(r.headers["content-type"], path).toContain("application/json");
      expect(JSON.parse(decode(r)), path).toEqual({
        error: "ResourceNotFound",
        detail: `No route for GET ${path} (the path has a repeated slash: check the client's base URL)`,
      });
    }
    // The dashboard's own routes still load.
    const page = await raw("/products", { accept: "text/html" });
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toContain("text/html");
  });

  it("API answers above 1 KB are compressed, smaller ones are not", async () => {
    const seller = await createSeller(t.url, ["products:write", "products:read"]);
    for (let i = 0; i < 6; i++)
      await api(t.url, "/v1/products/", {
        token: seller.token,
        body: {
          name: `Product ${i} with a long enough name`,
          prices: [{ amount_type: "fixed", price_amount: 1000 + i, price_currency: "usd" }],
        },
      });
    const auth = { authorization: `Bearer ${seller.token}`, "accept-encoding": "br, gzip" };
    const big = await raw("/v1/products/?limit=100", auth);
    expect(big.status).toBe(200);
    expect(big.headers["content-encoding"]).toBe("br");
    expect(JSON.parse(decode(big)).items).toHaveLength(6);
    const small = await raw("/healthz", { "accept-encoding": "br, gzip" });
    expect(small.headers["content-encoding"]).toBeUndefined();
  });

  it("the checkout's status stream is sent uncompressed, event by event", async () => {
    const seller = await createSeller(t.url, ["products:write", "checkouts:write"]);
    const product = await api(t.url, "/v1/products/", {
      token: seller.token,
      body: {
        name: "Stream",
        prices: [{ amount_type: "fixed", price_amount: 500, price_currency: "usd" }],
      },
    });
    const checkout = await api(t.url, "/v1/checkouts/", {
      token: seller.token,
      body: { products: [product.body.id] },
    });
    const stream = await raw(
      `/v1/checkouts/client/${checkout.body.client_secret}/stream`,
      { "accept-encoding": "br, gzip", accept: "text/event-stream" },
      true,
    );
    expect(stream.headers["content-type"]).toContain("text/event-stream");
    expect(stream.headers["content-encoding"]).toBeUndefined();
    expect(stream.body.length).toBeGreaterThan(0);
  });
});
