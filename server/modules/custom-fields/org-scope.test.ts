// Tenancy by type at run time: a custom field read under one organization's scope never returns
// another organization's field, by id, in a list, among ids other modules name, or as a taken slug.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSeller } from "../../../test/helpers/auth.ts";
import { callerOf, scopeOfSeller } from "../../../test/helpers/org-scope.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { scopeOfCaller } from "../../lib/org-scope.ts";
import * as repo from "./repository.ts";
import { serializeCustomFieldsByIds, customFieldsOf } from "./service.ts";

let t: TestServer;
let a: Awaited<ReturnType<typeof createSeller>>;
let b: Awaited<ReturnType<typeof createSeller>>;
let fieldId: string;
beforeAll(async () => {
  t = await startTestServer();
  a = await createSeller(t.url, ["custom_fields:read"]);
  b = await createSeller(t.url, ["custom_fields:read"]);
  const row = await repo.insertCustomField(t.server.database.db, {
    organizationId: a.organization.id,
    type: "text",
    slug: "scoped-field",
    name: "Scoped field",
    properties: {},
  });
  fieldId = row.id;
});
afterAll(() => t?.stop());

describe("OrgScope on custom fields reads", () => {
  it("returns A's field under A's scope only", async () => {
    const db = t.server.database.db;
    const scopeA = scopeOfSeller(a);
    const scopeB = scopeOfSeller(b);
    const ids = (rows: { id: string }[]) => rows.map((r) => r.id);

    expect((await repo.findCustomField(db, scopeA, fieldId))?.id).toBe(fieldId);
    expect(await repo.findCustomField(db, scopeB, fieldId)).toBeNull();
    expect(ids(await customFieldsOf(db, scopeA, [fieldId]))).toEqual([fieldId]);
    expect(await customFieldsOf(db, scopeB, [fieldId])).toEqual([]);
    expect(ids(await serializeCustomFieldsByIds(db, scopeA, [fieldId]))).toEqual([fieldId]);
    expect(await serializeCustomFieldsByIds(db, scopeB, [fieldId])).toEqual([]);
    expect(await repo.slugTaken(db, scopeA, "scoped-field")).toBe(true);
    expect(await repo.slugTaken(db, scopeB, "scoped-field")).toBe(false);
    const list = (scope: typeof scopeA) => repo.listCustomFields(db, scope, {}, [], 10, 0);
    expect(ids((await list(scopeA)).rows)).toEqual([fieldId]);
    expect(await list(scopeB)).toEqual({ rows: [], total: 0 });
    const onlyB = scopeOfCaller(callerOf([b.organization.id]), a.organization.id);
    expect(await repo.findCustomField(db, onlyB, fieldId)).toBeNull();
  });
});
