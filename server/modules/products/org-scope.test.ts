// Tenancy by type at run time: a product read under one organization's scope never returns another
// organization's product, price or links, whatever ids the caller passes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSeller } from "../../../test/helpers/auth.ts";
import { polarFor, startCatalogServer } from "../../../test/helpers/catalog.ts";
import type { TestServer } from "../../../test/helpers/server.ts";
import { callerOf, scopeOfSeller } from "../../../test/helpers/org-scope.ts";
import { scopeOfCaller } from "../../lib/org-scope.ts";
import * as repo from "./repository.ts";
import { serializeProductsByIds } from "./service.ts";

let t: TestServer;
let a: Awaited<ReturnType<typeof createSeller>>;
let b: Awaited<ReturnType<typeof createSeller>>;
let productId: string;
let priceId: string;
beforeAll(async () => {
  t = await startCatalogServer();
  a = await createSeller(t.url, ["products:write"]);
  b = await createSeller(t.url, ["products:write"]);
  const product = await polarFor(t, a.token).products.create({
    name: "A's product",
    prices: [{ amountType: "fixed", priceAmount: 500, priceCurrency: "usd" }],
  });
  productId = product.id;
  priceId = product.prices[0]!.id;
});
afterAll(() => t?.stop());

describe("OrgScope on products reads", () => {
  it("returns A's product, prices and links under A's scope only", async () => {
    const db = t.server.database.db;
    const scopeA = scopeOfSeller(a);
    const scopeB = scopeOfSeller(b);

    expect((await repo.findProduct(db, scopeA, productId))?.id).toBe(productId);
    expect(await repo.findProduct(db, scopeB, productId)).toBeNull();
    expect(await repo.findProducts(db, scopeB, [productId])).toEqual([]);
    expect((await repo.findPrice(db, scopeA, priceId))?.id).toBe(priceId);
    expect(await repo.findPrice(db, scopeB, priceId)).toBeNull();
    expect(await repo.activePricesOf(db, scopeB, [productId])).toEqual([]);
    expect(await repo.productsWithParts(db, scopeB, [productId])).toEqual([]);
    expect(await serializeProductsByIds(db, "", scopeB, [productId])).toEqual([]);
    expect((await serializeProductsByIds(db, "", scopeA, [productId])).map((p) => p.id)).toEqual([
      productId,
    ]);
    const list = await repo.listProducts(db, scopeB, { metadata: {} }, [], 10, 0);
    expect(list.rows.map((r) => r.id)).not.toContain(productId);
  });

  it("narrows the caller's organizations by a filter, to nothing for one they lack", async () => {
    const db = t.server.database.db;
    const both = callerOf([a.organization.id, b.organization.id]);
    expect((await repo.findProduct(db, scopeOfCaller(both), productId))?.id).toBe(productId);
    expect(
      await repo.findProduct(db, scopeOfCaller(both, b.organization.id), productId),
    ).toBeNull();
    const onlyB = callerOf([b.organization.id]);
    expect(
      await repo.findProduct(db, scopeOfCaller(onlyB, a.organization.id), productId),
    ).toBeNull();
    expect(await repo.findProduct(db, scopeOfCaller(callerOf([])), productId)).toBeNull();
  });
});
