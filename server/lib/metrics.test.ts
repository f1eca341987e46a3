// GET /metrics: absent without METRICS_TOKEN; with it, only for that bearer, in Prometheus's text
// format with requests by route pattern and status, latency, queue depth, webhook deliveries,
// event-loop lag.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../test/helpers/auth.ts";
import { startTestServer, type TestServer } from "../../test/helpers/server.ts";

const TOKEN = "metrics-token-0123456789abcdef";
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ env: { METRICS_TOKEN: TOKEN } });
});
afterAll(() => t.stop());

describe("GET /metrics", () => {
  it("needs the metrics bearer token", async () => {
    expect((await fetch(`${t.url}/metrics`)).status).toBe(401);
    const wrong = await fetch(`${t.url}/metrics`, { headers: { authorization: "Bearer nope" } });
    expect(wrong.status).toBe(401);
  });

  it("counts requests by route pattern and status, with latency, queues and event-loop lag", async () => {
    const seller = await createSeller(t.url, ["products:read"]);
    const id = "00000000-0000-4000-8000-000000000000";
    expect((await api(t.url, `/v1/products/${id}`, { token: seller.token })).status).toBe(404);
    const res = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    const text = await res.text();
    expect(text).toMatch(
      /till_http_requests_total\{method="GET",route="\/v1\/products\/:id",status="404"\} 1/,
    );
    expect(text).not.toContain(id);
    expect(text).toContain("till_http_request_duration_seconds_bucket{");
    expect(text).toMatch(/till_queue_jobs\{queue="[^"]+",state="ready"\}/);
    expect(text).toContain("till_webhook_deliveries_last_hour");
    expect(text).toContain("nodejs_eventloop_lag_seconds");
  });

  it("is not served at all without METRICS_TOKEN", async () => {
    const plain = await startTestServer();
    try {
      const res = await fetch(`${plain.url}/metrics`, { headers: { accept: "application/json" } });
      expect(res.status).toBe(404);
    } finally {
      await plain.stop();
    }
  });
});
