import { HTTPValidationError } from "@polar-sh/sdk/models/errors/httpvalidationerror.js";
import { ResourceNotFound } from "@polar-sh/sdk/models/errors/resourcenotfound.js";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import {
  eventsOf,
  insertMeter,
  polarFor,
  startCatalogServer,
  uploadFile,
} from "../../../test/helpers/catalog.ts";
import type { TestServer } from "../../../test/helpers/server.ts";

const SCOPES = [
  "products:write",
  "benefits:write",
  "files:write",
  "custom_fields:write",
  "checkouts:write",
  "discounts:write",
];
let t: TestServer;
let seller: Awaited<ReturnType<typeof createSeller>>;
let other: Awaited<ReturnType<typeof createSeller>>;
let meterId: string;
let mediaId: string;
let fieldId: string;
beforeAll(async () => {
  t = await startCatalogServer();
  seller = await createSeller(t.url, SCOPES);
  other = await createSeller(t.url, SCOPES);
  meterId = await insertMeter(t, seller.organization.id, "Tokens");
  mediaId = (await uploadFile(t, seller.token, Buffer.from("not really a png"))).file.id;
  fieldId = (
    await api(t.url, "/v1/custom-fields/", {
      token: seller.token,
      body: { type: "text", slug: "company", name: "Company", properties: {} },
    })
  ).body.id;
});
afterAll(() => t?.stop());

const priceRows = (productId: string) =>
  t.server.database.rows<{ id: string; is_archived: boolean; amount_type: string }>(
    sql`select id, is_archived, amount_type from product_prices where product_id = ${productId} order by created_at, id`,
  );

