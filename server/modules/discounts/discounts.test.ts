import { HTTPValidationError } from "@polar-sh/sdk/models/errors/httpvalidationerror.js";
import { ResourceNotFound } from "@polar-sh/sdk/models/errors/resourcenotfound.js";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { countRows, polarFor, startCatalogServer } from "../../../test/helpers/catalog.ts";
import type { TestServer } from "../../../test/helpers/server.ts";

let t: TestServer;
let seller: Awaited<ReturnType<typeof createSeller>>;
let other: Awaited<ReturnType<typeof createSeller>>;
let productId: string;
let otherProductId: string;
beforeAll(async () => {
  t = await startCatalogServer();
  seller = await createSeller(t.url, ["discounts:write", "products:write"]);
  other = await createSeller(t.url, ["discounts:write", "products:write"]);
  productId = (
    await api(t.url, "/v1/products/", {
      token: seller.token,
      body: {
        name: "Pro plan",
        recurring_interval: "month",
        prices: [{ amount_type: "fixed", price_amount: 2000 }],
      },
    })
  ).body.id;
  otherProductId = (
    await api(t.url, "/v1/products/", {
      token: other.token,
      body: { name: "Other", prices: [{ amount_type: "free" }] },
    })
  ).body.id;
});
afterAll(() => t?.stop());

describe("discounts through Polar's client", () => {
  it("creates fixed and percentage discounts of each duration, restricted to products, and lists them with pagination", async () => {
    const polar = polarFor(t, seller.token);
    const startsAt = new Date("2030-01-01T00:00:00Z");
    const endsAt = new Date("2030-02-01T00:00:00Z");
    const summer = await polar.discounts.create({
      type: "percentage",
      name: "Summer",
      code: "SUMMER25",
      duration: "repeating",
      durationInMonths: 3,
      basisPoints: 2500,
      startsAt,
      endsAt,
      maxRedemptions: 100,
      products: [productId],
      metadata: { campaign: "s25" },
    });
    expect(summer).toMatchObject({
      type: "percentage",
      duration: "repeating",
      durationInMonths: 3,
      basisPoints: 2500,
      code: "SUMMER25",
      maxRedemptions: 100,
      redemptionsCount: 0,
      startsAt,
      endsAt,
      metadata: { campaign: "s25" },
    });
    expect(summer.products.map((p) => p.id)).toEqual([productId]);
    const fiver = await polar.discounts.create({
      type: "fixed",
      name: "Five off",
      duration: "once",
      amount: 500,
      currency: "eur",
    });
    expect(fiver).toMatchObject({
      type: "fixed",
      duration: "once",
      amount: 500,
      currency: "eur",
      amounts: { eur: 500 },
      code: null,
      products: [],
    });
    const forever = await polar.discounts.create({
      type: "percentage",
      name: "Friends",
      duration: "forever",
      basisPoints: 10000,
      code: "friends",
    });

    const pages = [];
    for await (const page of await polar.discounts.list({ limit: 2, sorting: ["created_at"] }))
      pages.push(page.result);
    expect(pages.flatMap((p) => p.items.map((d) => d.id))).toEqual([
      summer.id,
      fiver.id,
      forever.id,
    ]);
    expect(pages[0]!.pagination).toEqual({ totalCount: 3, maxPage: 2 });
    expect((await polar.discounts.list({ query: "summ" })).result.items.map((d) => d.id)).toEqual([
      summer.id,
    ]);
    expect((await polar.discounts.get({ id: forever.id })).code).toBe("friends");
  });

  it("updates (its worth, months and products, clearing the code) and deletes; the deleted code can be used again", async () => {
    const polar = polarFor(t, seller.token);
    const d = await polar.discounts.create({
      type: "percentage",
      name: "Launch",
      duration: "repeating",
      durationInMonths: 3,
      basisPoints: 1000,
      code: "LAUNCH",
    });
    const pct = await polar.discounts.update({
      id: d.id,
      discountUpdate: { basisPoints: 1500, durationInMonths: 6, products: [productId] },
    });
    expect(pct).toMatchObject({
      type: "percentage",
      basisPoints: 1500,
      duration: "repeating",
      durationInMonths: 6,
      code: "LAUNCH",
    });
    expect(pct.products.map((p) => p.id)).toEqual([productId]);
    const noCode = await polar.discounts.update({
      id: d.id,
      discountUpdate: { code: null, name: "Launch week" },
    });
    expect(noCode).toMatchObject({ code: null, name: "Launch week", basisPoints: 1500 });
    await polar.discounts.update({ id: d.id, discountUpdate: { code: "LAUNCH" } });
    await polar.discounts.delete({ id: d.id });
    await expect(polar.discounts.get({ id: d.id })).rejects.toBeInstanceOf(ResourceNotFound);
    expect(
      (
        await polar.discounts.create({
          type: "percentage",
          name: "Relaunch",
          duration: "once",
          basisPoints: 100,
          code: "launch",
        })
      ).code,
    ).toBe("launch");
  });

  it("another organization's discount is ResourceNotFound; bad input is an HTTPValidationError", async () => {
    const d = await polarFor(t, seller.token).discounts.create({
      type: "percentage",
      name: "Mine",
      duration: "once",
      basisPoints: 100,
    });
    const theirs = polarFor(t, other.token);
    await expect(theirs.discounts.get({ id: d.id })).rejects.toBeInstanceOf(ResourceNotFound);
    await expect(
      theirs.discounts.update({ id: d.id, discountUpdate: { name: "x" } }),
    ).rejects.toBeInstanceOf(ResourceNotFound);
    await expect(theirs.discounts.delete({ id: d.id })).rejects.toBeInstanceOf(ResourceNotFound);
    await expect(
      theirs.discounts.create({
        type: "percentage",
        name: "Bad",
        duration: "once",
        basisPoints: 10001,
      }),
    ).rejects.toBeInstanceOf(HTTPValidationError);
  });
});

