// Tenancy by type at run time: a license key read under one organization's scope never returns
// another organization's key, by id, in a list or by its text; a caller's scope narrowed by the
// body's organization id finds a key only in an organization the caller proves.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSeller } from "../../../test/helpers/auth.ts";
import { polarClient } from "../../../test/helpers/polar.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { callerOf, scopeOfSeller } from "../../../test/helpers/org-scope.ts";
import { inTransaction } from "../../../db/client.ts";
import { scopeOfCaller } from "../../lib/org-scope.ts";
import * as repo from "./repository.ts";

let t: TestServer;
let a: Awaited<ReturnType<typeof createSeller>>;
let b: Awaited<ReturnType<typeof createSeller>>;
let keyId: string;
beforeAll(async () => {
  t = await startTestServer();
  a = await createSeller(t.url, ["customers:write", "benefits:write"]);
  b = await createSeller(t.url, ["customers:write", "benefits:write"]);
  const client = polarClient(t, a.token);
  const customer = await client.customers.create({ email: "lk@example.com" });
  const benefit = await client.benefits.create({
    type: "custom",
    description: "Scoped key",
    properties: {},
  });
  const row = await repo.insertKey(t.server.database.db, {
    organizationId: a.organization.id,
    customerId: customer.id,
    benefitId: benefit.id,
    key: "SCOPED-KEY",
    status: "granted",
  });
  keyId = row.id;
});
afterAll(() => t?.stop());

describe("OrgScope on license keys reads", () => {
  it("returns A's key under A's scope only, by id and in the list", async () => {
    const db = t.server.database.db;
    const scopeA = scopeOfSeller(a);
    const scopeB = scopeOfSeller(b);

    expect((await repo.findKey(db, scopeA, keyId))?.id).toBe(keyId);
    expect(await repo.findKey(db, scopeB, keyId)).toBeNull();
    expect((await repo.listKeys(db, { scope: scopeA }, 10, 0)).rows.map((r) => r.id)).toEqual([
      keyId,
    ]);
    expect(await repo.listKeys(db, { scope: scopeB }, 10, 0)).toEqual({ rows: [], total: 0 });
  });

  it("finds A's key by its text under A's scope only, or for its holder in A", async () => {
    await inTransaction(t.server.database.db, async (tx) => {
      const byText = (scope: Parameters<typeof repo.lockKeyByText>[1]) =>
        repo.lockKeyByText(tx, scope, "SCOPED-KEY");
      expect((await byText(scopeOfSeller(a)))?.id).toBe(keyId);
      expect(await byText(scopeOfSeller(b))).toBeNull();
      // B's token naming A's organization in the body narrows to nothing.
      const onlyB = callerOf([b.organization.id]);
      expect(await byText(scopeOfCaller(onlyB, a.organization.id))).toBeNull();
      const both = callerOf([a.organization.id, b.organization.id]);
      expect((await byText(scopeOfCaller(both, a.organization.id)))?.id).toBe(keyId);
      expect(await byText(scopeOfCaller(both, b.organization.id))).toBeNull();
      const holder = (orgId: string) => repo.lockKeyByTextForKeyHolder(tx, orgId, "SCOPED-KEY");
      expect((await holder(a.organization.id))?.id).toBe(keyId);
      expect(await holder(b.organization.id)).toBeNull();
    });
  });
});
