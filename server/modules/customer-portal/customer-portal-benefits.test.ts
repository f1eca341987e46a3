// What a purchase grants, seen through the customer portal: a product with a license key, a
// downloadable and meter credit is bought by two customers; each customer's session lists its own
// key (with activations on a single read), its download (a signed URL serving the file's bytes) and
// its meter balance, through Polar's client; the other customer's key and meter ids are 404.
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Polar } from "@polar-sh/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { insertMeter, uploadFile } from "../../../test/helpers/catalog.ts";
import { buy, eventually } from "../../../test/helpers/grants.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

const SCOPES = [
  "customer_sessions:write",
  "products:write",
  "benefits:write",
  "checkouts:write",
  "customers:write",
  "orders:read",
  "license_keys:write",
  "files:write",
  "events:write",
  "meters:write",
];
const dataDir = mkdtempSync(path.join(tmpdir(), "till-portal-"));
const fileBytes = randomBytes(20_000);
let t: TestServer;
let sellerToken: string;
let polar: Polar;
let organizationId: string;
let meterId: string;
let benefitIds: { key: string; file: string; credit: string };
let fileId: string;
let ada: { customerId: string; session: string };
let bob: { customerId: string; session: string };

async function buyAndWait(productId: string, email: string) {
  const order = await buy(polar, organizationId, productId, email);
  await eventually(
    async () => {
      const grants = (
        await polar.benefitGrants.list({ organizationId, customerId: order.customerId })
      ).result.items;
      return grants.length === 3 && grants.every((g) => g.isGranted);
    },
    20_000,
    `three grants for ${email}`,
  );
  const session = await polar.customerSessions.create({
    customerId: order.customerId,
    returnUrl: "https://shop.example/account",
  });
  return { customerId: order.customerId, session: session.token };
}

