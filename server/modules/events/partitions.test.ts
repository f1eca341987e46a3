// Monthly partitions of events on whichever driver this run uses: the DEFAULT partition takes any
// timestamp and gives a month's rows up when its partition is created, dedup holds across
// partitions (and within a batch, across batches and between concurrent batches), a detached month
// leaves the rest readable, and deleting an organization removes its events and dedup rows.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import {
  createEventPartition,
  detachEventPartition,
  ensureEventPartitions,
} from "./partition-repository.ts";

type Seller = Awaited<ReturnType<typeof createSeller>>;
let t: TestServer;
let seller: Seller;
beforeAll(async () => {
  t = await startTestServer();
  seller = await createSeller(t.url, ["events:write"]);
});
afterAll(() => t.stop());

/** Ingests events of one external customer. */
const ingest = (events: object[], token = seller.token) =>
  api(t.url, "/v1/events/ingest", {
    token,
    body: { events: events.map((e) => ({ external_customer_id: "u1", ...e })) },
  });
const rows = <T>(query: ReturnType<typeof sql>) => t.server.database.rows<T>(query);

/** Where each event named `name` is stored: its partition, by timestamp. */
async function placement(name: string): Promise<{ part: string; ts: string }[]> {
  const found = await rows<{ part: string; ts: Date | string }>(
    sql`select tableoid::regclass::text as part, timestamp as ts from events where name = ${name} order by timestamp`,
  );
  return found.map((r) => ({ part: r.part, ts: new Date(r.ts).toISOString() }));
}

async function partitions(): Promise<string[]> {
  const found = await rows<{ name: string }>(
    sql`select inhrelid::regclass::text as name from pg_inherits where inhparent = 'events'::regclass order by 1`,
  );
  return found.map((r) => r.name);
}

