// Tenancy by type at run time: an event read under one organization's scope never returns another
// organization's event, by id, as a parent, in a list or among the event names.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSeller } from "../../../test/helpers/auth.ts";
import { scopeOfSeller } from "../../../test/helpers/org-scope.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import * as repo from "./repository.ts";

let t: TestServer;
let a: Awaited<ReturnType<typeof createSeller>>;
let b: Awaited<ReturnType<typeof createSeller>>;
let eventId: string;

beforeAll(async () => {
  t = await startTestServer();
  a = await createSeller(t.url, ["events:write"]);
  b = await createSeller(t.url, ["events:write"]);
  const res = await fetch(`${t.url}/v1/events/ingest`, {
    method: "POST",
    headers: { authorization: `Bearer ${a.token}`, "content-type": "application/json" },
    body: JSON.stringify({
      events: [{ name: "scoped.call", external_id: "ext-1", external_customer_id: "usr_1" }],
    }),
  });
  expect(res.status).toBe(200);
  const [row] = await t.testDb.database.rows<{ id: string }>(
    sql`select id from events where organization_id = ${a.organization.id}`,
  );
  eventId = row!.id;
});
afterAll(() => t?.stop());

describe("OrgScope on events reads", () => {
  it("returns A's events under A's scope only", async () => {
    const db = t.server.database.db;
    const scopeA = scopeOfSeller(a);
    const scopeB = scopeOfSeller(b);

    expect((await repo.findEvent(db, scopeA, eventId))?.id).toBe(eventId);
    expect(await repo.findEvent(db, scopeB, eventId)).toBeNull();
    expect(await repo.findParents(db, scopeA, [eventId], ["ext-1"])).toEqual([
      { id: eventId, externalId: "ext-1" },
    ]);
    expect(await repo.findParents(db, scopeB, [eventId], ["ext-1"])).toEqual([]);
    const filter = { externalCustomerIds: ["usr_1"], conditions: [], metadata: {} };
    const listA = await repo.listEvents(db, scopeA, filter, true, 10, 0);
    expect(listA.rows.map((r) => r.id)).toEqual([eventId]);
    expect(await repo.listEvents(db, scopeB, filter, true, 10, 0)).toEqual({ rows: [], total: 0 });
    const names = (scope: typeof scopeA) => repo.listEventNames(db, scope, filter, [], 10, 0);
    expect((await names(scopeA)).rows.map((r) => r.name)).toEqual(["scoped.call"]);
    expect(await names(scopeB)).toEqual({ rows: [], total: 0 });
  });
});
