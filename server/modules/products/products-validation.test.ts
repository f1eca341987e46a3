// Every product and price rule answered with a 422 in Polar's shape, and nothing written: no product,
// no price row, no outbox event, and for updates the product exactly as it was.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import {
  countRows,
  insertMeter,
  startCatalogServer,
  uploadFile,
} from "../../../test/helpers/catalog.ts";
import type { TestServer } from "../../../test/helpers/server.ts";

const SCOPES = ["products:write", "benefits:write", "files:write", "custom_fields:write"];
let t: TestServer;
let seller: Awaited<ReturnType<typeof createSeller>>;
let other: Awaited<ReturnType<typeof createSeller>>;
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await startCatalogServer();
  seller = await createSeller(t.url, SCOPES);
  other = await createSeller(t.url, SCOPES);
  ids.meter = await insertMeter(t, seller.organization.id);
  ids.archivedMeter = await insertMeter(t, seller.organization.id, "Old", true);
  ids.otherMeter = await insertMeter(t, other.organization.id);
  ids.otherMedia = (await uploadFile(t, other.token, Buffer.from("img"))).file.id;
  ids.downloadable = (
    await uploadFile(t, seller.token, Buffer.from("zip"), {
      service: "downloadable",
      name: "a.zip",
      mimeType: "application/zip",
    })
  ).file.id;
  const pending = await api(t.url, "/v1/files/", {
    token: seller.token,
    body: {
      service: "product_media",
      name: "p.png",
      mime_type: "image/png",
      size: 3,
      upload: { parts: [{ number: 1, chunk_start: 0, chunk_end: 3 }] },
    },
  });
  ids.pendingMedia = pending.body.id;
  ids.field = (
    await api(t.url, "/v1/custom-fields/", {
      token: seller.token,
      body: { type: "checkbox", slug: "tos", name: "Terms", properties: {} },
    })
  ).body.id;
  ids.otherField = (
    await api(t.url, "/v1/custom-fields/", {
      token: other.token,
      body: { type: "checkbox", slug: "tos", name: "Terms", properties: {} },
    })
  ).body.id;
  ids.otherBenefit = (
    await api(t.url, "/v1/benefits/", {
      token: other.token,
      body: { type: "custom", description: "Theirs", properties: {} },
    })
  ).body.id;
});
afterAll(() => t?.stop());

const counts = async () => [
  await countRows(t, "products"),
  await countRows(t, "product_prices"),
  await countRows(t, "webhook_events"),
  await countRows(t, "product_medias"),
  await countRows(t, "product_custom_fields"),
];
const fixed = (amount = 1000, extra: Record<string, unknown> = {}) => ({
  amount_type: "fixed",
  price_amount: amount,
  ...extra,
});
const metered = (extra: Record<string, unknown> = {}) => ({
  amount_type: "metered_unit",
  meter_id: ids.meter,
  unit_amount: "0.5",
  ...extra,
});
const monthly = (prices: unknown[], extra: Record<string, unknown> = {}) => ({
  name: "Plan",
  recurring_interval: "month",
  prices,
  ...extra,
});
const oneTime = (prices: unknown[], extra: Record<string, unknown> = {}) => ({
  name: "Thing",
  prices,
  ...extra,
});

async function expect422(
  res: { status: number; body: { error: string; detail: { loc: (string | number)[] }[] } },
  loc: (string | number)[],
) {
  expect(res.status).toBe(422);
  expect(res.body.error).toBe("RequestValidationError");
  expect(res.body.detail[0]!.loc.slice(0, loc.length)).toEqual(loc);
}