describe("monthly partitions", () => {
  it("an event of a month without a partition lands in DEFAULT and moves when the month is created", async () => {
    const res = await ingest([
      { name: "ahead", external_id: "ahead-1", timestamp: "2031-03-15T10:00:00Z" },
      { name: "ahead", timestamp: "2031-03-31T23:59:59.999Z" },
      { name: "ahead", timestamp: "2031-04-01T00:00:00Z" },
    ]);
    expect(res.body).toEqual({ inserted: 3, duplicates: 0 });
    expect((await placement("ahead")).map((p) => p.part)).toEqual([
      "events_default",
      "events_default",
      "events_default",
    ]);

    const created = await createEventPartition(t.server.database.db, new Date("2031-03-20Z"));
    expect(created).toEqual({ name: "events_2031_03", created: true, moved: 2 });
    expect(await placement("ahead")).toEqual([
      { part: "events_2031_03", ts: "2031-03-15T10:00:00.000Z" },
      { part: "events_2031_03", ts: "2031-03-31T23:59:59.999Z" },
      { part: "events_default", ts: "2031-04-01T00:00:00.000Z" },
    ]);
    // Creating it again changes nothing; reads by id and lists still find the moved events.
    expect(await createEventPartition(t.server.database.db, new Date("2031-03-01Z"))).toEqual({
      name: "events_2031_03",
      created: false,
      moved: 0,
    });
    const list = await api(t.url, "/v1/events/?name=ahead&sorting=timestamp", {
      token: seller.token,
    });
    expect(list.body.items.map((e: { timestamp: string }) => e.timestamp)).toEqual([
      "2031-03-15T10:00:00.000Z",
      "2031-03-31T23:59:59.999Z",
      "2031-04-01T00:00:00.000Z",
    ]);
    const one = await api(t.url, `/v1/events/${list.body.items[0].id}`, { token: seller.token });
    expect(one.status).toBe(200);
    expect(one.body.timestamp).toBe("2031-03-15T10:00:00.000Z");
    // The moved event's external id still deduplicates.
    expect((await ingest([{ name: "ahead", external_id: "ahead-1" }])).body).toEqual({
      inserted: 0,
      duplicates: 1,
    });
  });

  it("accepts timestamps far in the past and future (DEFAULT partition)", async () => {
    const res = await ingest([
      { name: "far", timestamp: "1901-01-01T00:00:00Z" },
      { name: "far", timestamp: "2999-12-31T23:00:00Z" },
    ]);
    expect(res.body).toEqual({ inserted: 2, duplicates: 0 });
    expect((await placement("far")).map((p) => p.part)).toEqual([
      "events_default",
      "events_default",
    ]);
  });

  it("creates the current month and the next two, once", async () => {
    const db = t.server.database.db;
    const first = await ensureEventPartitions(db, new Date("2032-11-30T23:00:00Z"));
    expect(first.map((p) => [p.name, p.created])).toEqual([
      ["events_2032_11", true],
      ["events_2032_12", true],
      ["events_2033_01", true],
    ]);
    const again = await ensureEventPartitions(db, new Date("2032-11-01T00:00:00Z"));
    expect(again.every((p) => !p.created)).toBe(true);
    expect(await partitions()).toEqual(
      expect.arrayContaining(["events_2032_11", "events_2032_12", "events_2033_01"]),
    );
  });

  it("deduplicates an external id across partitions, in a batch, across batches and concurrently", async () => {
    const across = await ingest([
      { name: "dup", external_id: "d-1", timestamp: "2026-01-10T00:00:00Z", metadata: { n: 1 } },
      { name: "dup", external_id: "d-1", timestamp: "2031-03-10T00:00:00Z", metadata: { n: 2 } },
    ]);
    expect(across.body).toEqual({ inserted: 1, duplicates: 1 });
    // The first of the batch is kept.
    expect(await placement("dup")).toEqual([
      { part: expect.any(String), ts: "2026-01-10T00:00:00.000Z" },
    ]);
    // A retry without a timestamp (the server's clock) is still a duplicate.
    expect((await ingest([{ name: "dup", external_id: "d-1" }])).body).toEqual({
      inserted: 0,
      duplicates: 1,
    });

    // Concurrent batches sharing external ids: each id is stored once.
    const ids = Array.from({ length: 20 }, (_, i) => `c-${i}`);
    const batches = await Promise.all(
      [0, 1, 2, 3].map((k) =>
        ingest(
          ids.map((id, i) => ({
            name: "conc",
            external_id: id,
            timestamp: new Date(Date.UTC(2026, (i + k) % 12, 5)).toISOString(),
          })),
        ),
      ),
    );
    expect(batches.reduce((n, b) => n + b.body.inserted, 0)).toBe(ids.length);
    expect(batches.reduce((n, b) => n + b.body.duplicates, 0)).toBe(3 * ids.length);
    const [stored] = await rows<{ n: number; distinct_ids: number }>(
      sql`select count(*)::int as n, count(distinct external_id)::int as distinct_ids from events where name = 'conc'`,
    );
    expect(stored).toEqual({ n: ids.length, distinct_ids: ids.length });
  });

  it("detaching a month leaves the other months readable and its ids deduplicated", async () => {
    const db = t.server.database.db;
    await createEventPartition(db, new Date("2033-05-01Z"));
    await createEventPartition(db, new Date("2033-06-01Z"));
    await ingest([
      { name: "old", external_id: "may", timestamp: "2033-05-02T00:00:00Z" },
      { name: "old", external_id: "june", timestamp: "2033-06-02T00:00:00Z" },
    ]);
    expect(await detachEventPartition(db, new Date("2033-05-20Z"))).toBe("events_2033_05");
    expect(await detachEventPartition(db, new Date("2033-05-20Z"))).toBeNull();
    expect(await partitions()).not.toContain("events_2033_05");

    const list = await api(t.url, "/v1/events/?name=old", { token: seller.token });
    expect(list.body.items.map((e: { timestamp: string }) => e.timestamp)).toEqual([
      "2033-06-02T00:00:00.000Z",
    ]);
    // The detached table keeps its rows, to archive and drop.
    const [kept] = await rows<{ n: number }>(sql`select count(*)::int as n from events_2033_05`);
    expect(kept!.n).toBe(1);
    expect((await ingest([{ name: "old", external_id: "may" }])).body).toEqual({
      inserted: 0,
      duplicates: 1,
    });
  });

  it("deleting an organization removes its events and dedup rows", async () => {
    const gone = await createSeller(t.url, ["events:write"]);
    await ingest(
      [
        { name: "bye", external_id: "b-1", timestamp: "2026-02-01T00:00:00Z" },
        { name: "bye", timestamp: "2999-01-01T00:00:00Z" },
      ],
      gone.token,
    );
    const count = async () => {
      const [r] = await rows<{ events: number; dedup: number }>(
        sql`select (select count(*)::int from events where organization_id = ${gone.organization.id}) as events,
                   (select count(*)::int from event_dedup where organization_id = ${gone.organization.id}) as dedup`,
      );
      return r;
    };
    expect(await count()).toEqual({ events: 2, dedup: 1 });
    await t.server.database.db.execute(
      sql`delete from organization where id = ${gone.organization.id}`,
    );
    expect(await count()).toEqual({ events: 0, dedup: 0 });
  });
});
