// Tenancy by type at run time: a refund read under one organization's scope never returns another
// organization's refund, whatever ids or external customer ids the caller passes.
import { Polar } from "@polar-sh/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSeller } from "../../../test/helpers/auth.ts";
import { buy } from "../../../test/helpers/grants.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { scopeOfSeller } from "../../../test/helpers/org-scope.ts";
import * as repo from "./repository.ts";

const SCOPES = ["products:write", "checkouts:write", "orders:read", "refunds:write"];
const externalId = "usr_shared";
let t: TestServer;
let a: Awaited<ReturnType<typeof createSeller>>;
let b: Awaited<ReturnType<typeof createSeller>>;
let refund: { id: string; orderId: string; processorRefundId: string };
beforeAll(async () => {
  t = await startTestServer();
  a = await createSeller(t.url, [...SCOPES, "customers:write"]);
  b = await createSeller(t.url, ["customers:write"]);
  const polar = new Polar({ accessToken: a.token, serverURL: t.url });
  const product = await polar.products.create({
    name: "A's product",
    prices: [{ amountType: "fixed", priceAmount: 1000, priceCurrency: "usd" }],
  });
  const order = await buy(polar, a.organization.id, product.id, "buyer@example.com");
  await polar.customers.update({ id: order.customerId, customerUpdate: { externalId } });
  // B has a customer of the same external id: external ids are unique per organization only.
  await new Polar({ accessToken: b.token, serverURL: t.url }).customers.create({
    email: "other@example.com",
    externalId,
  });
  const made = await polar.refunds.create({ orderId: order.id, reason: "other", amount: 300 });
  const row = (
    await repo.listRefunds(
      t.server.database.db,
      { scope: scopeOfSeller(a), ids: [made.id] },
      [],
      1,
      0,
    )
  ).rows[0]!;
  refund = { id: row.id, orderId: row.orderId, processorRefundId: row.processorRefundId! };
  await repo.insertRefund(t.server.database.db, {
    ...row,
    id: undefined,
    status: "pending",
    amount: 100,
    taxAmount: 0,
    processorRefundId: null,
  });
});
afterAll(() => t?.stop());

describe("OrgScope on refunds reads", () => {
  it("returns A's refunds under A's scope only", async () => {
    const db = t.server.database.db;
    const scopeA = scopeOfSeller(a);
    const scopeB = scopeOfSeller(b);

    const list = (scope: typeof scopeA, f: Omit<repo.RefundFilter, "scope">) =>
      repo.listRefunds(db, { scope, ...f, succeeded: true }, [], 10, 0);
    expect((await list(scopeA, { ids: [refund.id] })).rows.map((r) => r.id)).toEqual([refund.id]);
    expect(await list(scopeB, { ids: [refund.id] })).toEqual({ rows: [], total: 0 });
    expect(await list(scopeB, { orderIds: [refund.orderId] })).toEqual({ rows: [], total: 0 });
    expect((await repo.byProcessorRefund(db, scopeA, refund.processorRefundId))?.id).toBe(
      refund.id,
    );
    expect(await repo.byProcessorRefund(db, scopeB, refund.processorRefundId)).toBeNull();
    expect(await repo.pendingOfOrder(db, scopeA, refund.orderId)).toEqual({ amount: 100, tax: 0 });
    expect(await repo.pendingOfOrder(db, scopeB, refund.orderId)).toEqual({ amount: 0, tax: 0 });
  });

  it("resolves an external customer id within the scope only", async () => {
    const db = t.server.database.db;
    const scopeA = scopeOfSeller(a);
    const scopeB = scopeOfSeller(b);
    const byExternal = { externalCustomerIds: [externalId], succeeded: true };
    const mine = await repo.listRefunds(db, { scope: scopeA, ...byExternal }, [], 10, 0);
    expect(mine.rows.map((r) => r.id)).toEqual([refund.id]);
    const theirs = await repo.listRefunds(db, { scope: scopeB, ...byExternal }, [], 10, 0);
    expect(theirs).toEqual({ rows: [], total: 0 });
  });
});