describe("discount validation (raw HTTP): 422 in Polar's shape, nothing written", () => {
  const pct = (extra: Record<string, unknown> = {}) => ({
    type: "percentage",
    name: "Deal",
    duration: "once",
    basis_points: 1000,
    ...extra,
  });
  const fixed = (extra: Record<string, unknown> = {}) => ({
    type: "fixed",
    name: "Deal",
    duration: "once",
    amount: 500,
    currency: "usd",
    ...extra,
  });
  const cases: [string, () => unknown, (string | number)[]][] = [
    ["zero basis points", () => pct({ basis_points: 0 }), ["body", "basis_points"]],
    ["more than 10000 basis points", () => pct({ basis_points: 10001 }), ["body", "basis_points"]],
    [
      "a percentage without basis points",
      () => pct({ basis_points: undefined }),
      ["body", "basis_points"],
    ],
    ["a fixed discount without an amount", () => fixed({ amount: undefined }), ["body", "amount"]],
    ["a negative amount", () => fixed({ amount: -5 }), ["body", "amount"]],
    ["an unknown currency", () => fixed({ currency: "abc" }), ["body", "currency"]],
    ["an unknown type", () => pct({ type: "bogo" }), ["body", "type"]],
    ["an unknown duration", () => pct({ duration: "weekly" }), ["body", "duration"]],
    [
      "repeating without months",
      () => pct({ duration: "repeating" }),
      ["body", "duration_in_months"],
    ],
    [
      "months on a one-off discount",
      () => pct({ duration: "once", duration_in_months: 3 }),
      ["body", "duration_in_months"],
    ],
    [
      "1000 months",
      () => pct({ duration: "repeating", duration_in_months: 1000 }),
      ["body", "duration_in_months"],
    ],
    ["a code of two characters", () => pct({ code: "AB" }), ["body", "code"]],
    ["a code with a space", () => pct({ code: "SUMMER SALE" }), ["body", "code"]],
    ["a code already used, in another case", () => pct({ code: "taken" }), ["body", "code"]],
    [
      "ends before it starts",
      () => pct({ starts_at: "2030-02-01T00:00:00Z", ends_at: "2030-01-01T00:00:00Z" }),
      ["body", "ends_at"],
    ],
    [
      "a date without offset",
      () => pct({ starts_at: "2030-02-01T00:00:00" }),
      ["body", "starts_at"],
    ],
    [
      "a start in the year 0",
      () => pct({ starts_at: "0000-01-01T00:00:00Z" }),
      ["body", "starts_at"],
    ],
    [
      "amounts in no currency",
      () => fixed({ amount: undefined, currency: undefined, amounts: {} }),
      ["body", "amounts"],
    ],
    ["zero max redemptions", () => pct({ max_redemptions: 0 }), ["body", "max_redemptions"]],
    [
      "another organization's product",
      () => pct({ products: [otherProductId] }),
      ["body", "products", 0],
    ],
    ["a product id that is not a UUID", () => pct({ products: ["abc"] }), ["body", "products", 0]],
    ["an empty name", () => pct({ name: "" }), ["body", "name"]],
  ];
  beforeAll(async () => {
    expect(
      (await api(t.url, "/v1/discounts/", { token: seller.token, body: pct({ code: "TAKEN" }) }))
        .status,
    ).toBe(201);
  });
  for (const [name, body, loc] of cases) {
    it(`${name} → 422 at ${loc.join(".")}`, async () => {
      const before = [await countRows(t, "discounts"), await countRows(t, "discount_products")];
      const res = await api(t.url, "/v1/discounts/", { token: seller.token, body: body() });
      expect(res.status).toBe(422);
      expect(res.body.error).toBe("RequestValidationError");
      expect(res.body.detail[0].loc.slice(0, loc.length)).toEqual(loc);
      expect([await countRows(t, "discounts"), await countRows(t, "discount_products")]).toEqual(
        before,
      );
    });
  }

  it("a fixed discount takes amounts in some currencies, not all of them", async () => {
    const res = await api(t.url, "/v1/discounts/", {
      token: seller.token,
      body: fixed({ amount: undefined, currency: undefined, amounts: { usd: 100, eur: 90 } }),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  });

  it("updates that break a rule → 422, discount unchanged", async () => {
    const d = (
      await api(t.url, "/v1/discounts/", {
        token: seller.token,
        body: pct({ code: "KEEPME", duration: "repeating", duration_in_months: 2 }),
      })
    ).body;
    const patch = (body: unknown) =>
      api(t.url, `/v1/discounts/${d.id}`, { method: "PATCH", token: seller.token, body });
    const checks: [unknown, (string | number)[]][] = [
      [{ code: "TAKEN" }, ["body", "code"]],
      [{ type: "fixed" }, ["body", "type"]],
      [{ type: "fixed", amount: 500, currency: "usd" }, ["body", "type"]],
      [{ duration: "forever" }, ["body", "duration"]],
      [{ duration: null }, ["body", "duration"]],
      [{ duration_in_months: null }, ["body", "duration_in_months"]],
      [{ ends_at: "2000-01-01T00:00:00Z", starts_at: "2001-01-01T00:00:00Z" }, ["body", "ends_at"]],
      [{ products: [otherProductId] }, ["body", "products", 0]],
    ];
    for (const [body, loc] of checks) {
      const res = await patch(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.detail[0].loc).toEqual(loc);
    }
    expect((await api(t.url, `/v1/discounts/${d.id}`, { token: seller.token })).body).toEqual(d);
  });

  it("type and duration are fixed at creation, as Polar's: a 422 naming the field", async () => {
    const d = (await api(t.url, "/v1/discounts/", { token: seller.token, body: fixed({}) })).body;
    const patch = (body: unknown) =>
      api(t.url, `/v1/discounts/${d.id}`, { method: "PATCH", token: seller.token, body });
    for (const [body, loc, msg] of [
      [{ type: "percentage", basis_points: 1000 }, "type", "Type cannot be changed."],
      [{ duration: "repeating", duration_in_months: 2 }, "duration", "Duration cannot be changed."],
    ] as const) {
      const res = await patch(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body).toEqual({
        error: "RequestValidationError",
        detail: [{ loc: ["body", loc], msg, type: "value_error" }],
      });
    }
    // The same type and duration may be sent again.
    const same = await patch({ type: "fixed", duration: "once", name: "Same" });
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ type: "fixed", duration: "once", name: "Same" });
  });

  it("fields of the other type are ignored, as Polar's update excludes them", async () => {
    const f = (await api(t.url, "/v1/discounts/", { token: seller.token, body: fixed({}) })).body;
    const p = (await api(t.url, "/v1/discounts/", { token: seller.token, body: pct({}) })).body;
    const patch = (id: string, body: unknown) =>
      api(t.url, `/v1/discounts/${id}`, { method: "PATCH", token: seller.token, body });
    const { modified_at: _f, ...fixedBefore } = f;
    const { modified_at: _p, ...pctBefore } = p;
    const fixedAfter = await patch(f.id, { basis_points: 5000 });
    expect(fixedAfter.status).toBe(200);
    expect(fixedAfter.body).toMatchObject(fixedBefore);
    expect(fixedAfter.body).not.toHaveProperty("basis_points");
    const pctAfter = await patch(p.id, { amount: 900, currency: "eur", amounts: { usd: 700 } });
    expect(pctAfter.status).toBe(200);
    expect(pctAfter.body).toMatchObject(pctBefore);
    expect(pctAfter.body).not.toHaveProperty("amount");
  });

  it("once redeemed, what a discount is worth cannot change, and max_redemptions cannot go below the redemptions", async () => {
    const d = (
      await api(t.url, "/v1/discounts/", {
        token: seller.token,
        body: pct({ max_redemptions: 10 }),
      })
    ).body;
    await t.server.database.rows(
      sql`update discounts set redemptions_count = 3 where id = ${d.id}`,
    );
    const patch = (body: unknown) =>
      api(t.url, `/v1/discounts/${d.id}`, { method: "PATCH", token: seller.token, body });
    expect((await patch({ basis_points: 5000 })).body.detail[0].loc).toEqual([
      "body",
      "basis_points",
    ]);
    expect((await patch({ duration: "forever" })).body.detail[0].loc).toEqual(["body", "duration"]);
    expect((await patch({ max_redemptions: 2 })).body.detail[0].loc).toEqual([
      "body",
      "max_redemptions",
    ]);
    const ok = await patch({ name: "Renamed", max_redemptions: 3 });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      name: "Renamed",
      basis_points: 1000,
      redemptions_count: 3,
      max_redemptions: 3,
    });
  });
});
