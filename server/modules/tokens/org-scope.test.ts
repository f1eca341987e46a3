// Tenancy by type at run time: an organization access token read under one organization's scope
// never returns another organization's token, by id or in the list.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSeller } from "../../../test/helpers/auth.ts";
import { scopeOfSeller } from "../../../test/helpers/org-scope.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import * as repo from "./repository.ts";

let t: TestServer;
let a: Awaited<ReturnType<typeof createSeller>>;
let b: Awaited<ReturnType<typeof createSeller>>;
beforeAll(async () => {
  t = await startTestServer();
  a = await createSeller(t.url, ["products:read"]);
  b = await createSeller(t.url, ["products:read"]);
});
afterAll(() => t?.stop());

describe("OrgScope on tokens reads", () => {
  it("returns A's token under A's scope only", async () => {
    const db = t.server.database.db;
    const scopeA = scopeOfSeller(a);
    const scopeB = scopeOfSeller(b);
    const listA = await repo.listTokens(db, scopeA, 10, 0);
    expect(listA.rows.map((r) => r.organizationId)).toEqual([a.organization.id]);
    const tokenId = listA.rows[0]!.id;
    expect((await repo.findToken(db, scopeA, tokenId))?.id).toBe(tokenId);
    expect(await repo.findToken(db, scopeB, tokenId)).toBeNull();
    expect((await repo.listTokens(db, scopeB, 10, 0)).rows.map((r) => r.id)).not.toContain(tokenId);
  });
});
