// recordEvents sends its rows as texts split on U+0001: payloads holding that character, quotes,
// backslashes, non-ASCII text and nested key order must come back exactly, in the order given.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inTransaction, queryRows } from "../../../db/client.ts";
import { openTestDatabase, type TestDatabase } from "../../../test/helpers/db.ts";
import { fixedClock } from "../sandbox-clock/queries.ts";
import { recordEvent, recordEvents } from "./outbox.ts";

let t: TestDatabase;
let organizationId: string;
beforeAll(async () => {
  t = await openTestDatabase();
  const [org] = await queryRows<{ id: string }>(
    t.database.db,
    sql`insert into organization (name, slug, created_at) values ('Outbox', 'outbox', now())
        returning id`,
  );
  organizationId = org!.id;
});
afterAll(() => t?.dispose());

describe("recordEvents", () => {
  it("stores every payload as given, in order", async () => {
    const data = [
      { z: 1, a: "first \u0001 second", nested: { b: [1, "\u0001\u0001"], a: null } },
      { name: 'quote " backslash \\ tab \t newline \n', emoji: "zażółć 🧾" },
      { empty: "", list: [] },
    ];
    const at = new Date("2026-03-01T00:00:00.000Z");
    await inTransaction(t.database.db, (tx) =>
      recordEvents(
        tx,
        fixedClock(at),
        data.map((d, i) => ({ organizationId, type: `probe.${i}`, data: d })),
      ),
    );
    const rows = await recorded();
    expect(rows.map((r) => r.type)).toEqual(["probe.0", "probe.1", "probe.2"]);
    expect(rows.map((r) => r.payload)).toEqual(
      data.map((d, i) =>
        JSON.stringify({ type: `probe.${i}`, timestamp: at.toISOString(), data: d }),
      ),
    );
  });

  it("an object shared by several events is stored in each exactly as its own payload would be", async () => {
    await queryRows(
      t.database.db,
      sql`delete from webhook_events where organization_id = ${organizationId}`,
    );
    const shared = { id: "o1", at: new Date("2026-03-01T00:00:00.000Z"), items: [{ n: 1 }] };
    const events = [
      { type: "order.created", data: shared },
      { type: "order.paid", data: shared },
      { type: "probe.scalar", data: 7 },
      { type: "probe.null", data: null },
      { type: "order.updated", data: { ...shared } },
    ];
    const at = new Date("2026-03-02T00:00:00.000Z");
    await inTransaction(t.database.db, (tx) =>
      recordEvents(
        tx,
        fixedClock(at),
        events.map((e) => ({ organizationId, ...e })),
      ),
    );
    expect((await recorded()).map((r) => r.payload)).toEqual(
      events.map((e) =>
        JSON.stringify({ type: e.type, timestamp: at.toISOString(), data: e.data }),
      ),
    );
  });

  it("an event no enabled endpoint of its organization takes is recorded already dispatched", async () => {
    const [other] = await queryRows<{ id: string }>(
      t.database.db,
      sql`insert into organization (name, slug, created_at) values ('Other', 'outbox-other', now())
          returning id`,
    );
    await queryRows(
      t.database.db,
      sql`insert into webhook_endpoints (organization_id, url, secret, events, enabled) values
        (${organizationId}, 'https://a.test', 's', '{order.created,order.paid}', true),
        (${organizationId}, 'https://b.test', 's', '{subscription.updated}', false),
        (${other!.id}, 'https://c.test', 's', '{customer.updated}', true)`,
    );
    await queryRows(
      t.database.db,
      sql`delete from webhook_events where organization_id = ${organizationId}`,
    );
    const types = ["order.created", "subscription.updated", "customer.updated", "order.paid"];
    const clock = fixedClock(new Date("2026-03-03T00:00:00.000Z"));
    await inTransaction(t.database.db, async (tx) => {
      await recordEvents(
        tx,
        clock,
        types.map((type) => ({ organizationId, type, data: {} })),
      );
      for (const type of types) await recordEvent(tx, clock, { organizationId, type, data: {} });
    });
    const rows = await queryRows<{ type: string; undispatched: boolean }>(
      t.database.db,
      sql`select type, dispatched_at is null as undispatched from webhook_events
          where organization_id = ${organizationId} order by seq`,
    );
    const expected = types.map((type) => ({
      type,
      undispatched: type === "order.created" || type === "order.paid",
    }));
    expect(rows).toEqual([...expected, ...expected]);
  });
});

function recorded() {
  return queryRows<{ type: string; payload: string }>(
    t.database.db,
    sql`select type, payload::text as payload from webhook_events
        where organization_id = ${organizationId} order by seq`,
  );
}
