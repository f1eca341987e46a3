// Delivery end to end: a real server, real outbox rows, a real receiver that verifies with both
// `standardwebhooks` and `@polar-sh/sdk`'s validateEvent.
import { sql } from "drizzle-orm";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inTransaction } from "../../../db/client.ts";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import {
  startReceiver,
  verifyBoth,
  waitFor,
  type Receiver,
} from "../../../test/helpers/webhook-receiver.ts";
import { systemClock } from "../../lib/clock.ts";
import { WEBHOOK_EVENT_TYPES } from "./events.ts";
import { recordEvent } from "./outbox.ts";
import { signedHeaders, signingKeys } from "./signing.ts";

let t: TestServer;
const secrets = new Map<string, string>();
let receiver: Receiver;
const failures = new Map<string, number>();

beforeAll(async () => {
  t = await startTestServer({ env: { WEBHOOK_RETRY_BASE_MS: "150" } });
  receiver = await startReceiver({
    secretFor: (path) => secrets.get(path),
    respond: (_r, n) => (n <= (failures.get(_r.path) ?? 0) ? 500 : 200),
  });
});
afterAll(async () => {
  await t.stop();
  await receiver.close();
});

async function endpoint(
  token: string,
  path: string,
  events: readonly string[],
  base = receiver.url,
) {
  const res = await api(t.url, "/v1/webhooks/endpoints", {
    token,
    body: { url: `${base}${path}`, format: "raw", events },
  });
  expect(res.status).toBe(201);
  secrets.set(path, res.body.secret);
  return res.body as { id: string; secret: string };
}

async function emit(organizationId: string, type: string, data: unknown): Promise<string> {
  return inTransaction(t.server.database.db, (tx) =>
    recordEvent(tx, systemClock, { organizationId, type, data }),
  );
}

const forPath = (path: string) => receiver.receipts.filter((r) => r.path === path);

