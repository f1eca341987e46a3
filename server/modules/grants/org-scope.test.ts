// Tenancy by type at run time: a grant read under one organization's scope never returns another
// organization's grant, by id or in a list, whatever customer (or external id) the filter names.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSeller } from "../../../test/helpers/auth.ts";
import { polarClient } from "../../../test/helpers/polar.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { scopeOfSeller } from "../../../test/helpers/org-scope.ts";
import * as repo from "./repository.ts";

let t: TestServer;
let a: Awaited<ReturnType<typeof createSeller>>;
let b: Awaited<ReturnType<typeof createSeller>>;
let grantId: string;
let customerId: string;
const externalId = "usr_grant_scoped";
beforeAll(async () => {
  t = await startTestServer();
  a = await createSeller(t.url, ["customers:write", "benefits:write"]);
  b = await createSeller(t.url, ["customers:write", "benefits:write"]);
  const db = t.server.database.db;
  customerId = (
    await polarClient(t, a.token).customers.create({ email: "g@example.com", externalId })
  ).id;
  const benefit = await polarClient(t, a.token).benefits.create({
    type: "custom",
    description: "Scoped grant",
    properties: {},
  });
  const grant = await repo.insertGrant(db, {
    organizationId: a.organization.id,
    customerId,
    benefitId: benefit.id,
    scopeId: randomUUID(),
  });
  grantId = grant.id;
});
afterAll(() => t?.stop());

describe("OrgScope on grants reads", () => {
  it("returns A's grant under A's scope only, by id and in lists", async () => {
    const db = t.server.database.db;
    const scopeA = scopeOfSeller(a);
    const scopeB = scopeOfSeller(b);

    expect((await repo.findGrant(db, scopeA, grantId))?.id).toBe(grantId);
    expect(await repo.findGrant(db, scopeB, grantId)).toBeNull();
    const list = (f: repo.GrantFilter) => repo.listGrants(db, f, [], 10, 0);
    const byCustomer = { customerIds: [customerId] };
    expect((await list({ scope: scopeA, ...byCustomer })).total).toBe(1);
    expect(await list({ scope: scopeB, ...byCustomer })).toEqual({
      rows: [],
      total: 0,
    });
    const byExternal = { externalCustomerIds: [externalId] };
    const listA = await list({ scope: scopeA, ...byExternal });
    expect(listA.rows.map((r) => r.id)).toEqual([grantId]);
    const listB = await list({ scope: scopeB, ...byExternal });
    expect(listB).toEqual({ rows: [], total: 0 });
  });
});
