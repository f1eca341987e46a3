// Idempotency-Key on /v1 writes: a retried create replays the first answer instead of making a
// duplicate, concurrent duplicates make one resource, another body under the same key is a 422,
// keys are per caller and last 24 hours.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../test/helpers/auth.ts";
import { startTestServer, type TestServer } from "../../test/helpers/server.ts";
import { TestClock } from "./clock.ts";

const clock = new TestClock();
let t: TestServer;
let seller: Awaited<ReturnType<typeof createSeller>>;
let other: Awaited<ReturnType<typeof createSeller>>;
let productId: string;

const product = (name: string) => ({
  name,
  prices: [{ amount_type: "fixed", price_amount: 500, price_currency: "usd" }],
});

beforeAll(async () => {
  t = await startTestServer({ clock });
  seller = await createSeller(t.url, ["products:write", "checkouts:write"]);
  other = await createSeller(t.url, ["products:write"]);
  productId = (await api(t.url, "/v1/products/", { token: seller.token, body: product("Base") }))
    .body.id;
});
afterAll(() => t.stop());

function post(path: string, key: string, body: unknown, token = seller.token) {
  return api(t.url, path, { token, body, headers: { "idempotency-key": key } });
}

async function count(path: string, token = seller.token): Promise<number> {
  return (await api(t.url, `${path}?limit=1`, { token })).body.pagination.total_count;
}

describe("Idempotency-Key", () => {
  it("a retried create replays the first answer and creates nothing more", async () => {
    const before = await count("/v1/products/");
    const key = randomUUID();
    const first = await post("/v1/products/", key, product("Once"));
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await post("/v1/products/", key, product("Once"));
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(await count("/v1/products/")).toBe(before + 1);
  });

  it("the same key with another body is a 422 on the header; another caller's key is its own", async () => {
    const key = randomUUID();
    expect((await post("/v1/products/", key, product("Alpha"))).status).toBe(201);
    const reused = await post("/v1/products/", key, product("Bravo"));
    expect(reused.status).toBe(422);
    expect(reused.body.detail[0].loc).toEqual(["header", "idempotency-key"]);
    const theirs = await post("/v1/products/", key, product("Alpha"), other.token);
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get("idempotent-replayed")).toBeNull();
  });

  it("replays a validation error too, and a PATCH", async () => {
    const key = randomUUID();
    const bad = await post("/v1/products/", key, { name: "" });
    expect(bad.status).toBe(422);
    const badAgain = await post("/v1/products/", key, { name: "" });
    expect(badAgain.status).toBe(422);
    expect(badAgain.headers.get("idempotent-replayed")).toBe("true");

    const patchKey = randomUUID();
    const patch = (name: string) =>
      api(t.url, `/v1/products/${productId}`, {
        method: "PATCH",
        token: seller.token,
        body: { name },
        headers: { "idempotency-key": patchKey },
      });
    expect((await patch("Renamed")).status).toBe(200);
    const replayed = await patch("Renamed");
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");
    expect(replayed.body.name).toBe("Renamed");
  });

  it("concurrent duplicates of a checkout create make one checkout", async () => {
    const before = await count("/v1/checkouts/");
    const key = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => post("/v1/checkouts/", key, { products: [productId] })),
    );
    for (const a of answers) expect([201, 409]).toContain(a.status);
    const ids = new Set(answers.filter((a) => a.status === 201).map((a) => a.body.id));
    expect(ids.size).toBe(1);
    expect(await count("/v1/checkouts/")).toBe(before + 1);
  });

  it("a key is kept 24 hours: after that the same key runs again", async () => {
    const key = randomUUID();
    const first = await post("/v1/products/", key, product("Daily"));
    clock.advance(25 * 3600_000);
    const later = await post("/v1/products/", key, product("Daily"));
    expect(later.status).toBe(201);
    expect(later.headers.get("idempotent-replayed")).toBeNull();
    expect(later.body.id).not.toBe(first.body.id);
  });

  it("a key longer than 255 characters is a 422", async () => {
    const res = await post("/v1/products/", "k".repeat(256), product("Long"));
    expect(res.status).toBe(422);
  });
});