beforeAll(async () => {
  t = await startTestServer({ env: { TILL_DATA_DIR: dataDir } });
  const seller = await createSeller(t.url, SCOPES);
  organizationId = seller.organization.id;
  polar = new Polar({ accessToken: seller.token, serverURL: t.url });
  sellerToken = seller.token;
  fileId = (
    await uploadFile(t, seller.token, fileBytes, { service: "downloadable", name: "manual.pdf" })
  ).file.id;
  meterId = await insertMeter(t, organizationId, "API calls");
  const key = await polar.benefits.create({
    type: "license_keys",
    description: "License key",
    properties: { prefix: "ACME", activations: { limit: 3, enableCustomerAdmin: false } },
  });
  const file = await polar.benefits.create({
    type: "downloadables",
    description: "The manual",
    properties: { files: [fileId] },
  });
  const credit = await polar.benefits.create({
    type: "meter_credit",
    description: "100 API calls",
    properties: { units: 100, rollover: false, meterId },
  });
  benefitIds = { key: key.id, file: file.id, credit: credit.id };
  const product = await polar.products.create({
    name: "Toolkit",
    prices: [{ amountType: "fixed", priceAmount: 4900, priceCurrency: "usd" }],
  });
  await polar.products.updateBenefits({
    id: product.id,
    productBenefitsUpdate: { benefits: [key.id, file.id, credit.id] },
  });
  ada = await buyAndWait(product.id, "ada@example.com");
  bob = await buyAndWait(product.id, "bob@example.com");
});
afterAll(async () => {
  await t?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("/v1/customer-portal benefits", () => {
  it("lists and gets the customer's grants as Polar's client parses them", async () => {
    const list = await polar.customerPortal.benefitGrants.list(
      { customerSession: ada.session },
      {},
    );
    const items = list.result.items;
    expect(items.map((g) => g.benefitId).sort()).toEqual(Object.values(benefitIds).sort());
    for (const g of items) {
      expect(g.customerId).toBe(ada.customerId);
      expect(g.customer).toMatchObject({ id: ada.customerId, oauthAccounts: {} });
      expect(g.benefit.organization).toMatchObject({ id: organizationId });
    }
    const one = await polar.customerPortal.benefitGrants.get(
      { customerSession: ada.session },
      { id: items[0]!.id },
    );
    expect(one).toMatchObject({
      id: items[0]!.id,
      benefit: { organization: { id: organizationId } },
    });
    const bobs = await api(t.url, `/v1/customer-portal/benefit-grants/${items[0]!.id}`, {
      token: bob.session,
    });
    expect(bobs.status).toBe(404);
  });

  it("lists the customer's own license key and reads it with its activations", async () => {
    const keys = await polar.customerPortal.licenseKeys.list({ customerSession: ada.session }, {});
    expect(keys.result.items).toHaveLength(1);
    const key = keys.result.items[0]!;
    expect(key).toMatchObject({
      customerId: ada.customerId,
      benefitId: benefitIds.key,
      status: "granted",
      limitActivations: 3,
    });
    expect(key.key).toMatch(/^ACME-[0-9A-F]{8}(-[0-9A-F]{8}){3}$/);
    expect(keys.result.pagination).toEqual({ totalCount: 1, maxPage: 1 });

    await polar.customerPortal.licenseKeys.activate({
      key: key.key,
      organizationId,
      label: "laptop",
    });
    const one = await polar.customerPortal.licenseKeys.get(
      { customerSession: ada.session },
      { id: key.id },
    );
    expect(one.activations.map((a) => a.label)).toEqual(["laptop"]);

    const filtered = await api(
      t.url,
      `/v1/customer-portal/license-keys/?benefit_id=${benefitIds.file}`,
      { token: ada.session },
    );
    expect(filtered.body).toEqual({ items: [], pagination: { total_count: 0, max_page: 0 } });
    const bad = await api(t.url, "/v1/customer-portal/license-keys/?benefit_id=nope", {
      token: ada.session,
    });
    expect(bad.status).toBe(422);
  });

  it("lists the customer's downloadables with a signed URL that serves the file", async () => {
    const list = await polar.customerPortal.downloadables.list(
      { customerSession: ada.session },
      {},
    );
    expect(list.result.items).toHaveLength(1);
    const d = list.result.items[0]!;
    expect(d.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(d).toMatchObject({
      benefitId: benefitIds.file,
      file: { id: fileId, name: "manual.pdf", isUploaded: true },
    });
    const res = await fetch(d.file.download.url);
    expect(res.status).toBe(200);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(createHash("sha256").update(bytes).digest("hex")).toBe(
      createHash("sha256").update(fileBytes).digest("hex"),
    );
    // The same file for Bob is another grant: another id and another URL.
    const bobs = (
      await polar.customerPortal.downloadables.list({ customerSession: bob.session }, {})
    ).result.items;
    expect(bobs.map((b) => b.file.id)).toEqual([fileId]);
    expect(bobs[0]!.id).not.toBe(d.id);
    for (let i = 0; i < 2; i++) expect((await fetch(bobs[0]!.file.download.url)).status).toBe(200);
    // The seller sees the benefit's file with its downloads: three, by two customers.
    const files = await api(t.url, `/v1/benefits/${benefitIds.file}/files`, { token: sellerToken });
    expect(files.status).toBe(200);
    expect(files.body.items).toMatchObject([
      { id: fileId, name: "manual.pdf", service: "downloadable", downloads: 3, downloaders: 2 },
    ]);
    const none = await api(t.url, `/v1/benefits/${benefitIds.key}/files`, { token: sellerToken });
    expect(none.body).toMatchObject({ items: [], pagination: { total_count: 0 } });
    expect(
      (
        await polar.customerPortal.downloadables.list(
          { customerSession: ada.session },
          { benefitId: benefitIds.key },
        )
      ).result.items,
    ).toEqual([]);
  });

  it("lists the customer's meter balance, reads it by id, and filters by meter and name", async () => {
    await polar.events.ingest({
      events: [1, 2, 3].map(() => ({ name: "api_call", customerId: ada.customerId })),
    });
    const list = await polar.customerPortal.customerMeters.list(
      { customerSession: ada.session },
      {},
    );
    expect(list.result.items).toHaveLength(1);
    const m = list.result.items[0]!;
    expect(m).toMatchObject({
      customerId: ada.customerId,
      meterId,
      creditedUnits: 100,
      consumedUnits: 3,
      balance: 97,
      meter: { id: meterId, name: "API calls" },
    });
    const raw = await api(t.url, `/v1/customer-portal/meters/${m.id}`, { token: ada.session });
    expect(Object.keys(raw.body).sort()).toEqual([
      "balance",
      "consumed_units",
      "created_at",
      "credited_units",
      "customer_id",
      "id",
      "meter",
      "meter_id",
      "modified_at",
    ]);
    expect(
      (
        await polar.customerPortal.customerMeters.get(
          { customerSession: ada.session },
          { id: m.id },
        )
      ).balance,
    ).toBe(97);
    expect(
      (await api(t.url, "/v1/customer-portal/customer-meters/?query=api", { token: ada.session }))
        .body.pagination.total_count,
    ).toBe(1);
    expect(
      (
        await api(t.url, "/v1/customer-portal/customer-meters/?query=storage", {
          token: ada.session,
        })
      ).body.items,
    ).toEqual([]);
    expect(
      (
        await api(t.url, `/v1/customer-portal/meters/?meter_id=${benefitIds.key}`, {
          token: ada.session,
        })
      ).body.items,
    ).toEqual([]);
    expect(
      (await api(t.url, "/v1/customer-portal/meters/?sorting=-nope", { token: ada.session }))
        .status,
    ).toBe(422);
    const bobs = (
      await polar.customerPortal.customerMeters.list({ customerSession: bob.session }, {})
    ).result.items;
    expect(bobs).toMatchObject([{ customerId: bob.customerId, consumedUnits: 0, balance: 100 }]);
  });

  it("answers 404 for another customer's license key and meter", async () => {
    const bobKey = (
      await polar.customerPortal.licenseKeys.list({ customerSession: bob.session }, {})
    ).result.items[0]!;
    const bobMeter = (
      await polar.customerPortal.customerMeters.list({ customerSession: bob.session }, {})
    ).result.items[0]!;
    for (const p of [
      `/v1/customer-portal/license-keys/${bobKey.id}`,
      `/v1/customer-portal/meters/${bobMeter.id}`,
      `/v1/customer-portal/customer-meters/${bobMeter.id}`,
    ]) {
      expect(await api(t.url, p, { token: ada.session }), p).toMatchObject({
        status: 404,
        body: { error: "ResourceNotFound" },
      });
    }
    const adaKeys = (
      await polar.customerPortal.licenseKeys.list({ customerSession: ada.session }, {})
    ).result.items;
    expect(adaKeys.map((k) => k.id)).not.toContain(bobKey.id);
  });

  it("tells the portal page when the session ends and where its back link goes", async () => {
    const res = await api(t.url, "/v1/customer-portal/customer-session/introspect", {
      token: ada.session,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      expires_at: expect.any(String),
      return_url: "https://shop.example/account",
    });
    expect((await api(t.url, "/v1/customer-portal/customer-session/introspect")).status).toBe(401);
  });
});
