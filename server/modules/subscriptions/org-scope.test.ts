// Tenancy by type at run time: a subscription read under one organization's scope never returns
// another organization's subscription, whatever id or customer id the caller passes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { billingSeller, type BillingSeller } from "../../../test/helpers/billing.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { callerOf } from "../../../test/helpers/org-scope.ts";
import { scopeOfCaller, scopeOfResource } from "../../lib/org-scope.ts";
import { activeSubscriptionsOf, activeSubscriptionsOfCustomers } from "./queries.ts";
import * as repo from "./repository.ts";
import { subscriptionsByIds } from "./service.ts";

let t: TestServer;
let a: BillingSeller;
let b: BillingSeller;
let id: string;
let customerId: string;
beforeAll(async () => {
  t = await startTestServer();
  a = await billingSeller(t);
  b = await billingSeller(t);
  const free = await a.polar.products.create({
    name: "A's free tier",
    recurringInterval: "month",
    prices: [{ amountType: "free" }],
  });
  const customer = await a.polar.customers.create({ email: "scoped-sub@example.com" });
  customerId = customer.id;
  const created = await a.call("/v1/subscriptions/", {
    body: { product_id: free.id, customer_id: customerId },
  });
  expect(created.status).toBe(201);
  id = created.body.id;
});
afterAll(() => t?.stop());

describe("OrgScope on subscriptions reads", () => {
  it("returns A's subscription under A's scope only, by id, list, customer and due time", async () => {
    const db = t.server.database.db;
    const scopeA = scopeOfResource({ organizationId: a.organizationId });
    const scopeB = scopeOfResource({ organizationId: b.organizationId });
    const later = new Date(Date.now() + 400 * 86_400_000);

    expect((await repo.findSubscription(db, scopeA, id))?.id).toBe(id);
    expect(await repo.findSubscription(db, scopeB, id)).toBeNull();
    expect((await repo.lockSubscription(db, scopeA, id))?.id).toBe(id);
    expect(await repo.lockSubscription(db, scopeB, id)).toBeNull();
    expect((await repo.subscriptionsByIds(db, scopeA, [id])).map((s) => s.id)).toEqual([id]);
    expect(await repo.subscriptionsByIds(db, scopeB, [id])).toEqual([]);
    expect((await repo.lockUnheld(db, scopeA, [id])).map((s) => s.id)).toEqual([id]);
    expect(await repo.lockUnheld(db, scopeB, [id])).toEqual([]);
    expect((await repo.activeOfCustomer(db, scopeA, customerId)).map((s) => s.id)).toEqual([id]);
    expect(await repo.activeOfCustomer(db, scopeB, customerId)).toEqual([]);
    expect((await repo.dueInScope(db, scopeA, later, 10)).map((d) => d.id)).toEqual([id]);
    expect(await repo.dueInScope(db, scopeB, later, 10)).toEqual([]);
    const listA = await repo.listSubscriptions(
      db,
      scopeA,
      { customerIds: [customerId] },
      [],
      10,
      0,
    );
    expect(listA.rows.map((r) => r.id)).toEqual([id]);
    const listB = await repo.listSubscriptions(
      db,
      scopeB,
      { customerIds: [customerId] },
      [],
      10,
      0,
    );
    expect(listB).toEqual({ rows: [], total: 0 });
  });

  it("keeps the readers other modules call to the scope too", async () => {
    const db = t.server.database.db;
    const scopeA = scopeOfResource({ organizationId: a.organizationId });
    const scopeB = scopeOfResource({ organizationId: b.organizationId });

    expect((await subscriptionsByIds(db, scopeA, [id])).map((s) => s.id)).toEqual([id]);
    expect(await subscriptionsByIds(db, scopeB, [id])).toEqual([]);
    expect((await activeSubscriptionsOf(db, scopeA, customerId)).map((s) => s.id)).toEqual([id]);
    expect(await activeSubscriptionsOf(db, scopeB, customerId)).toEqual([]);
    const ofCustomers = await activeSubscriptionsOfCustomers(db, scopeA, [customerId]);
    expect(ofCustomers.map((s) => s.id)).toEqual([id]);
    expect(await activeSubscriptionsOfCustomers(db, scopeB, [customerId])).toEqual([]);
  });

  it("narrows the caller's organizations by a filter, to nothing for one they lack", async () => {
    const db = t.server.database.db;
    const both = callerOf([a.organizationId, b.organizationId]);
    expect((await repo.findSubscription(db, scopeOfCaller(both), id))?.id).toBe(id);
    expect(await repo.findSubscription(db, scopeOfCaller(both, b.organizationId), id)).toBeNull();
    const onlyB = callerOf([b.organizationId]);
    expect(await repo.findSubscription(db, scopeOfCaller(onlyB, a.organizationId), id)).toBeNull();
    expect(await repo.findSubscription(db, scopeOfCaller(callerOf([])), id)).toBeNull();
  });

  it("answers B's GET of A's subscription with a 404", async () => {
    expect((await b.call(`/v1/subscriptions/${id}`, { method: "GET" })).status).toBe(404);
    expect((await a.call(`/v1/subscriptions/${id}`, { method: "GET" })).status).toBe(200);
  });
});
