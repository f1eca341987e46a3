// Tenancy by type at run time: a customer meter read under one organization's scope never returns
// another organization's customer meter, by id or in the list.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSeller } from "../../../test/helpers/auth.ts";
import { created, scopeOfSeller } from "../../../test/helpers/org-scope.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import * as repo from "./repository.ts";

let t: TestServer;
let a: Awaited<ReturnType<typeof createSeller>>;
let b: Awaited<ReturnType<typeof createSeller>>;

let customerMeterId: string;
beforeAll(async () => {
  t = await startTestServer();
  const scopes = ["meters:write", "customers:write"];
  a = await createSeller(t.url, scopes);
  b = await createSeller(t.url, scopes);
  const meter = await created<{ id: string }>(t.url, "/v1/meters/", a.token, {
    name: "Credits",
    filter: { conjunction: "and", clauses: [] },
    aggregation: { func: "count" },
  });
  const customer = await created<{ id: string }>(t.url, "/v1/customers/", a.token, {
    email: "credited@example.com",
  });
  // A meter_credit grant writes this row; made directly, the read is what is under test.
  const [row] = await t.testDb.database.rows<{ id: string }>(
    sql`insert into customer_meters (organization_id, customer_id, meter_id, credited_units)
        values (${a.organization.id}, ${customer.id}, ${meter.id}, 10) returning id`,
  );
  customerMeterId = row!.id;
});
afterAll(() => t?.stop());

describe("OrgScope on customer meters reads", () => {
  it("returns A's customer meter under A's scope only", async () => {
    const db = t.server.database.db;
    const scopeA = scopeOfSeller(a);
    const scopeB = scopeOfSeller(b);
    const read = (scope: typeof scopeA, id?: string) =>
      repo.listCustomerMeters(db, { scope, ...(id ? { id } : {}) }, [], { limit: 10, offset: 0 });
    expect((await read(scopeA)).rows.map((r) => r.cm.id)).toEqual([customerMeterId]);
    expect(await read(scopeB)).toEqual({ rows: [], total: 0 });
    expect((await read(scopeA, customerMeterId)).total).toBe(1);
    expect(await read(scopeB, customerMeterId)).toEqual({ rows: [], total: 0 });
  });
});
