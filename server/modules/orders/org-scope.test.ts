// Tenancy by type at run time: an order read under one organization's scope never returns another
// organization's order or its items, whatever ids the caller passes.
import { Polar } from "@polar-sh/sdk";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSeller } from "../../../test/helpers/auth.ts";
import { buy } from "../../../test/helpers/grants.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { callerOf, scopeOfSeller } from "../../../test/helpers/org-scope.ts";
import { inTransaction } from "../../../db/client.ts";
import { ResourceNotFound } from "../../lib/errors.ts";
import { scopeOfCaller } from "../../lib/org-scope.ts";
import * as repo from "./repository.ts";
import { findOrderRow, getOrder, listCustomerOrders, lockOrder } from "./service.ts";

let t: TestServer;
let a: Awaited<ReturnType<typeof createSeller>>;
let b: Awaited<ReturnType<typeof createSeller>>;
let order: { id: string; customerId: string };
let renewal: { id: string; subscriptionId: string };
beforeAll(async () => {
  t = await startTestServer();
  const scopes = ["products:write", "checkouts:write", "orders:read"];
  a = await createSeller(t.url, scopes);
  b = await createSeller(t.url, scopes);
  const polar = new Polar({ accessToken: a.token, serverURL: t.url });
  const oneTime = await polar.products.create({
    name: "A's one-time",
    prices: [{ amountType: "fixed", priceAmount: 500, priceCurrency: "usd" }],
  });
  const monthly = await polar.products.create({
    name: "A's monthly",
    recurringInterval: "month",
    prices: [{ amountType: "fixed", priceAmount: 900, priceCurrency: "usd" }],
  });
  order = await buy(polar, a.organization.id, oneTime.id, "buyer@example.com");
  const first = await buy(polar, a.organization.id, monthly.id, "subscriber@example.com");
  renewal = { id: first.id, subscriptionId: first.subscriptionId! };
  // Stands for a renewal waiting on dunning: the subscription's order still to be paid.
  await t.server.database.rows(sql`update orders set status = 'pending' where id = ${first.id}`);
});
afterAll(() => t?.stop());

describe("OrgScope on orders reads", () => {
  it("returns A's order and its items under A's scope only", async () => {
    const db = t.server.database.db;
    const scopeA = scopeOfSeller(a);
    const scopeB = scopeOfSeller(b);

    expect((await repo.findOrder(db, scopeA, order.id))?.id).toBe(order.id);
    expect(await repo.findOrder(db, scopeB, order.id)).toBeNull();
    expect((await findOrderRow(db, scopeA, order.id))?.id).toBe(order.id);
    expect(await findOrderRow(db, scopeB, order.id)).toBeNull();
    expect((await repo.itemsOf(db, scopeA, [order.id])).length).toBe(1);
    expect(await repo.itemsOf(db, scopeB, [order.id])).toEqual([]);
    await inTransaction(db, async (tx) => {
      expect((await lockOrder(tx, scopeA, order.id))?.id).toBe(order.id);
      expect(await lockOrder(tx, scopeB, order.id)).toBeNull();
    });
    const pendingA = await repo.pendingOrderOfSubscription(db, scopeA, renewal.subscriptionId);
    expect(pendingA?.id).toBe(renewal.id);
    expect(await repo.pendingOrderOfSubscription(db, scopeB, renewal.subscriptionId)).toBeNull();

    const filter = { customerIds: [order.customerId] };
    const listA = await repo.listOrders(db, { scope: scopeA, ...filter }, [], 10, 0);
    expect(listA.rows.map((r) => r.id)).toEqual([order.id]);
    const listB = await repo.listOrders(db, { scope: scopeB, ...filter }, [], 10, 0);
    expect(listB).toEqual({ rows: [], total: 0 });
  });

  it("renders A's order for A only, to the seller and to the portal", async () => {
    const deps = { db: t.server.database.db, baseUrl: t.url };
    const scopeA = scopeOfSeller(a);
    const scopeB = scopeOfSeller(b);
    expect((await getOrder(deps, scopeA, order.id)).id).toBe(order.id);
    await expect(getOrder(deps, scopeB, order.id)).rejects.toThrow(ResourceNotFound);
    const page = { page: 1, limit: 10 };
    const mine = await listCustomerOrders(deps, scopeA, order.customerId, {}, [], page);
    expect(mine.items.map((o) => o.id)).toEqual([order.id]);
    const theirs = await listCustomerOrders(deps, scopeB, order.customerId, {}, [], page);
    expect(theirs.items).toEqual([]);
  });

  it("narrows the caller's organizations by a filter, to nothing for one they lack", async () => {
    const db = t.server.database.db;
    const both = callerOf([a.organization.id, b.organization.id]);
    expect((await repo.findOrder(db, scopeOfCaller(both), order.id))?.id).toBe(order.id);
    expect(await repo.findOrder(db, scopeOfCaller(both, b.organization.id), order.id)).toBeNull();
    const onlyB = callerOf([b.organization.id]);
    expect(await repo.findOrder(db, scopeOfCaller(onlyB, a.organization.id), order.id)).toBeNull();
    expect(await repo.findOrder(db, scopeOfCaller(callerOf([])), order.id)).toBeNull();
  });
});
