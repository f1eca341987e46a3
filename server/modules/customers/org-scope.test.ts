// Tenancy by type at run time: a customer read under one organization's scope never returns another
// organization's customer, whatever id, external id or email the caller passes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSeller } from "../../../test/helpers/auth.ts";
import { polarClient } from "../../../test/helpers/polar.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { callerOf, scopeOfSeller } from "../../../test/helpers/org-scope.ts";
import { scopeOfCaller } from "../../lib/org-scope.ts";
import { findBuyer, findCustomerForCheckout } from "./buyers.ts";
import { customersByIds, resolveCustomerRefs } from "./queries.ts";
import * as repo from "./repository.ts";
import { customerStateOf, customerStatesOf } from "./states.ts";

let t: TestServer;
let a: Awaited<ReturnType<typeof createSeller>>;
let b: Awaited<ReturnType<typeof createSeller>>;
let customerId: string;
const email = "scoped@example.com";
const externalId = "usr_scoped";
beforeAll(async () => {
  t = await startTestServer();
  a = await createSeller(t.url, ["customers:write"]);
  b = await createSeller(t.url, ["customers:write"]);
  const customer = await polarClient(t, a.token).customers.create({ email, externalId });
  customerId = customer.id;
});
afterAll(() => t?.stop());

describe("OrgScope on customers reads", () => {
  it("returns A's customer under A's scope only, by id, external id and email", async () => {
    const db = t.server.database.db;
    const scopeA = scopeOfSeller(a);
    const scopeB = scopeOfSeller(b);

    expect((await repo.findCustomer(db, scopeA, { id: customerId }))?.id).toBe(customerId);
    expect(await repo.findCustomer(db, scopeB, { id: customerId })).toBeNull();
    expect((await repo.findCustomer(db, scopeA, { externalId }))?.id).toBe(customerId);
    expect(await repo.findCustomer(db, scopeB, { externalId })).toBeNull();
    expect((await repo.findByEmail(db, scopeA, email))?.id).toBe(customerId);
    expect(await repo.findByEmail(db, scopeB, email)).toBeNull();
    expect((await repo.findAnyCustomer(db, scopeA, customerId))?.id).toBe(customerId);
    expect(await repo.findAnyCustomer(db, scopeB, customerId)).toBeNull();
    expect((await repo.findCustomersByIds(db, scopeA, [customerId])).map((c) => c.id)).toEqual([
      customerId,
    ]);
    expect(await repo.findCustomersByIds(db, scopeB, [customerId])).toEqual([]);
    expect(await repo.customerRefs(db, scopeA, [customerId], [externalId])).toEqual([
      { id: customerId, externalId },
    ]);
    expect(await repo.customerRefs(db, scopeB, [customerId], [externalId])).toEqual([]);
    expect(await repo.conflicts(db, scopeA, { email, externalId })).toEqual({
      email: true,
      externalId: true,
    });
    expect(await repo.conflicts(db, scopeB, { email, externalId })).toEqual({
      email: false,
      externalId: false,
    });
    const listA = await repo.listCustomers(db, scopeA, { email, metadata: {} }, [], 10, 0);
    expect(listA.rows.map((r) => r.id)).toEqual([customerId]);
    const listB = await repo.listCustomers(db, scopeB, { email, metadata: {} }, [], 10, 0);
    expect(listB).toEqual({ rows: [], total: 0 });
  });

  it("keeps the readers other modules call to the scope too", async () => {
    const db = t.server.database.db;
    const scopeA = scopeOfSeller(a);
    const scopeB = scopeOfSeller(b);
    const buyer = { id: customerId, externalId, email };

    expect((await customersByIds(db, scopeA, [customerId])).map((c) => c.id)).toEqual([customerId]);
    expect(await customersByIds(db, scopeB, [customerId])).toEqual([]);
    expect(await resolveCustomerRefs(db, scopeB, [customerId], [externalId])).toEqual([]);
    expect((await findCustomerForCheckout(db, scopeA, buyer))?.id).toBe(customerId);
    expect(await findCustomerForCheckout(db, scopeB, buyer)).toBeNull();
    expect(await findCustomerForCheckout(db, scopeB, { id: null, externalId })).toBeNull();
    expect((await findBuyer(db, scopeA, buyer))?.id).toBe(customerId);
    expect(await findBuyer(db, scopeB, buyer)).toBeNull();
    expect((await customerStateOf(db, scopeA, customerId))?.id).toBe(customerId);
    expect(await customerStateOf(db, scopeB, customerId)).toBeNull();
    expect([...(await customerStatesOf(db, scopeA, [customerId])).keys()]).toEqual([customerId]);
    expect((await customerStatesOf(db, scopeB, [customerId])).size).toBe(0);
  });

  it("narrows the caller's organizations by a filter, to nothing for one they lack", async () => {
    const db = t.server.database.db;
    const both = callerOf([a.organization.id, b.organization.id]);
    const byId = { id: customerId };
    expect((await repo.findCustomer(db, scopeOfCaller(both), byId))?.id).toBe(customerId);
    expect(await repo.findCustomer(db, scopeOfCaller(both, b.organization.id), byId)).toBeNull();
    const onlyB = callerOf([b.organization.id]);
    expect(await repo.findCustomer(db, scopeOfCaller(onlyB, a.organization.id), byId)).toBeNull();
    expect(await repo.findCustomer(db, scopeOfCaller(callerOf([])), byId)).toBeNull();
  });
});
