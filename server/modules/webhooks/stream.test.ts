// GET /v1/cli/listen/{organization_id}: the live stream `till listen` reads.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inTransaction, type Tx } from "../../../db/client.ts";
import { api, createAccessToken, createSeller } from "../../../test/helpers/auth.ts";
import { startSibling } from "../../../test/helpers/cluster.ts";
import { usingPostgres } from "../../../test/helpers/db.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { openSse, type SseClient } from "../../../test/helpers/sse.ts";
import { waitFor } from "../../../test/helpers/webhook-receiver.ts";
import { systemClock } from "../../lib/clock.ts";
import { recordEvent, recordEvents } from "./outbox.ts";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.stop());

const listen = (base: string, orgId: string, token: string, lastEventId?: string) =>
  openSse(`${base}/v1/cli/listen/${orgId}`, token, lastEventId);
const payloads = (c: SseClient) =>
  c.events.slice(1).map((e) => ({ id: e.id, ...JSON.parse(JSON.parse(e.data).body) }));
const emit = (organizationId: string, n: number) =>
  inTransaction(t.server.database.db, (tx) =>
    recordEvent(tx, systemClock, { organizationId, type: "order.created", data: { n } }),
  );

/** Runs `record` in a transaction held open until `commit()`; `slow` settles when it committed. */
async function recordedNotCommitted(record: (tx: Tx) => Promise<unknown>) {
  let commit!: () => void;
  const held = new Promise<void>((resolve) => (commit = resolve));
  let recorded!: () => void;
  const inserted = new Promise<void>((resolve) => (recorded = resolve));
  const slow = inTransaction(t.server.database.db, async (tx) => {
    await record(tx);
    recorded();
    await held;
  });
  await inserted;
  return { commit, slow };
}

