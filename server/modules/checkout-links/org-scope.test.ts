// Tenancy by type at run time: a checkout link read under one organization's scope never returns
// another organization's link, and a link cannot be pointed at another organization's discount.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { polarFor, startCatalogServer } from "../../../test/helpers/catalog.ts";
import type { TestServer } from "../../../test/helpers/server.ts";
import { callerOf, scopeOfSeller } from "../../../test/helpers/org-scope.ts";
import { scopeOfCaller } from "../../lib/org-scope.ts";
import * as repo from "./repository.ts";

const SCOPES = ["checkout_links:write", "discounts:write", "products:write"];

let t: TestServer;
let a: Awaited<ReturnType<typeof createSeller>>;
let b: Awaited<ReturnType<typeof createSeller>>;
let linkId: string;
let aDiscountId: string;
let bProductId: string;
beforeAll(async () => {
  t = await startCatalogServer();
  a = await createSeller(t.url, SCOPES);
  b = await createSeller(t.url, SCOPES);
  const polarA = polarFor(t, a.token);
  const productId = (
    await polarA.products.create({
      name: "A's product",
      prices: [{ amountType: "fixed", priceAmount: 500, priceCurrency: "usd" }],
    })
  ).id;
  aDiscountId = (
    await polarA.discounts.create({
      type: "percentage",
      duration: "once",
      basisPoints: 1000,
      name: "A's",
    })
  ).id;
  linkId = (
    await polarA.checkoutLinks.create({
      paymentProcessor: "stripe",
      products: [productId],
      discountId: aDiscountId,
    })
  ).id;
  bProductId = (
    await polarFor(t, b.token).products.create({
      name: "B's product",
      prices: [{ amountType: "fixed", priceAmount: 700, priceCurrency: "usd" }],
    })
  ).id;
});
afterAll(() => t?.stop());

describe("OrgScope on checkout links reads", () => {
  it("returns A's link under A's scope only", async () => {
    const db = t.server.database.db;
    const scopeA = scopeOfSeller(a);
    const scopeB = scopeOfSeller(b);

    expect((await repo.findLink(db, scopeA, linkId))?.id).toBe(linkId);
    expect(await repo.findLink(db, scopeB, linkId)).toBeNull();
    expect((await repo.listLinks(db, scopeA, undefined, [], 100, 0)).rows.map((r) => r.id)).toEqual(
      [linkId],
    );
    expect(await repo.listLinks(db, scopeB, undefined, [], 100, 0)).toEqual({ rows: [], total: 0 });

    const both = callerOf([a.organization.id, b.organization.id]);
    expect((await repo.findLink(db, scopeOfCaller(both), linkId))?.id).toBe(linkId);
    expect(await repo.findLink(db, scopeOfCaller(both, b.organization.id), linkId)).toBeNull();
    expect(await repo.findLink(db, scopeOfCaller(callerOf([])), linkId)).toBeNull();
  });

  it("answers 404 to another organization and refuses its discount on a link", async () => {
    expect((await api(t.url, `/v1/checkout-links/${linkId}`, { token: b.token })).status).toBe(404);
    const created = await api(t.url, "/v1/checkout-links/", {
      token: b.token,
      body: { payment_processor: "stripe", products: [bProductId], discount_id: aDiscountId },
    });
    expect(created.status).toBe(422);
    expect(created.body.detail[0].loc).toEqual(["body", "discount_id"]);
  });
});
