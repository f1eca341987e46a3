// Tenancy by type at run time: a file read under one organization's scope never returns another
// organization's file, by id, in a list, or among the ids products and grants refer to.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSeller } from "../../../test/helpers/auth.ts";
import { callerOf, scopeOfSeller } from "../../../test/helpers/org-scope.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { scopeOfCaller } from "../../lib/org-scope.ts";
import * as repo from "./repository.ts";
import { filesByIds, usableFiles } from "./service.ts";

let t: TestServer;
let a: Awaited<ReturnType<typeof createSeller>>;
let b: Awaited<ReturnType<typeof createSeller>>;
let fileId: string;
beforeAll(async () => {
  t = await startTestServer();
  a = await createSeller(t.url, ["files:read"]);
  b = await createSeller(t.url, ["files:read"]);
  const row = await repo.insertFile(t.server.database.db, {
    organizationId: a.organization.id,
    service: "product_media",
    name: "scoped.png",
    path: "scoped.png",
    mimeType: "image/png",
    size: 1,
    uploadId: "scoped-upload",
    isUploaded: true,
  });
  fileId = row.id;
});
afterAll(() => t?.stop());

describe("OrgScope on files reads", () => {
  it("returns A's file under A's scope only", async () => {
    const db = t.server.database.db;
    const scopeA = scopeOfSeller(a);
    const scopeB = scopeOfSeller(b);
    const ids = (rows: { id: string }[]) => rows.map((r) => r.id);

    expect((await repo.findFile(db, scopeA, fileId))?.id).toBe(fileId);
    expect(await repo.findFile(db, scopeB, fileId)).toBeNull();
    expect(ids(await filesByIds(db, scopeA, [fileId]))).toEqual([fileId]);
    expect(await filesByIds(db, scopeB, [fileId])).toEqual([]);
    expect(ids(await usableFiles(db, scopeA, [fileId], "product_media"))).toEqual([fileId]);
    expect(await usableFiles(db, scopeB, [fileId], "product_media")).toEqual([]);
    expect(ids((await repo.listFiles(db, scopeA, undefined, 10, 0)).rows)).toEqual([fileId]);
    expect(await repo.listFiles(db, scopeB, [fileId], 10, 0)).toEqual({ rows: [], total: 0 });
    const onlyB = scopeOfCaller(callerOf([b.organization.id]), a.organization.id);
    expect(await repo.findFile(db, onlyB, fileId)).toBeNull();
  });
});
