// Polar's newest SDK line (1.x, `createPolar` from "@polar-sh/sdk/2026-10") against a real till:
// every method of the catalog resources — products, benefits, discounts, custom fields, checkout
// links, files, meters, events and event types — with assertions on what each answers.
import { createHash } from "node:crypto";
import { createPolar } from "polar-sdk-1/2026-10";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCOPES } from "../../server/lib/scopes.ts";
import { createSeller } from "../helpers/auth.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

let t: TestServer;
let polar: ReturnType<typeof createPolar>;

beforeAll(async () => {
  t = await startTestServer();
  const seller = await createSeller(t.url, [...SCOPES]);
  polar = createPolar({ accessToken: seller.token, baseUrl: t.url });
});
afterAll(() => t?.stop());

describe("SDK 1.x: catalog", () => {
  it("products: create, get, list, update, benefits, delete", async () => {
    const benefit = await polar.benefits.create({
      type: "custom",
      description: "Support",
      properties: { note: "Write to us" },
    });
    const product = await polar.products.create({
      name: "Pro",
      recurring_interval: "month",
      prices: [{ amount_type: "fixed", price_amount: 1900, price_currency: "usd" }],
    });
    expect(product).toMatchObject({ name: "Pro", is_recurring: true, recurring_interval: "month" });
    expect((await polar.products.get(product.id)).id).toBe(product.id);
    const listed = await polar.products.list({ query: "Pro" });
    expect(listed.items.map((p) => p.id)).toContain(product.id);
    expect(listed.pagination.total_count).toBeGreaterThanOrEqual(1);
    const renamed = await polar.products.update(product.id, { name: "Pro plan" });
    expect(renamed.name).toBe("Pro plan");
    const withBenefit = await polar.products.updateBenefits(product.id, { benefits: [benefit.id] });
    expect(withBenefit.benefits.map((b) => b.id)).toEqual([benefit.id]);
    // A benefit is only a link: nothing sold or offered refers to the product, so it goes.
    await polar.products.delete(product.id);
    await expect(polar.products.get(product.id)).rejects.toMatchObject({ statusCode: 404 });
  });

  it("benefits: create, get, list, update, files, grants, delete", async () => {
    const benefit = await polar.benefits.create({
      type: "custom",
      description: "Office hours",
      properties: { note: null },
    });
    expect(benefit).toMatchObject({ type: "custom", description: "Office hours" });
    expect((await polar.benefits.get(benefit.id)).id).toBe(benefit.id);
    expect((await polar.benefits.list({ type: "custom" })).items.map((b) => b.id)).toContain(
      benefit.id,
    );
    const updated = await polar.benefits.update(benefit.id, {
      type: "custom",
      description: "Office hours (weekly)",
    });
    expect(updated.description).toBe("Office hours (weekly)");
    expect((await polar.benefits.grants(benefit.id)).items).toEqual([]);
    const upload = await uploadText("manual.txt", "The manual");
    const files = await polar.benefits.create({
      type: "downloadables",
      description: "Manual",
      properties: { files: [upload.id] },
    });
    const listedFiles = await polar.benefits.files(files.id);
    expect(listedFiles.items.map((f) => f.id)).toEqual([upload.id]);
    await polar.benefits.delete(benefit.id);
    await expect(polar.benefits.get(benefit.id)).rejects.toMatchObject({ statusCode: 404 });
  });

  it("discounts: create, get, list, update, delete", async () => {
    const discount = await polar.discounts.create({
      name: "Launch",
      type: "percentage",
      basis_points: 2000,
      duration: "repeating",
      duration_in_months: 3,
      code: "LAUNCH20",
    });
    expect(discount).toMatchObject({ basis_points: 2000, duration_in_months: 3, code: "LAUNCH20" });
    expect((await polar.discounts.get(discount.id)).id).toBe(discount.id);
    expect((await polar.discounts.list({ query: "Launch" })).items).toHaveLength(1);
    expect((await polar.discounts.update(discount.id, { name: "Launch week" })).name).toBe(
      "Launch week",
    );
    await polar.discounts.delete(discount.id);
    await expect(polar.discounts.get(discount.id)).rejects.toMatchObject({ statusCode: 404 });
  });

  it("custom fields: create, get, list, update, delete", async () => {
    const field = await polar.customFields.create({
      type: "text",
      slug: "company-size",
      name: "Company size",
      properties: {},
    });
    expect(field).toMatchObject({ type: "text", slug: "company-size" });
    expect((await polar.customFields.get(field.id)).slug).toBe("company-size");
    expect((await polar.customFields.list()).items.map((f) => f.id)).toContain(field.id);
    const renamed = await polar.customFields.update(field.id, { type: "text", name: "Team size" });
    expect(renamed.name).toBe("Team size");
    await polar.customFields.delete(field.id);
    await expect(polar.customFields.get(field.id)).rejects.toMatchObject({ statusCode: 404 });
  });

  it("checkout links: create, get, list, update, delete", async () => {
    const product = await polar.products.create({
      name: "E-book",
      prices: [{ amount_type: "fixed", price_amount: 900, price_currency: "usd" }],
    });
    const link = await polar.checkoutLinks.create({
      payment_processor: "stripe",
      products: [product.id],
      label: "Newsletter",
    });
    expect(link.url).toMatch(/^http/);
    expect((await polar.checkoutLinks.get(link.id)).label).toBe("Newsletter");
    expect((await polar.checkoutLinks.list()).items.map((l) => l.id)).toContain(link.id);
    expect((await polar.checkoutLinks.update(link.id, { label: "Footer" })).label).toBe("Footer");
    await polar.checkoutLinks.delete(link.id);
    await expect(polar.checkoutLinks.get(link.id)).rejects.toMatchObject({ statusCode: 404 });
  });

  it("files: create, upload, uploaded, list, update, delete", async () => {
    const file = await uploadText("notes.txt", "Some notes");
    expect(file).toMatchObject({ name: "notes.txt", is_uploaded: true });
    expect((await polar.files.list({ ids: [file.id] })).items.map((f) => f.id)).toEqual([file.id]);
    expect((await polar.files.update(file.id, { name: "notes-v2.txt" })).name).toBe("notes-v2.txt");
    await polar.files.delete(file.id);
    expect((await polar.files.list({ ids: [file.id] })).items).toEqual([]);
  });

  it("meters, events and event types: create, ingest, quantities, names, label", async () => {
    const meter = await polar.meters.create({
      name: "Calls",
      filter: {
        conjunction: "and",
        clauses: [{ property: "name", operator: "eq", value: "sdk_call" }],
      },
      aggregation: { func: "count" },
    });
    expect((await polar.meters.get(meter.id)).name).toBe("Calls");
    expect((await polar.meters.list()).items.map((m) => m.id)).toContain(meter.id);
    expect((await polar.meters.update(meter.id, { name: "API calls" })).name).toBe("API calls");
    const customer = await polar.customers.create({ email: "meter@example.com" });
    const at = new Date(Date.UTC(2026, 0, 15, 12)).toISOString();
    const ingested = await polar.events.ingest({
      events: [1, 2, 3].map(() => ({ name: "sdk_call", customer_id: customer.id, timestamp: at })),
    });
    expect(ingested.inserted).toBe(3);
    const quantities = await polar.meters.quantities(meter.id, {
      start_timestamp: "2026-01-01T00:00:00Z",
      end_timestamp: "2026-02-01T00:00:00Z",
      interval: "month",
    });
    expect(quantities.total).toBe(3);
    const events = await polar.events.list({ customer_id: customer.id });
    expect(events.items).toHaveLength(3);
    expect((await polar.events.get(events.items[0]!.id)).name).toBe("sdk_call");
    const names = await polar.events.listNames({});
    expect(names.items.map((n) => n.name)).toContain("sdk_call");
    const type = (await polar.eventTypes.list()).items.find((e) => e.name === "sdk_call")!;
    expect((await polar.eventTypes.update(type.id!, { label: "SDK call" })).label).toBe("SDK call");
  });
});

/** A text file through the SDK's three upload steps (create, PUT the part, uploaded). */
async function uploadText(name: string, content: string) {
  const bytes = Buffer.from(content);
  const sha256 = createHash("sha256").update(bytes).digest("base64");
  const created = await polar.files.create({
    name,
    mime_type: "text/plain",
    size: bytes.length,
    service: "downloadable",
    checksum_sha256_base64: sha256,
    upload: {
      parts: [
        { number: 1, chunk_start: 0, chunk_end: bytes.length, checksum_sha256_base64: sha256 },
      ],
    },
  });
  const part = created.upload.parts[0]!;
  const put = await fetch(part.url, { method: "PUT", headers: part.headers, body: bytes });
  expect(put.status).toBe(200);
  return polar.files.uploaded(created.id, {
    id: created.upload.id,
    path: created.upload.path,
    parts: [
      {
        number: 1,
        checksum_etag: put.headers.get("etag") ?? "",
        checksum_sha256_base64: sha256,
      },
    ],
  });
}