describe("POST /v1/products/ validation", () => {
  const cases: [string, () => unknown, (string | number)[]][] = [
    ["a name of two characters", () => oneTime([fixed()], { name: "ab" }), ["body", "name"]],
    [
      "a name over 64 characters",
      () => oneTime([fixed()], { name: "x".repeat(65) }),
      ["body", "name"],
    ],
    ["no prices", () => oneTime([]), ["body", "prices"]],
    [
      "an unknown amount type",
      () => oneTime([{ amount_type: "tiered" }]),
      ["body", "prices", 0, "amount_type"],
    ],
    [
      "a seat-based price without tiers",
      () => oneTime([{ amount_type: "seat_based", seat_tiers: {} }]),
      ["body", "prices", 0, "seat_tiers"],
    ],
    ["a negative fixed amount", () => oneTime([fixed(-1)]), ["body", "prices", 0, "price_amount"]],
    [
      "a fixed amount below the card minimum",
      () => oneTime([fixed(49)]),
      ["body", "prices", 0, "price_amount"],
    ],
    [
      "a fixed amount that is not an integer",
      () => oneTime([fixed(10.5)]),
      ["body", "prices", 0, "price_amount"],
    ],
    [
      "an unknown currency",
      () => oneTime([fixed(1000, { price_currency: "xxx" })]),
      ["body", "prices", 0, "price_currency"],
    ],
    [
      "an unknown tax behavior",
      () => oneTime([fixed(1000, { tax_behavior: "sometimes" })]),
      ["body", "prices", 0, "tax_behavior"],
    ],
    [
      "a custom minimum below the card minimum",
      () => oneTime([{ amount_type: "custom", minimum_amount: 10 }]),
      ["body", "prices", 0, "minimum_amount"],
    ],
    [
      "a custom maximum below the minimum",
      () => oneTime([{ amount_type: "custom", minimum_amount: 1000, maximum_amount: 500 }]),
      ["body", "prices", 0, "maximum_amount"],
    ],
    [
      "a custom preset above the maximum",
      () =>
        oneTime([
          { amount_type: "custom", minimum_amount: 100, maximum_amount: 500, preset_amount: 600 },
        ]),
      ["body", "prices", 0, "preset_amount"],
    ],
    [
      "a custom preset below the minimum",
      () => oneTime([{ amount_type: "custom", minimum_amount: 500, preset_amount: 100 }]),
      ["body", "prices", 0, "preset_amount"],
    ],
    [
      "two fixed prices in one currency",
      () => oneTime([fixed(1000), fixed(2000)]),
      ["body", "prices", 1],
    ],
    [
      "a fixed and a free price in one currency",
      () => oneTime([fixed(1000), { amount_type: "free" }]),
      ["body", "prices", 1],
    ],
    [
      "a metered price on a one-time product",
      () => oneTime([metered()]),
      ["body", "prices", 0, "amount_type"],
    ],
    [
      "two metered prices on one meter",
      () => monthly([metered(), metered()]),
      ["body", "prices", 1, "meter_id"],
    ],
    [
      "a metered price on another organization's meter",
      () => monthly([metered({ meter_id: ids.otherMeter })]),
      ["body", "prices", 0, "meter_id"],
    ],
    [
      "a metered price on an archived meter",
      () => monthly([metered({ meter_id: ids.archivedMeter })]),
      ["body", "prices", 0, "meter_id"],
    ],
    [
      "a metered price without meter",
      () => monthly([{ amount_type: "metered_unit", unit_amount: "1" }]),
      ["body", "prices", 0, "meter_id"],
    ],
    [
      "a unit amount of zero",
      () => monthly([metered({ unit_amount: "0" })]),
      ["body", "prices", 0, "unit_amount"],
    ],
    [
      "a unit amount that is not a number",
      () => monthly([metered({ unit_amount: "abc" })]),
      ["body", "prices", 0, "unit_amount"],
    ],
    [
      "a unit amount with 13 decimals",
      () => monthly([metered({ unit_amount: "0.0000000000001" })]),
      ["body", "prices", 0, "unit_amount"],
    ],
    [
      "a unit amount with 6 integer digits",
      () => monthly([metered({ unit_amount: "123456" })]),
      ["body", "prices", 0, "unit_amount"],
    ],
    [
      "a negative numeric unit amount",
      () => monthly([metered({ unit_amount: -2 })]),
      ["body", "prices", 0, "unit_amount"],
    ],
    [
      "a negative cap",
      () => monthly([metered({ cap_amount: -1 })]),
      ["body", "prices", 0, "cap_amount"],
    ],
    [
      "an unknown recurring interval",
      () => monthly([fixed()], { recurring_interval: "quarter" }),
      ["body", "recurring_interval"],
    ],
    [
      "a recurring interval count of 1000",
      () => monthly([fixed()], { recurring_interval_count: 1000 }),
      ["body", "recurring_interval_count"],
    ],
    [
      "a recurring interval count on a one-time product",
      () => oneTime([fixed()], { recurring_interval_count: 2 }),
      ["body", "recurring_interval_count"],
    ],
    [
      "a trial on a one-time product",
      () => oneTime([fixed()], { trial_interval: "day", trial_interval_count: 7 }),
      ["body", "trial_interval"],
    ],
    [
      "a trial interval without its count",
      () => monthly([fixed()], { trial_interval: "day" }),
      ["body", "trial_interval_count"],
    ],
    [
      "a weekly meter cycle in a monthly billing interval (not a whole number of weeks)",
      () => monthly([fixed()], { meter_interval: "week" }),
      ["body", "meter_interval"],
    ],
    [
      "a meter cycle longer than the billing interval",
      () => monthly([fixed()], { meter_interval: "year" }),
      ["body", "meter_interval"],
    ],
    [
      "a meter cycle of 5 months in a yearly interval",
      () =>
        monthly([fixed()], {
          recurring_interval: "year",
          meter_interval: "month",
          meter_interval_count: 5,
        }),
      ["body", "meter_interval"],
    ],
    [
      "a meter cycle on a one-time product",
      () => oneTime([fixed()], { meter_interval: "day" }),
      ["body", "meter_interval"],
    ],
    [
      "a meter interval count without a meter interval",
      () => monthly([fixed()], { meter_interval_count: 2 }),
      ["body", "meter_interval_count"],
    ],
    [
      "an unknown visibility",
      () => oneTime([fixed()], { visibility: "hidden" }),
      ["body", "visibility"],
    ],
    [
      "media of another organization",
      () => oneTime([fixed()], { medias: [ids.otherMedia] }),
      ["body", "medias", 0],
    ],
    [
      "media that is not uploaded yet",
      () => oneTime([fixed()], { medias: [ids.pendingMedia] }),
      ["body", "medias", 0],
    ],
    [
      "a downloadable as media",
      () => oneTime([fixed()], { medias: [ids.downloadable] }),
      ["body", "medias", 0],
    ],
    [
      "a custom field of another organization",
      () =>
        oneTime([fixed()], {
          attached_custom_fields: [{ custom_field_id: ids.otherField, required: true }],
        }),
      ["body", "attached_custom_fields", 0, "custom_field_id"],
    ],
    [
      "a custom field attached twice",
      () =>
        oneTime([fixed()], {
          attached_custom_fields: [
            { custom_field_id: ids.field, required: true },
            { custom_field_id: ids.field, required: false },
          ],
        }),
      ["body", "attached_custom_fields", 1, "custom_field_id"],
    ],
    [
      "an attached custom field without required",
      () => oneTime([fixed()], { attached_custom_fields: [{ custom_field_id: ids.field }] }),
      ["body", "attached_custom_fields", 0, "required"],
    ],
    [
      "metadata with an empty string value",
      () => oneTime([fixed()], { metadata: { k: "" } }),
      ["body", "metadata", "k"],
    ],
    [
      "metadata with a list value",
      () => oneTime([fixed()], { metadata: { k: [1] } }),
      ["body", "metadata", "k"],
    ],
    [
      "an organization the token cannot write to",
      () => oneTime([fixed()], { organization_id: "00000000-0000-4000-8000-000000000000" }),
      ["body", "organization_id"],
    ],
  ];
  for (const [name, body, loc] of cases) {
    it(`${name} → 422 at ${loc.join(".")}`, async () => {
      const before = await counts();
      await expect422(
        await api(t.url, "/v1/products/", { token: seller.token, body: body() }),
        loc,
      );
      expect(await counts()).toEqual(before);
    });
  }
});

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