describe("products through Polar's client", () => {
  it("creates a one-time product with media, custom fields and metadata, and records product.created", async () => {
    const polar = polarFor(t, seller.token);
    const product = await polar.products.create({
      name: "E-book",
      description: "A good read",
      prices: [{ amountType: "fixed", priceAmount: 1500, priceCurrency: "usd" }],
      medias: [mediaId],
      attachedCustomFields: [{ customFieldId: fieldId, required: true }],
      metadata: { sku: "EB-1", pages: 320, ratio: 1.5, signed: true },
    });
    expect(product).toMatchObject({
      name: "E-book",
      description: "A good read",
      isRecurring: false,
      recurringInterval: null,
      recurringIntervalCount: null,
      isArchived: false,
      visibility: "public",
      organizationId: seller.organization.id,
      metadata: { sku: "EB-1", pages: 320, ratio: 1.5, signed: true },
      benefits: [],
    });
    expect(product.prices).toEqual([
      expect.objectContaining({
        amountType: "fixed",
        priceAmount: 1500,
        priceCurrency: "usd",
        isArchived: false,
        source: "catalog",
        productId: product.id,
      }),
    ]);
    expect(product.medias).toEqual([
      expect.objectContaining({
        id: mediaId,
        service: "product_media",
        isUploaded: true,
        publicUrl: expect.stringContaining(`/storage/public/${mediaId}/`),
      }),
    ]);
    expect(product.attachedCustomFields).toEqual([
      {
        customFieldId: fieldId,
        customField: expect.objectContaining({ slug: "company" }),
        order: 0,
        required: true,
      },
    ]);
    const events = await eventsOf(t, seller.organization.id);
    expect(events.at(-1)).toMatchObject({
      type: "product.created",
      payload: {
        type: "product.created",
        data: { id: product.id, name: "E-book", meter_interval: null },
      },
    });
  });

  it("creates recurring products with custom, free and metered prices (unit_amount a decimal string, the meter embedded)", async () => {
    const polar = polarFor(t, seller.token);
    const usage = await polar.products.create({
      name: "Pro plan",
      recurringInterval: "month",
      recurringIntervalCount: 3,
      trialInterval: "day",
      trialIntervalCount: 14,
      prices: [
        { amountType: "custom", minimumAmount: 500, maximumAmount: 10000, presetAmount: 1000 },
        { amountType: "metered_unit", meterId, unitAmount: "0.000500", capAmount: 100000 },
      ],
    });
    expect(usage).toMatchObject({
      isRecurring: true,
      recurringInterval: "month",
      recurringIntervalCount: 3,
      trialInterval: "day",
      trialIntervalCount: 14,
    });
    expect(usage.prices).toEqual([
      expect.objectContaining({
        amountType: "custom",
        minimumAmount: 500,
        maximumAmount: 10000,
        presetAmount: 1000,
      }),
      expect.objectContaining({
        amountType: "metered_unit",
        unitAmount: "0.0005",
        capAmount: 100000,
        meterId,
        meter: expect.objectContaining({ id: meterId, name: "Tokens" }),
      }),
    ]);
    const free = await polar.products.create({
      name: "Community",
      recurringInterval: "year",
      prices: [{ amountType: "free" }],
    });
    expect(free.recurringIntervalCount).toBe(1);
    expect(free.prices).toEqual([
      expect.objectContaining({ amountType: "free", priceCurrency: "usd" }),
    ]);
    const numeric = await api(t.url, "/v1/products/", {
      token: seller.token,
      body: {
        name: "Numeric",
        recurring_interval: "week",
        prices: [{ amount_type: "metered_unit", meter_id: meterId, unit_amount: 12.25 }],
      },
    });
    expect(numeric.body.prices[0]).toMatchObject({
      unit_amount: "12.25",
      cap_amount: null,
      meter: {
        id: meterId,
        name: "Tokens",
        unit: "scalar",
        custom_label: null,
        custom_multiplier: null,
      },
    });
  });

  it("lists with pagination, filters (query with wildcards taken literally, archived, recurring, benefit, metadata) and sorting", async () => {
    const seller2 = await createSeller(t.url, SCOPES);
    const polar = polarFor(t, seller2.token);
    const mk = (name: string, amount: number, extra: Record<string, unknown> = {}) =>
      polar.products.create({
        name,
        prices: [{ amountType: "fixed", priceAmount: amount }],
        ...extra,
      } as Parameters<typeof polar.products.create>[0]);
    const cotton = await mk("100% Cotton", 3000, { metadata: { color: "red" } });
    const thousand = await mk("1000 Cotton", 2000, { metadata: { color: "blue" } });
    const under = await mk("snake_case", 1000);
    const monthly = await mk("Monthly", 900, { recurringInterval: "month" });
    const benefit = await polar.benefits.create({
      type: "custom",
      description: "Support",
      properties: {},
    });
    await polar.products.updateBenefits({
      id: thousand.id,
      productBenefitsUpdate: { benefits: [benefit.id] },
    });
    await polar.products.update({ id: under.id, productUpdate: { isArchived: true } });

    const pages = [];
    for await (const page of await polar.products.list({ limit: 3, sorting: ["created_at"] }))
      pages.push(page.result);
    expect(pages.map((p) => p.items.map((i) => i.name))).toEqual([
      ["100% Cotton", "1000 Cotton", "snake_case"],
      ["Monthly"],
    ]);
    expect(pages[0]!.pagination).toEqual({ totalCount: 4, maxPage: 2 });

    const ids = async (req: Parameters<typeof polar.products.list>[0]) =>
      (await polar.products.list(req)).result.items.map((p) => p.id);
    expect(await ids({ query: "100%" })).toEqual([cotton.id]);
    expect(await ids({ query: "e_c" })).toEqual([under.id]);
    expect(await ids({ query: "00_" })).toEqual([]);
    expect(await ids({ isArchived: true })).toEqual([under.id]);
    expect((await ids({ isArchived: false })).sort()).toEqual(
      [cotton.id, thousand.id, monthly.id].sort(),
    );
    expect(await ids({ isRecurring: true })).toEqual([monthly.id]);
    expect(await ids({ benefitId: benefit.id })).toEqual([thousand.id]);
    expect(await ids({ metadata: { color: "red" } })).toEqual([cotton.id]);
    expect((await ids({ metadata: { color: ["red", "blue"] } })).sort()).toEqual(
      [cotton.id, thousand.id].sort(),
    );
    expect(await ids({ sorting: ["price_amount"] })).toEqual([
      monthly.id,
      under.id,
      thousand.id,
      cotton.id,
    ]);
    expect(await ids({ sorting: ["-price_amount"] })).toEqual([
      cotton.id,
      thousand.id,
      under.id,
      monthly.id,
    ]);
    expect(await ids({ id: [cotton.id, monthly.id], sorting: ["created_at"] })).toEqual([
      cotton.id,
      monthly.id,
    ]);
    expect(await ids({ id: [under.id, monthly.id], sorting: ["-name"] })).toEqual([
      under.id,
      monthly.id,
    ]);
    expect(await ids({ id: [under.id, monthly.id], sorting: ["name"] })).toEqual([
      monthly.id,
      under.id,
    ]);
    // Raw query string, as Polar documents it.
    const raw = await api(t.url, "/v1/products/?metadata[color]=blue&is_archived=false&page=1", {
      token: seller2.token,
    });
    expect(raw.body.items.map((p: { id: string }) => p.id)).toEqual([thousand.id]);
  });

  it("updates: keeps prices passed back as {id}, archives the rest, inserts new rows, and records product.updated", async () => {
    const polar = polarFor(t, seller.token);
    const product = await polar.products.create({
      name: "Course",
      recurringInterval: "month",
      prices: [
        { amountType: "fixed", priceAmount: 2000 },
        { amountType: "metered_unit", meterId, unitAmount: 1 },
      ],
    });
    const [fixed, metered] = product.prices as { id: string }[];
    const updated = await polar.products.update({
      id: product.id,
      productUpdate: {
        name: "Course (2nd edition)",
        description: null,
        metadata: { edition: 2 },
        prices: [
          { id: metered!.id },
          { amountType: "fixed", priceAmount: 2500, priceCurrency: "usd" },
        ],
      },
    });
    expect(updated.name).toBe("Course (2nd edition)");
    expect(updated.metadata).toEqual({ edition: 2 });
    expect(updated.modifiedAt).toBeInstanceOf(Date);
    const ids = (updated.prices as { id: string }[]).map((p) => p.id);
    expect(ids).toContain(metered!.id);
    expect(ids).not.toContain(fixed!.id);
    expect(updated.prices).toContainEqual(
      expect.objectContaining({ amountType: "fixed", priceAmount: 2500 }),
    );
    const rows = await priceRows(product.id);
    expect(rows).toHaveLength(3);
    expect(rows.find((r) => r.id === fixed!.id)!.is_archived).toBe(true);
    const events = await eventsOf(t, seller.organization.id);
    expect(events.at(-1)).toMatchObject({
      type: "product.updated",
      payload: { data: { id: product.id, name: "Course (2nd edition)" } },
    });

    const archived = await polar.products.update({
      id: product.id,
      productUpdate: { isArchived: true },
    });
    expect(archived.isArchived).toBe(true);
    const back = await polar.products.get({ id: product.id });
    expect(back.isArchived).toBe(true);
    expect(back.prices).toHaveLength(2);
  });

  it("sets a product's benefits (POST /products/{id}/benefits) and leaves deleted benefits out", async () => {
    const polar = polarFor(t, seller.token);
    const product = await polar.products.create({
      name: "Bundle",
      prices: [{ amountType: "fixed", priceAmount: 5000 }],
    });
    const a = await polar.benefits.create({
      type: "custom",
      description: "Benefit A",
      properties: {},
    });
    const b = await polar.benefits.create({
      type: "license_keys",
      description: "Benefit B",
      properties: {},
    });
    const withBenefits = await polar.products.updateBenefits({
      id: product.id,
      productBenefitsUpdate: { benefits: [b.id, a.id] },
    });
    expect(withBenefits.benefits.map((x) => x.id)).toEqual([b.id, a.id]);
    expect((await eventsOf(t, seller.organization.id)).at(-1)).toMatchObject({
      type: "product.updated",
    });
    await polar.benefits.delete({ id: b.id });
    expect((await polar.products.get({ id: product.id })).benefits.map((x) => x.id)).toEqual([
      a.id,
    ]);
    expect(
      (
        await polar.products.updateBenefits({
          id: product.id,
          productBenefitsUpdate: { benefits: [] },
        })
      ).benefits,
    ).toEqual([]);
  });

  it("another organization's product is ResourceNotFound; bad input is an HTTPValidationError", async () => {
    const product = await polarFor(t, seller.token).products.create({
      name: "Private",
      prices: [{ amountType: "free" }],
    });
    const theirs = polarFor(t, other.token);
    await expect(theirs.products.get({ id: product.id })).rejects.toBeInstanceOf(ResourceNotFound);
    await expect(
      theirs.products.update({ id: product.id, productUpdate: { name: "Stolen" } }),
    ).rejects.toBeInstanceOf(ResourceNotFound);
    await expect(
      theirs.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [] } }),
    ).rejects.toBeInstanceOf(ResourceNotFound);
    expect((await theirs.products.list({})).result.items).toEqual([]);
    await expect(
      theirs.products.create({ name: "No", prices: [{ amountType: "fixed", priceAmount: 10 }] }),
    ).rejects.toBeInstanceOf(HTTPValidationError);
  });

  it("DELETE removes a product nothing refers to; one sold, offered or discounted is 409 and stays", async () => {
    const call = (path: string, init: { method?: string; body?: unknown } = {}) =>
      api(t.url, path, { ...init, token: seller.token });
    const fixed = [{ amount_type: "fixed", price_amount: 900, price_currency: "usd" }];
    const unused = (await call("/v1/products/", { body: { name: "Draft", prices: fixed } })).body;
    const offered = (await call("/v1/products/", { body: { name: "Offered", prices: fixed } }))
      .body;
    expect((await call("/v1/checkouts/", { body: { products: [offered.id] } })).status).toBe(201);
    const discounted = (await call("/v1/products/", { body: { name: "Sale", prices: fixed } }))
      .body;
    const discount = await call("/v1/discounts/", {
      body: {
        name: "Sale only",
        type: "fixed",
        amount: 100,
        currency: "usd",
        duration: "once",
        products: [discounted.id],
      },
    });
    expect(discount.status).toBe(201);
    const stranger = await api(t.url, `/v1/products/${unused.id}`, {
      method: "DELETE",
      token: other.token,
    });
    expect(stranger.status).toBe(404);
    for (const product of [offered, discounted]) {
      const refused = await call(`/v1/products/${product.id}`, { method: "DELETE" });
      expect(refused.status).toBe(409);
      expect(refused.body.error).toBe("ProductNotDeletable");
      expect((await call(`/v1/products/${product.id}`)).status).toBe(200);
    }
    const deleted = await call(`/v1/products/${unused.id}`, { method: "DELETE" });
    expect(deleted.status).toBe(204);
    expect((await call(`/v1/products/${unused.id}`)).status).toBe(404);
    const [left] = await t.server.database.rows<{ n: number }>(
      sql`select count(*)::int as n from product_prices where product_id = ${unused.id}`,
    );
    expect(left!.n).toBe(0);
  });
});
