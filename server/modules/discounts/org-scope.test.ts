// Tenancy by type at run time: a discount read under one organization's scope never returns another
// organization's discount, its code or its product links, whatever id or code the caller passes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSeller } from "../../../test/helpers/auth.ts";
import { polarFor, startCatalogServer } from "../../../test/helpers/catalog.ts";
import type { TestServer } from "../../../test/helpers/server.ts";
import { callerOf, scopeOfSeller } from "../../../test/helpers/org-scope.ts";
import { scopeOfCaller } from "../../lib/org-scope.ts";
import * as repo from "./repository.ts";
import { discountByCode, discountOf, restrictedProductIds } from "./service.ts";

let t: TestServer;
let a: Awaited<ReturnType<typeof createSeller>>;
let b: Awaited<ReturnType<typeof createSeller>>;
let discountId: string;
let deletedId: string;
let productId: string;
let bDiscountId: string;
beforeAll(async () => {
  t = await startCatalogServer();
  a = await createSeller(t.url, ["discounts:write", "products:write"]);
  b = await createSeller(t.url, ["discounts:write", "products:write"]);
  const polarA = polarFor(t, a.token);
  productId = (
    await polarA.products.create({
      name: "A's product",
      prices: [{ amountType: "fixed", priceAmount: 500, priceCurrency: "usd" }],
    })
  ).id;
  const percent = { type: "percentage", duration: "once", basisPoints: 1000 } as const;
  discountId = (
    await polarA.discounts.create({
      ...percent,
      name: "A's",
      code: "SHARED",
      products: [productId],
    })
  ).id;
  deletedId = (await polarA.discounts.create({ ...percent, name: "A's old" })).id;
  await polarA.discounts.delete({ id: deletedId });
  // B holds the same code: a lookup by code under B's scope finds B's discount, never A's.
  bDiscountId = (
    await polarFor(t, b.token).discounts.create({ ...percent, name: "B's", code: "shared" })
  ).id;
});
afterAll(() => t?.stop());

describe("OrgScope on discounts reads", () => {
  it("returns A's discount, deleted one, code and product links under A's scope only", async () => {
    const db = t.server.database.db;
    const scopeA = scopeOfSeller(a);
    const scopeB = scopeOfSeller(b);

    expect((await repo.findDiscount(db, scopeA, discountId))?.id).toBe(discountId);
    expect(await repo.findDiscount(db, scopeB, discountId)).toBeNull();
    expect(await repo.findDiscount(db, scopeA, deletedId)).toBeNull();
    expect((await discountOf(db, scopeA, deletedId))?.id).toBe(deletedId);
    expect(await discountOf(db, scopeB, deletedId)).toBeNull();
    expect(await discountOf(db, scopeB, discountId)).toBeNull();

    expect((await discountByCode(db, scopeA, "shared"))?.id).toBe(discountId);
    expect((await discountByCode(db, scopeB, "SHARED"))?.id).toBe(bDiscountId);
    expect(await repo.codeTaken(db, scopeB, "SHARED", bDiscountId)).toBe(false);
    expect(await repo.codeTaken(db, scopeA, "shared", deletedId)).toBe(true);

    expect(await restrictedProductIds(db, scopeA, discountId)).toEqual([productId]);
    expect(await restrictedProductIds(db, scopeB, discountId)).toEqual([]);
    expect(await repo.productLinksOf(db, scopeB, [discountId, bDiscountId])).toEqual([]);

    const list = await repo.listDiscounts(db, scopeB, undefined, [], 100, 0);
    expect(list.rows.map((r) => r.id)).toEqual([bDiscountId]);
    expect(list.total).toBe(1);
  });

  it("narrows the caller's organizations by a filter, to nothing for one they lack", async () => {
    const db = t.server.database.db;
    const both = callerOf([a.organization.id, b.organization.id]);
    expect((await repo.findDiscount(db, scopeOfCaller(both), discountId))?.id).toBe(discountId);
    expect(
      await repo.findDiscount(db, scopeOfCaller(both, b.organization.id), discountId),
    ).toBeNull();
    const onlyB = callerOf([b.organization.id]);
    expect(
      await repo.findDiscount(db, scopeOfCaller(onlyB, a.organization.id), discountId),
    ).toBeNull();
    expect(await repo.findDiscount(db, scopeOfCaller(callerOf([])), discountId)).toBeNull();
    expect(await repo.findByCode(db, scopeOfCaller(callerOf([])), "shared")).toBeNull();
  });
});
