// Tenancy by type at run time: a metric dashboard read under one organization's scope never returns
// another organization's dashboard, by id or in the list.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSeller } from "../../../test/helpers/auth.ts";
import { created, scopeOfSeller } from "../../../test/helpers/org-scope.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import * as repo from "./repository.ts";

let t: TestServer;
let a: Awaited<ReturnType<typeof createSeller>>;
let b: Awaited<ReturnType<typeof createSeller>>;

let dashboardId: string;
beforeAll(async () => {
  t = await startTestServer();
  a = await createSeller(t.url, ["metrics:write"]);
  b = await createSeller(t.url, ["metrics:write"]);
  ({ id: dashboardId } = await created<{ id: string }>(t.url, "/v1/metrics/dashboards", a.token, {
    name: "Scoped",
  }));
});
afterAll(() => t?.stop());

describe("OrgScope on metric dashboards reads", () => {
  it("returns A's dashboard under A's scope only", async () => {
    const db = t.server.database.db;
    const scopeA = scopeOfSeller(a);
    const scopeB = scopeOfSeller(b);
    expect((await repo.findDashboard(db, scopeA, dashboardId))?.id).toBe(dashboardId);
    expect(await repo.findDashboard(db, scopeB, dashboardId)).toBeNull();
    expect((await repo.listDashboards(db, scopeA)).map((r) => r.id)).toEqual([dashboardId]);
    expect(await repo.listDashboards(db, scopeB)).toEqual([]);
  });
});
