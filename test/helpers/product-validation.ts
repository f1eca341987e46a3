// The tenants and request builders of the product validation suites: a catalog server, a seller
// with a meter, media, a downloadable and a custom field, and another organization whose parts the
// seller must not be able to use. Row counts show that a refused request wrote nothing.
import { afterAll, beforeAll, expect } from "vitest";
import { api, createSeller } from "./auth.ts";
import { countRows, insertMeter, startCatalogServer, uploadFile } from "./catalog.ts";
import type { TestServer } from "./server.ts";

const SCOPES = ["products:write", "benefits:write", "files:write", "custom_fields:write"];
export let t: TestServer;
export let seller: Awaited<ReturnType<typeof createSeller>>;
export let other: Awaited<ReturnType<typeof createSeller>>;
export const ids: Record<string, string> = {};

/** Registers the suite's server and tenants: the seller, another organization, and their parts. */
export function withValidationTenants(): void {
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
}

export const counts = async () => [
  await countRows(t, "products"),
  await countRows(t, "product_prices"),
  await countRows(t, "webhook_events"),
  await countRows(t, "product_medias"),
  await countRows(t, "product_custom_fields"),
];
export const fixed = (amount = 1000, extra: Record<string, unknown> = {}) => ({
  amount_type: "fixed",
  price_amount: amount,
  ...extra,
});
export const metered = (extra: Record<string, unknown> = {}) => ({
  amount_type: "metered_unit",
  meter_id: ids.meter,
  unit_amount: "0.5",
  ...extra,
});
export const monthly = (prices: unknown[], extra: Record<string, unknown> = {}) => ({
  name: "Plan",
  recurring_interval: "month",
  prices,
  ...extra,
});
export const oneTime = (prices: unknown[], extra: Record<string, unknown> = {}) => ({
  name: "Thing",
  prices,
  ...extra,
});

export async function expect422(
  res: { status: number; body: { error: string; detail: { loc: (string | number)[] }[] } },
  loc: (string | number)[],
) {
  expect(res.status).toBe(422);
  expect(res.body.error).toBe("RequestValidationError");
  expect(res.body.detail[0]!.loc.slice(0, loc.length)).toEqual(loc);
}
