// PostgreSQL outages, through a TCP proxy the test can cut: requests answer 503 with Retry-After
// within a bounded time, /readyz says so, and both recover without a restart; requests waiting on
// a lock give up after lock_timeout; stop() ends within SHUTDOWN_GRACE_MS with a query stuck.
import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { api, createSeller } from "../test/helpers/auth.ts";
import { CuttableProxy } from "../test/helpers/cuttable-proxy.ts";
import { createDatabase, dropDatabase, usingPostgres } from "../test/helpers/db.ts";
import { freePort } from "../test/helpers/server.ts";
import { databaseUrl } from "../test/helpers/template.ts";
import { loadConfig } from "./config.ts";
import { type RunningServer, start } from "./main.ts";

const pg = usingPostgres();
const info = inject("template");
let adminUrl = "";
let dbName = "";
let directUrl = "";
let proxy: CuttableProxy;
let proxyPort = 0;

async function serve(env: Record<string, string>): Promise<RunningServer> {
  const port = await freePort();
  const url = new URL(directUrl);
  url.host = `127.0.0.1:${proxyPort}`;
  const config = loadConfig({
    command: "test",
    env: {
      PORT: String(port),
      BASE_URL: `http://localhost:${port}`,
      LOG_LEVEL: "silent",
      DATABASE_URL: url.toString(),
      DATABASE_CONNECT_TIMEOUT_MS: "1000",
      ...env,
    },
  });
  return start(config, { worker: false });
}

beforeAll(async () => {
  if (!pg || info.kind !== "postgres") return;
  adminUrl = info.adminUrl;
  dbName = `${info.prefix}_outage_${randomBytes(4).toString("hex")}`;
  await createDatabase(adminUrl, dbName, info.template);
  directUrl = databaseUrl(adminUrl, dbName);
  const target = new URL(directUrl);
  proxy = new CuttableProxy({ host: target.hostname, port: Number(target.port || 5432) });
  proxyPort = await proxy.listen();
});
afterAll(async () => {
  proxy?.close();
  if (dbName) await dropDatabase(adminUrl, dbName);
});

/** Holds a row lock on the product from another connection until release(). */
async function lockProduct(id: string): Promise<{ release(): Promise<void> }> {
  const holder = postgres(directUrl, { max: 1, onnotice: () => {} });
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let locked!: () => void;
  const isLocked = new Promise<void>((r) => (locked = r));
  const tx = holder.begin(async (sql) => {
    await sql`select id from products where id = ${id} for update`;
    locked();
    await held;
  });
  await isLocked;
  return {
    async release() {
      release();
      await tx.catch(() => {});
      await holder.end();
    },
  };
}

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const t0 = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - t0 };
}

describe.skipIf(!pg)("database outages (PostgreSQL)", () => {
  it("503 with Retry-After within bounded time while unreachable; recovers without a restart", {
    timeout: 60_000,
  }, async () => {
    const server = await serve({ DATABASE_LOCK_TIMEOUT_MS: "500" });
    try {
      const seller = await createSeller(server.url, ["products:write"]);
      expect((await api(server.url, "/v1/products/", { token: seller.token })).status).toBe(200);

      proxy.down();
      const down = await timed(() => api(server.url, "/v1/products/", { token: seller.token }));
      expect(down.value.status).toBe(503);
      expect(down.value.body.error).toBe("ServiceUnavailable");
      expect(down.value.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(down.ms).toBeLessThan(5_000);
      expect((await fetch(`${server.url}/readyz`)).status).toBe(503);

      proxy.up();
      let status = 0;
      for (let i = 0; i < 50 && status !== 200; i++) {
        status = (await api(server.url, "/v1/products/", { token: seller.token })).status;
        if (status !== 200) await new Promise((r) => setTimeout(r, 200));
      }
      expect(status).toBe(200);
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);

      // Ten writes waiting on one row lock give up after lock_timeout; reads go on meanwhile.
      const product = await api(server.url, "/v1/products/", {
        token: seller.token,
        body: { name: "Locked", prices: [{ amount_type: "free" }] },
      });
      const lock = await lockProduct(product.body.id);
      const writes = await timed(() =>
        Promise.all(
          Array.from({ length: 10 }, () =>
            api(server.url, `/v1/products/${product.body.id}`, {
              method: "PATCH",
              token: seller.token,
              body: { name: "Renamed" },
            }),
          ),
        ),
      );
      expect(writes.value.map((w) => w.status)).toEqual(Array(10).fill(503));
      expect(writes.ms).toBeLessThan(5_000);
      expect((await api(server.url, "/v1/products/", { token: seller.token })).status).toBe(200);
      // A write that failed with 503 under an Idempotency-Key does not keep the key.
      const keyed = () =>
        api(server.url, `/v1/products/${product.body.id}`, {
          method: "PATCH",
          token: seller.token,
          body: { name: "Keyed" },
          headers: { "idempotency-key": "outage-retry" },
        });
      expect((await keyed()).status).toBe(503);
      await lock.release();
      const retried = await keyed();
      expect(retried.status).toBe(200);
      expect(retried.headers.get("idempotent-replayed")).toBeNull();
      expect(retried.body.name).toBe("Keyed");
    } finally {
      proxy.up();
      await server.stop();
    }
  });

  it("stop() ends within SHUTDOWN_GRACE_MS with a query stuck on a lock", {
    timeout: 60_000,
  }, async () => {
    const server = await serve({
      DATABASE_LOCK_TIMEOUT_MS: "0",
      DATABASE_STATEMENT_TIMEOUT_MS: "0",
      SHUTDOWN_GRACE_MS: "1000",
    });
    const seller = await createSeller(server.url, ["products:write"]);
    const product = await api(server.url, "/v1/products/", {
      token: seller.token,
      body: { name: "Stuck", prices: [{ amount_type: "free" }] },
    });
    const lock = await lockProduct(product.body.id);
    const stuck = api(server.url, `/v1/products/${product.body.id}`, {
      method: "PATCH",
      token: seller.token,
      body: { name: "Never" },
    }).catch((err: Error) => err);
    await new Promise((r) => setTimeout(r, 300));
    const stopping = await timed(() => server.stop());
    expect(stopping.ms).toBeLessThan(2_500);
    await stuck;
    await lock.release();
  });
});