describe("live webhook stream", () => {
  it("first message carries the listen secret (stored per user and organization); then each payload with its seq as the SSE id", async () => {
    const seller = await createSeller(t.url, ["webhooks:write"]);
    const a = await listen(t.url, seller.organization.id, seller.user.token);
    expect(a.status).toBe(200);
    await waitFor(() => a.events.length >= 1, 5_000, "connected message");
    const hello = JSON.parse(a.events[0]!.data);
    expect(hello.key).toBe("connected");
    expect(hello.secret).toMatch(/^whsec_/);
    await emit(seller.organization.id, 1);
    const patched = await api(t.url, `/v1/organizations/${seller.organization.id}`, {
      method: "PATCH",
      token: seller.user.token,
      body: { website: "https://s.test" },
    });
    await waitFor(() => a.events.length === 3, 5_000, "two events");
    const [first, second] = payloads(a);
    expect(first).toMatchObject({ type: "order.created", data: { n: 1 } });
    expect(second).toMatchObject({
      type: "organization.updated",
      data: { id: seller.organization.id, website: "https://s.test" },
    });
    expect(second.data).toEqual(patched.body);
    // Each message is signed with the listen secret, as the CLI checks before forwarding.
    const { Webhook } = await import("standardwebhooks");
    const verifier = new Webhook(hello.secret.replace(/^whsec_/, ""));
    for (const e of a.events.slice(1)) {
      const m = JSON.parse(e.data) as {
        webhook_id: string;
        timestamp: number;
        signature: string;
        body: string;
      };
      expect(() =>
        verifier.verify(m.body, {
          "webhook-id": m.webhook_id,
          "webhook-timestamp": String(m.timestamp),
          "webhook-signature": m.signature,
        }),
      ).not.toThrow();
    }
    const seqs = await t.server.database.rows<{ seq: string }>(
      sql`select seq from webhook_events where organization_id = ${seller.organization.id} order by seq`,
    );
    expect([first.id, second.id]).toEqual(seqs.map((r) => String(r.seq)));
    a.close();

    const again = await listen(t.url, seller.organization.id, seller.user.token);
    await waitFor(() => again.events.length >= 1, 5_000, "connected again");
    expect(JSON.parse(again.events[0]!.data).secret).toBe(hello.secret);
    expect(again.events).toHaveLength(1); // without Last-Event-ID it starts from now
    again.close();
  });

  it("a listener that disconnects and reconnects with Last-Event-ID receives exactly the events it missed, in order", async () => {
    const seller = await createSeller(t.url, ["webhooks:read"]);
    const a = await listen(t.url, seller.organization.id, seller.user.token);
    await waitFor(() => a.events.length >= 1, 5_000, "connected");
    await emit(seller.organization.id, 1);
    await waitFor(() => a.events.length === 2, 5_000, "first event");
    const lastId = a.events[1]!.id!;
    a.close();
    await a.ended;
    for (let n = 2; n <= 6; n++) await emit(seller.organization.id, n);
    const b = await listen(t.url, seller.organization.id, seller.user.token, lastId);
    await waitFor(() => b.events.length === 6, 5_000, "five missed events");
    await emit(seller.organization.id, 7);
    await waitFor(() => b.events.length === 7, 5_000, "and the next live one");
    expect(payloads(b).map((p) => p.data.n)).toEqual([2, 3, 4, 5, 6, 7]);
    b.close();
  });

  it("another organization's stream is a 404, an organization token a 403, no token a 401; events of other organizations are not streamed", async () => {
    const seller = await createSeller(t.url, ["webhooks:read"]);
    const stranger = await createSeller(t.url, ["webhooks:read"]);
    expect((await listen(t.url, seller.organization.id, stranger.user.token)).status).toBe(404);
    const oat = await createAccessToken(t.url, seller.user, seller.organization.id, [
      "webhooks:read",
    ]);
    expect((await listen(t.url, seller.organization.id, oat)).status).toBe(403);
    expect((await fetch(`${t.url}/v1/cli/listen/${seller.organization.id}`)).status).toBe(401);
    expect((await listen(t.url, "not-a-uuid", seller.user.token)).status).toBe(422);
    const mine = await listen(t.url, seller.organization.id, seller.user.token);
    await waitFor(() => mine.events.length >= 1, 5_000, "connected");
    await emit(stranger.organization.id, 99);
    await emit(seller.organization.id, 1);
    await waitFor(() => mine.events.length === 2, 5_000, "own event");
    await new Promise((r) => setTimeout(r, 200));
    expect(payloads(mine).map((p) => p.data.n)).toEqual([1]);
    mine.close();
  });

  if (usingPostgres()) {
    it("an event committed after a later one reaches the listener without an SSE id, so a reconnect replays nothing twice", async () => {
      const seller = await createSeller(t.url, ["webhooks:read"]);
      const a = await listen(t.url, seller.organization.id, seller.user.token);
      await waitFor(() => a.events.length >= 1, 5_000, "connected");
      // The first event takes its seq, then waits to commit until the second has been streamed.
      const { commit, slow } = await recordedNotCommitted((tx) =>
        recordEvent(tx, systemClock, {
          organizationId: seller.organization.id,
          type: "order.created",
          data: { n: 1 },
        }),
      );
      await emit(seller.organization.id, 2);
      await waitFor(() => a.events.length === 2, 5_000, "the second event");
      commit();
      await slow;
      await waitFor(() => a.events.length === 3, 5_000, "the first event, late");
      expect(payloads(a).map((p) => p.data.n)).toEqual([2, 1]);
      const [second, first] = a.events.slice(1);
      expect(second!.id).not.toBeNull();
      expect(first!.id).toBeNull();
      a.close();
      await a.ended;
      // The client's Last-Event-ID is still the second event's seq: nothing is owed.
      const b = await listen(t.url, seller.organization.id, seller.user.token, second!.id!);
      await waitFor(() => b.events.length >= 1, 5_000, "reconnected");
      await emit(seller.organization.id, 3);
      await waitFor(() => b.events.length === 2, 5_000, "the next live event");
      expect(payloads(b).map((p) => p.data.n)).toEqual([3]);
      b.close();
    });

    it("a statement of several events committed after a later event: all of them reach the listener late, in order, once", async () => {
      const seller = await createSeller(t.url, ["webhooks:read"]);
      const a = await listen(t.url, seller.organization.id, seller.user.token);
      await waitFor(() => a.events.length >= 1, 5_000, "connected");
      const organizationId = seller.organization.id;
      const { commit, slow } = await recordedNotCommitted((tx) =>
        recordEvents(
          tx,
          systemClock,
          [1, 2, 3].map((n) => ({ organizationId, type: "order.created", data: { n } })),
        ),
      );
      await emit(organizationId, 4);
      await waitFor(() => a.events.length === 2, 5_000, "the later event");
      commit();
      await slow;
      await waitFor(() => a.events.length === 5, 5_000, "the statement's events, late");
      await emit(organizationId, 5);
      await waitFor(() => a.events.length === 6, 5_000, "the next live event");
      expect(payloads(a).map((p) => p.data.n)).toEqual([4, 1, 2, 3, 5]);
      expect(a.events.slice(1).map((e) => e.id === null)).toEqual([false, true, true, true, false]);
      a.close();
    });

    it("two instances on one PostgreSQL: a listener on A receives an event produced through the API of B", async () => {
      const b = await startSibling(t);
      try {
        const seller = await createSeller(t.url, ["webhooks:read"]);
        const stream = await listen(t.url, seller.organization.id, seller.user.token);
        await waitFor(() => stream.events.length >= 1, 5_000, "connected to A");
        const patched = await api(b.url, `/v1/organizations/${seller.organization.id}`, {
          method: "PATCH",
          token: seller.user.token,
          body: { website: "https://from-b.test" },
        });
        expect(patched.status).toBe(200);
        await waitFor(() => stream.events.length === 2, 5_000, "event from B on A");
        expect(payloads(stream)[0]).toMatchObject({
          type: "organization.updated",
          data: { website: "https://from-b.test" },
        });
        stream.close();
      } finally {
        await b.stop();
      }
    });
  } else {
    it("PGlite (one process owns the database, so one instance): a listener receives an event produced through the API", async () => {
      const seller = await createSeller(t.url, ["webhooks:read"]);
      const stream = await listen(t.url, seller.organization.id, seller.user.token);
      await waitFor(() => stream.events.length >= 1, 5_000, "connected");
      await api(t.url, `/v1/organizations/${seller.organization.id}`, {
        method: "PATCH",
        token: seller.user.token,
        body: { website: "https://one.test" },
      });
      await waitFor(() => stream.events.length === 2, 5_000, "event");
      expect(payloads(stream)[0]).toMatchObject({
        type: "organization.updated",
        data: { website: "https://one.test" },
      });
      stream.close();
    });
  }

  it("graceful shutdown ends open streams instead of waiting out the grace period", async () => {
    const s = await startTestServer({ env: { SHUTDOWN_GRACE_MS: "30000" } });
    const seller = await createSeller(s.url, ["webhooks:read"]);
    const stream = await listen(s.url, seller.organization.id, seller.user.token);
    await waitFor(() => stream.events.length >= 1, 5_000, "connected");
    expect(s.server.webhooks.streams.size).toBe(1);
    const started = Date.now();
    await s.stop();
    await stream.ended;
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
