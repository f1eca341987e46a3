// Tenancy by type at run time: a license key read under one organization's scope never returns
// another organization's key, by id or in a list.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSeller } from "../../../test/helpers/auth.ts";
import { polarClient } from "../../../test/helpers/polar.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { scopeOfSeller } from "../../../test/helpers/org-scope.ts";
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
});
