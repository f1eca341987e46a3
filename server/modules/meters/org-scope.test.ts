// Tenancy by type at run time: a meter read under one organization's scope never returns another
// organization's meter, its filter or its usage, nor that organization's customers' events.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSeller } from "../../../test/helpers/auth.ts";
import { created, scopeOfSeller } from "../../../test/helpers/org-scope.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { RequestValidationError } from "../../lib/errors.ts";
import { customerUsage, findMeter } from "./queries.ts";
import * as repo from "./repository.ts";
import { meterFilterFor } from "./service.ts";

let t: TestServer;
let a: Awaited<ReturnType<typeof createSeller>>;
let b: Awaited<ReturnType<typeof createSeller>>;
let meterId: string;
let customerId: string;

beforeAll(async () => {
  t = await startTestServer();
  const scopes = ["meters:write", "customers:write", "events:write"];
  a = await createSeller(t.url, scopes);
  b = await createSeller(t.url, scopes);
  ({ id: meterId } = await created<{ id: string }>(t.url, "/v1/meters/", a.token, {
    name: "Calls",
    filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "call" }] },
    aggregation: { func: "count" },
  }));
  ({ id: customerId } = await created<{ id: string }>(t.url, "/v1/customers/", a.token, {
    email: "metered@example.com",
  }));
  await created(t.url, "/v1/events/ingest", a.token, {
    events: [{ name: "call", customer_id: customerId, timestamp: "2026-05-01T10:00:00Z" }],
  });
});
afterAll(() => t?.stop());

describe("OrgScope on meters reads", () => {
  it("returns A's meter, filter, usage and events under A's scope only", async () => {
    const db = t.server.database.db;
    const scopeA = scopeOfSeller(a);
    const scopeB = scopeOfSeller(b);

    expect((await repo.findMeter(db, scopeA, meterId))?.id).toBe(meterId);
    expect(await repo.findMeter(db, scopeB, meterId)).toBeNull();
    expect((await findMeter(db, scopeA, meterId))?.id).toBe(meterId);
    expect(await findMeter(db, scopeB, meterId)).toBeNull();
    const list = (scope: typeof scopeA) => repo.listMeters(db, scope, { metadata: {} }, [], 10, 0);
    expect((await list(scopeA)).rows.map((r) => r.id)).toEqual([meterId]);
    expect(await list(scopeB)).toEqual({ rows: [], total: 0 });

    expect((await meterFilterFor(db, scopeA, meterId)).clauses).toHaveLength(1);
    await expect(meterFilterFor(db, scopeB, meterId)).rejects.toBeInstanceOf(
      RequestValidationError,
    );

    const period = {
      meterId,
      customerId,
      start: new Date("2026-05-01T00:00:00Z"),
      end: new Date("2026-05-02T00:00:00Z"),
    };
    expect(await customerUsage(db, scopeA, period)).toBe(1);
    expect(await customerUsage(db, scopeB, period)).toBe(0);

    expect(await repo.latestEventAt(db, scopeA, customerId)).toEqual(
      new Date("2026-05-01T10:00:00Z"),
    );
    expect(await repo.latestEventAt(db, scopeB, customerId)).toBeNull();
  });
});
