// Tenancy by type at run time: an organization read under another organization's scope is not
// returned, by id or in the list.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSeller } from "../../../test/helpers/auth.ts";
import { callerOf, scopeOfSeller } from "../../../test/helpers/org-scope.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { scopeOfCaller } from "../../lib/org-scope.ts";
import * as repo from "./repository.ts";

let t: TestServer;
let a: Awaited<ReturnType<typeof createSeller>>;
let b: Awaited<ReturnType<typeof createSeller>>;
beforeAll(async () => {
  t = await startTestServer();
  a = await createSeller(t.url, ["organizations:read"]);
  b = await createSeller(t.url, ["organizations:read"]);
});
afterAll(() => t?.stop());

describe("OrgScope on organizations reads", () => {
  it("returns A's organization under A's scope only", async () => {
    const db = t.server.database.db;
    const id = a.organization.id;
    expect((await repo.findOrganization(db, scopeOfSeller(a), id))?.org.id).toBe(id);
    expect(await repo.findOrganization(db, scopeOfSeller(b), id)).toBeNull();
    const list = (organizationIds: string[]) =>
      repo.listOrganizations(db, scopeOfCaller(callerOf(organizationIds)), {}, [], 10, 0);
    expect((await list([id])).rows.map((r) => r.org.id)).toEqual([id]);
    expect((await list([b.organization.id])).rows.map((r) => r.org.id)).toEqual([
      b.organization.id,
    ]);
    expect(await list([])).toEqual({ rows: [], total: 0 });
  });
});
