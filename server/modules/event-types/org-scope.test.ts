// Tenancy by type at run time: event types read under one organization's scope never include
// another organization's names, in the list, the names registered for it, or by id.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSeller } from "../../../test/helpers/auth.ts";
import { created, scopeOfSeller } from "../../../test/helpers/org-scope.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import * as repo from "./repository.ts";

let t: TestServer;
let a: Awaited<ReturnType<typeof createSeller>>;
let b: Awaited<ReturnType<typeof createSeller>>;

beforeAll(async () => {
  t = await startTestServer();
  a = await createSeller(t.url, ["events:write"]);
  b = await createSeller(t.url, ["events:write"]);
  await created(t.url, "/v1/events/ingest", a.token, {
    events: [{ name: "scoped.type", external_customer_id: "usr_1" }],
  });
});
afterAll(() => t?.stop());

describe("OrgScope on event types reads", () => {
  it("returns A's event types under A's scope only", async () => {
    const db = t.server.database.db;
    const scopeA = scopeOfSeller(a);
    const scopeB = scopeOfSeller(b);
    const now = new Date();
    const list = (scope: typeof scopeA) =>
      repo.listEventTypes(db, { scope, rootEvents: false }, [], 10, 0);

    // Registering under B's scope gives A's name no row, so A's list has nothing to join yet.
    await repo.registerNames(db, scopeB, now);
    expect(await list(scopeA)).toEqual({ rows: [], total: 0 });
    await repo.registerNames(db, scopeA, now);
    const listA = await list(scopeA);
    expect(listA.rows.map((r) => r.name)).toEqual(["scoped.type"]);
    expect(await list(scopeB)).toEqual({ rows: [], total: 0 });
    const id = listA.rows[0]!.id;
    expect((await repo.findEventType(db, scopeA, id))?.name).toBe("scoped.type");
    expect(await repo.findEventType(db, scopeB, id)).toBeNull();
  });
});