describe("webhook delivery", () => {
  it("delivers organization.updated from PATCH /v1/organizations with the exact signed bytes; both verifiers accept it", async () => {
    const seller = await createSeller(t.url, ["webhooks:write", "organizations:write"]);
    const ep = await endpoint(seller.token, "/org", ["organization.updated"]);
    const patched = await api(t.url, `/v1/organizations/${seller.organization.id}`, {
      method: "PATCH",
      token: seller.token,
      body: { website: "https://acme.test" },
    });
    expect(patched.status).toBe(200);
    await waitFor(() => forPath("/org").length === 1, 10_000, "delivery");
    const [r] = forPath("/org");
    // validateEvent's signature check passes. (Its model parse of `data` does not: @polar-sh/sdk
    // 0.47.1 requires Organization.notification_settings, which the 2026-10 contract does not have.)
    expect(r).toMatchObject({ standardOk: true, polarOk: true, status: 200 });
    const body = JSON.parse(r!.body);
    expect(body.type).toBe("organization.updated");
    expect(body.timestamp).toMatch(/Z$/);
    expect(body.data).toEqual(patched.body);
    expect(r!.signature.split(" ")).toHaveLength(2);
    expect(Math.abs(Number(r!.timestamp) - Date.now() / 1000)).toBeLessThan(30);
    // webhook-id is the WebhookEvent id, and the payload kept is exactly the bytes that were signed.
    await waitFor(
      async () =>
        (await api(t.url, `/v1/webhooks/deliveries?endpoint_id=${ep.id}`, { token: seller.token }))
          .body.items.length === 1,
      5_000,
      "log",
    );
    const log = await api(t.url, `/v1/webhooks/deliveries?endpoint_id=${ep.id}`, {
      token: seller.token,
    });
    expect(log.body.items[0]).toMatchObject({ succeeded: true, http_code: 200, response: "ok" });
    expect(log.body.items[0].webhook_event).toMatchObject({
      id: r!.id,
      payload: r!.body,
      type: "organization.updated",
      succeeded: true,
      skipped: false,
      is_archived: false,
      last_http_code: 200,
    });
  });

  it("every event type is delivered and accepted by both verifiers; tampered body, wrong secret and a 6-minute-old timestamp are rejected by both", async () => {
    const seller = await createSeller(t.url, ["webhooks:write"]);
    const ep = await endpoint(seller.token, "/all", WEBHOOK_EVENT_TYPES);
    for (const type of WEBHOOK_EVENT_TYPES)
      await emit(seller.organization.id, type, { id: crypto.randomUUID(), type });
    await waitFor(
      () => forPath("/all").length === WEBHOOK_EVENT_TYPES.length,
      20_000,
      "all types delivered",
    );
    const got = forPath("/all");
    expect(new Set(got.map((r) => JSON.parse(r.body).type))).toEqual(new Set(WEBHOOK_EVENT_TYPES));
    for (const r of got) {
      expect(r.standardOk, r.body).toBe(true);
      expect(r.polarOk, r.body).toBe(true);
    }

    const sample = got[0]!;
    const headers = {
      "webhook-id": sample.id,
      "webhook-timestamp": sample.timestamp,
      "webhook-signature": sample.signature,
    };
    const tampered = sample.body.replace(/"type":"/, '"type":"x');
    expect(verifyBoth(tampered, headers, ep.secret)).toMatchObject({
      standardOk: false,
      polarOk: false,
    });
    const wrong = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
    expect(verifyBoth(sample.body, headers, wrong)).toMatchObject({
      standardOk: false,
      polarOk: false,
    });
    const old = Math.floor(Date.now() / 1000) - 6 * 60;
    const oldHeaders = signedHeaders(signingKeys(ep.secret), sample.id, old, sample.body);
    expect(verifyBoth(sample.body, oldHeaders, ep.secret)).toMatchObject({
      standardOk: false,
      polarOk: false,
    });
    // The same signing with a fresh timestamp is accepted: the rejections above are for the reasons named.
    const fresh = signedHeaders(
      signingKeys(ep.secret),
      sample.id,
      Math.floor(Date.now() / 1000),
      sample.body,
    );
    expect(verifyBoth(sample.body, fresh, ep.secret, false)).toMatchObject({
      standardOk: true,
      polarOk: true,
    });
  });

  it("an endpoint that is down for the first 3 attempts gets the event on the 4th, with the same webhook-id; the log shows all 4", async () => {
    const seller = await createSeller(t.url, ["webhooks:write"]);
    // A port nobody listens on yet: the first attempts are refused connections.
    const probe = net.createServer();
    await new Promise<void>((r) => probe.listen(0, "127.0.0.1", () => r()));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const ep = await endpoint(seller.token, "/down", ["order.paid"], `http://localhost:${port}`);
    const eventId = await emit(seller.organization.id, "order.paid", { id: "o1" });
    const attempts = async () =>
      t.server.database.rows<{ attempt: number; succeeded: boolean; http_code: number | null }>(
        sql`select attempt, succeeded, http_code from webhook_deliveries where endpoint_id = ${ep.id} order by attempt`,
      );
    await waitFor(async () => (await attempts()).length >= 3, 15_000, "three failed attempts");
    const late = await startReceiver(
      { secretFor: (p) => (p === "/down" ? ep.secret : undefined) },
      port,
    );
    try {
      await waitFor(() => late.receipts.length === 1, 15_000, "fourth attempt");
      await waitFor(async () => (await attempts()).length === 4, 5_000, "fourth attempt recorded");
      const rows = await attempts();
      expect(rows.map((r) => r.attempt)).toEqual([1, 2, 3, 4]);
      expect(rows.map((r) => r.succeeded)).toEqual([false, false, false, true]);
      expect(rows[0]!.http_code).toBeNull();
      const [event] = await t.server.database.rows<{
        id: string;
        status: string;
        attempts: number;
      }>(sql`select id, status, attempts from webhook_endpoint_events where event_id = ${eventId}`);
      expect(event).toMatchObject({ status: "succeeded", attempts: 4 });
      expect(late.receipts[0]).toMatchObject({ id: event!.id, standardOk: true, polarOk: true });

      // Redelivery: 202, sent again under the same webhook-id, logged as a fifth delivery.
      const redeliver = await api(t.url, `/v1/webhooks/events/${event!.id}/redeliver`, {
        method: "POST",
        token: seller.token,
      });
      expect(redeliver.status).toBe(202);
      await waitFor(() => late.receipts.length === 2, 10_000, "redelivery");
      expect(late.receipts[1]!.id).toBe(event!.id);
      expect(late.receipts[1]!.body).toBe(late.receipts[0]!.body);
      await waitFor(async () => (await attempts()).length === 5, 5_000, "redelivery logged");
    } finally {
      await late.close();
    }
  });

  it("keeps per-endpoint order across 1,000 events", { timeout: 120_000 }, async () => {
    const seller = await createSeller(t.url, ["webhooks:write"]);
    await endpoint(seller.token, "/order", ["order.created"]);
    // A few failures early on must not reorder first attempts (retries are not ordered).
    for (let batch = 0; batch < 10; batch++) {
      await inTransaction(t.server.database.db, async (tx) => {
        for (let i = 0; i < 100; i++)
          await recordEvent(tx, systemClock, {
            organizationId: seller.organization.id,
            type: "order.created",
            data: { n: batch * 100 + i },
          });
      });
    }
    await waitFor(() => forPath("/order").length === 1000, 60_000, "1,000 deliveries");
    const ns = forPath("/order").map((r) => JSON.parse(r.body).data.n as number);
    expect(ns).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    expect(forPath("/order").every((r) => r.standardOk && r.polarOk)).toBe(true);
  });

  it("filters the delivery log by endpoint, success, event type and time; other organizations see nothing", async () => {
    const seller = await createSeller(t.url, ["webhooks:write"]);
    failures.set("/flaky", 1);
    const ep = await endpoint(seller.token, "/flaky", ["order.paid", "order.created"]);
    const other = await endpoint(seller.token, "/other", ["order.paid"]);
    await emit(seller.organization.id, "order.paid", { id: "p" });
    await emit(seller.organization.id, "order.created", { id: "c" });
    const list = (q: string) => api(t.url, `/v1/webhooks/deliveries?${q}`, { token: seller.token });
    await waitFor(
      async () => (await list(`endpoint_id=${ep.id}`)).body.pagination?.total_count === 3,
      10_000,
      "3 deliveries on /flaky",
    );
    expect((await list(`endpoint_id=${ep.id}&succeeded=false`)).body.items).toHaveLength(1);
    expect((await list(`endpoint_id=${ep.id}&succeeded=true`)).body.items).toHaveLength(2);
    expect(
      (await list(`endpoint_id=${ep.id}&event_type=order.created`)).body.items.every(
        (d: { webhook_event: { type: string } }) => d.webhook_event.type === "order.created",
      ),
    ).toBe(true);
    expect(
      (await list(`endpoint_id=${ep.id}&endpoint_id=${other.id}`)).body.pagination.total_count,
    ).toBe(4);
    expect((await list(`endpoint_id=${ep.id}&http_code_class=5xx`)).body.items).toHaveLength(1);
    expect(
      (
        await list(
          `start_timestamp=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
        )
      ).body.items,
    ).toEqual([]);
    expect(
      (
        await list(
          `end_timestamp=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
        )
      ).body.pagination.total_count,
    ).toBe(4);
    expect((await list("succeeded=maybe")).status).toBe(422);
    const stranger = await createSeller(t.url, ["webhooks:write"]);
    expect(
      (await api(t.url, `/v1/webhooks/deliveries?endpoint_id=${ep.id}`, { token: stranger.token }))
        .body.items,
    ).toEqual([]);
    const someEvent = (await list(`endpoint_id=${ep.id}`)).body.items[0].webhook_event.id;
    expect(
      (
        await api(t.url, `/v1/webhooks/events/${someEvent}/redeliver`, {
          method: "POST",
          token: stranger.token,
        })
      ).status,
    ).toBe(404);
  });
});
