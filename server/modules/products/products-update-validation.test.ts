// Every rule of PATCH /v1/products/{id}, POST /v1/products/{id}/benefits and the list filters
// answered with a 422 (or 403) in Polar's shape, and the product exactly as it was.
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { countRows } from "../../../test/helpers/catalog.ts";
import {
  counts,
  expect422,
  fixed,
  ids,
  metered,
  monthly,
  oneTime,
  seller,
  t,
  withValidationTenants,
} from "../../../test/helpers/product-validation.ts";

withValidationTenants();

describe("PATCH /v1/products/{id} and POST /v1/products/{id}/benefits validation", () => {
  let product: { id: string; prices: { id: string }[] };
  let otherProduct: { id: string; prices: { id: string }[] };
  let snapshot: unknown;
  beforeAll(async () => {
    product = (
      await api(t.url, "/v1/products/", {
        token: seller.token,
        body: monthly([fixed(1000), metered()]),
      })
    ).body;
    otherProduct = (
      await api(t.url, "/v1/products/", { token: seller.token, body: monthly([fixed(3000)]) })
    ).body;
    snapshot = (await api(t.url, `/v1/products/${product.id}`, { token: seller.token })).body;
  });
  const cases: [string, () => unknown, (string | number)[]][] = [
    [
      "a price id of another product",
      () => ({ prices: [{ id: otherProduct.prices[0]!.id }] }),
      ["body", "prices", 0, "id"],
    ],
    [
      "a price id that is not a UUID",
      () => ({ prices: [{ id: "nope" }] }),
      ["body", "prices", 0, "id"],
    ],
    ["an empty price list", () => ({ prices: [] }), ["body", "prices"]],
    [
      "a kept fixed price plus a new fixed price in the same currency",
      () => ({ prices: [{ id: product.prices[0]!.id }, fixed(5000)] }),
      ["body", "prices", 1],
    ],
    [
      "a new price with a bad amount",
      () => ({
        prices: [
          { id: product.prices[0]!.id },
          metered({ unit_amount: "-1", meter_id: ids.otherMeter }),
        ],
      }),
      ["body", "prices", 1, "unit_amount"],
    ],
    [
      "a change of recurring interval",
      () => ({ recurring_interval: "year" }),
      ["body", "recurring_interval"],
    ],
    [
      "a change of recurring interval count",
      () => ({ recurring_interval_count: 2 }),
      ["body", "recurring_interval_count"],
    ],
    ["a name too short", () => ({ name: "x" }), ["body", "name"]],
    ["media of another organization", () => ({ medias: [ids.otherMedia] }), ["body", "medias", 0]],
    [
      "a trial count without interval",
      () => ({ trial_interval_count: 3 }),
      ["body", "trial_interval"],
    ],
  ];
  for (const [name, body, loc] of cases) {
    it(`${name} → 422 at ${loc.join(".")}, product unchanged`, async () => {
      const before = await counts();
      await expect422(
        await api(t.url, `/v1/products/${product.id}`, {
          method: "PATCH",
          token: seller.token,
          body: body(),
        }),
        loc,
      );
      expect(await counts()).toEqual(before);
      expect(
        (await api(t.url, `/v1/products/${product.id}`, { token: seller.token })).body,
      ).toEqual(snapshot);
    });
  }

  it("a one-time product cannot become recurring", async () => {
    const once = (
      await api(t.url, "/v1/products/", { token: seller.token, body: oneTime([fixed()]) })
    ).body;
    await expect422(
      await api(t.url, `/v1/products/${once.id}`, {
        method: "PATCH",
        token: seller.token,
        body: { recurring_interval: "month" },
      }),
      ["body", "recurring_interval"],
    );
  });

  it("benefits of another organization, or not UUIDs → 422; links and outbox unchanged", async () => {
    const before = [await countRows(t, "product_benefits"), await countRows(t, "webhook_events")];
    await expect422(
      await api(t.url, `/v1/products/${product.id}/benefits`, {
        token: seller.token,
        body: { benefits: [ids.otherBenefit] },
      }),
      ["body", "benefits", 0],
    );
    await expect422(
      await api(t.url, `/v1/products/${product.id}/benefits`, {
        token: seller.token,
        body: { benefits: ["x"] },
      }),
      ["body", "benefits", 0],
    );
    await expect422(
      await api(t.url, `/v1/products/${product.id}/benefits`, { token: seller.token, body: {} }),
      ["body", "benefits"],
    );
    expect([await countRows(t, "product_benefits"), await countRows(t, "webhook_events")]).toEqual(
      before,
    );
  });

  it("list filters with bad values → 422 on the query parameter", async () => {
    await expect422(await api(t.url, "/v1/products/?is_archived=maybe", { token: seller.token }), [
      "query",
      "is_archived",
    ]);
    await expect422(await api(t.url, "/v1/products/?sorting=price", { token: seller.token }), [
      "query",
      "sorting",
    ]);
    await expect422(await api(t.url, "/v1/products/?benefit_id=nope", { token: seller.token }), [
      "query",
      "benefit_id",
    ]);
    await expect422(await api(t.url, "/v1/products/?limit=101", { token: seller.token }), [
      "query",
      "limit",
    ]);
    await expect422(
      await api(t.url, `/v1/products/?metadata[${"k".repeat(41)}]=v`, { token: seller.token }),
      ["query", "metadata"],
    );
  });

  it("a read-only token cannot create (403); nothing is written", async () => {
    const reader = await createSeller(t.url, ["products:read"]);
    const before = await counts();
    const res = await api(t.url, "/v1/products/", {
      token: reader.token,
      body: oneTime([fixed()]),
    });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe("NotPermitted");
    expect(await counts()).toEqual(before);
    expect(
      (
        await t.server.database.rows(
          sql`select 1 from products where organization_id = ${reader.organization.id}`,
        )
      ).length,
    ).toBe(0);
  });
});

describe("POST /v1/products/{id}/benefits at once", () => {
  it("8 requests setting the same benefits all succeed and leave each linked once", async () => {
    const product = (
      await api(t.url, "/v1/products/", { token: seller.token, body: monthly([fixed(1000)]) })
    ).body;
    const benefit = (
      await api(t.url, "/v1/benefits/", {
        token: seller.token,
        body: { type: "custom", description: "Raced benefit", properties: {} },
      })
    ).body;
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        api(t.url, `/v1/products/${product.id}/benefits`, {
          token: seller.token,
          body: { benefits: [benefit.id] },
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
    const after = await api(t.url, `/v1/products/${product.id}`, { token: seller.token });
    expect(after.body.benefits.map((b: { id: string }) => b.id)).toEqual([benefit.id]);
  });
});
