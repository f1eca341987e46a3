// Tenancy by type at run time: an organization's sandbox clock offset is not read under another
// organization's scope.
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
  await repo.raiseOffset(t.server.database.db, a.organization.id, 86_400_000, new Date());
});
afterAll(() => t?.stop());

describe("OrgScope on sandbox clock reads", () => {
  it("reads A's offset under A's scope only", async () => {
    const db = t.server.database.db;
    const id = a.organization.id;
    expect(await repo.offsetOf(db, scopeOfSeller(a), id)).toBe(86_400_000);
    expect(await repo.offsetOf(db, scopeOfSeller(b), id)).toBe(0);
  });
});
