// Tenancy by type at run time: a wallet read under one organization's scope never returns another
// organization's wallet, by id, in a customer's list, or among a batch's customers with a wallet.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inTransaction } from "../../../db/client.ts";
import { createSeller } from "../../../test/helpers/auth.ts";
import { created, scopeOfSeller } from "../../../test/helpers/org-scope.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import * as repo from "./repository.ts";

let t: TestServer;
let a: Awaited<ReturnType<typeof createSeller>>;
let b: Awaited<ReturnType<typeof createSeller>>;
let customerId: string;
let walletId: string;
beforeAll(async () => {
  t = await startTestServer({ worker: false });
  a = await createSeller(t.url, ["customers:write"]);
  b = await createSeller(t.url, ["customers:write"]);
  customerId = (
    await created<{ id: string }>(t.url, "/v1/customers/", a.token, { email: "w@example.com" })
  ).id;
  const key = {
    organizationId: a.organization.id,
    customerId,
    type: "billing" as const,
    currency: "usd",
  };
  walletId = (
    await inTransaction(t.server.database.db, (tx) => repo.lockOrCreateWallet(tx, key, new Date()))
  ).id;
});
afterAll(() => t?.stop());

describe("OrgScope on wallets reads", () => {
  it("returns A's wallet under A's scope only", async () => {
    const db = t.server.database.db;
    const scopeA = scopeOfSeller(a);
    const scopeB = scopeOfSeller(b);

    expect((await repo.customerWalletById(db, scopeA, customerId, walletId))?.balance).toBe(0);
    expect(await repo.customerWalletById(db, scopeB, customerId, walletId)).toBeNull();
    const list = (scope: typeof scopeA) =>
      repo.listCustomerWallets(db, scope, customerId, [], 10, 0);
    expect((await list(scopeA)).rows.map((w) => w.id)).toEqual([walletId]);
    expect(await list(scopeB)).toEqual({ rows: [], total: 0 });
    expect([...(await repo.customersWithWallets(db, scopeA, [customerId], "usd"))]).toEqual([
      customerId,
    ]);
    expect((await repo.customersWithWallets(db, scopeB, [customerId], "usd")).size).toBe(0);
  });
});
