// Tenancy by type at run time: a checkout read under one organization's scope never returns another
// organization's session, by id, its status, in a list, or as the outcome other modules read; a
// sandbox clock's expiry under one scope expires no other organization's session.
import { Polar } from "@polar-sh/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSeller } from "../../../test/helpers/auth.ts";
import { callerOf, scopeOfSeller } from "../../../test/helpers/org-scope.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { inTransaction } from "../../../db/client.ts";
import { scopeOfCaller } from "../../lib/org-scope.ts";
import { checkoutOutcome } from "./queries.ts";
import * as repo from "./repository.ts";

let t: TestServer;
let a: Awaited<ReturnType<typeof createSeller>>;
let b: Awaited<ReturnType<typeof createSeller>>;
let checkoutId: string;
beforeAll(async () => {
  t = await startTestServer();
  a = await createSeller(t.url, ["products:write", "checkouts:write"]);
  b = await createSeller(t.url, ["products:write", "checkouts:write"]);
  const polar = new Polar({ accessToken: a.token, serverURL: t.url });
  const product = await polar.products.create({
    name: "A's product",
    prices: [{ amountType: "fixed", priceAmount: 500, priceCurrency: "usd" }],
  });
  checkoutId = (await polar.checkouts.create({ products: [product.id] })).id;
});
afterAll(() => t?.stop());

describe("OrgScope on checkouts reads", () => {
  it("returns A's session under A's scope only, by id, status, outcome and in lists", async () => {
    const db = t.server.database.db;
    const scopeA = scopeOfSeller(a);
    const scopeB = scopeOfSeller(b);

    expect((await repo.findCheckout(db, scopeA, checkoutId))?.id).toBe(checkoutId);
    expect(await repo.findCheckout(db, scopeB, checkoutId)).toBeNull();
    expect(await repo.statusOf(db, scopeA, checkoutId)).toBe("open");
    expect(await repo.statusOf(db, scopeB, checkoutId)).toBeNull();
    expect((await checkoutOutcome(db, scopeA, checkoutId))?.status).toBe("open");
    expect(await checkoutOutcome(db, scopeB, checkoutId)).toBeNull();
    const list = (scope: repo.CheckoutFilter["scope"]) =>
      repo.listCheckouts(db, { scope }, [], 10, 0);
    expect((await list(scopeA)).rows.map((r) => r.id)).toEqual([checkoutId]);
    expect(await list(scopeB)).toEqual({ rows: [], total: 0 });
  });

  it("narrows the caller's organizations by a filter, to nothing for one they lack", async () => {
    const db = t.server.database.db;
    const both = callerOf([a.organization.id, b.organization.id]);
    expect((await repo.findCheckout(db, scopeOfCaller(both), checkoutId))?.id).toBe(checkoutId);
    const narrowed = scopeOfCaller(both, b.organization.id);
    expect(await repo.findCheckout(db, narrowed, checkoutId)).toBeNull();
    const onlyB = scopeOfCaller(callerOf([b.organization.id]), a.organization.id);
    expect(await repo.listCheckouts(db, { scope: onlyB }, [], 10, 0)).toEqual({
      rows: [],
      total: 0,
    });
  });

  it("expires the scope's sessions only (rolled back, so A's session stays open)", async () => {
    const db = t.server.database.db;
    const later = new Date(Date.now() + 400 * 86_400_000);
    const rollback = new Error("rollback");
    await expect(
      inTransaction(db, async (tx) => {
        expect(await repo.expireDue(tx, scopeOfSeller(b), later)).toEqual([]);
        expect(await repo.statusOf(tx, scopeOfSeller(a), checkoutId)).toBe("open");
        const expired = await repo.expireDue(tx, scopeOfSeller(a), later);
        expect(expired.map((r) => r.id)).toEqual([checkoutId]);
        throw rollback;
      }),
    ).rejects.toBe(rollback);
    expect(await repo.statusOf(db, scopeOfSeller(a), checkoutId)).toBe("open");
  });
});
