import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../test/helpers/server.ts";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.stop());

describe("health", () => {
  it("GET /healthz answers 200 while the process runs", async () => {
    const res = await fetch(`${t.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok" });
  });

  it("GET /readyz answers 200 with the driver while the database answers", async () => {
    const res = await fetch(`${t.url}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      status: "ok",
      database: t.server.database.driver,
      mode: "sandbox",
    });
  });

  it("GET /readyz answers 503 ServiceUnavailable once the database is gone, /healthz still 200", async () => {
    await t.server.queue.stop();
    await t.server.database.close();
    const res = await fetch(`${t.url}/readyz`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({
      error: "ServiceUnavailable",
      detail: "The database is not answering.",
    });
    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
  });
});
