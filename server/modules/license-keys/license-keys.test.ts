// License keys over the seller's API (organization token) and the public customer-portal routes:
// list/get/update, activations, the contract's status codes for revoked, disabled, expired and
// mismatched keys, activation and usage limits, tenancy, validation with no change, and the per-IP
// rate limit of the public routes.
import { Polar } from "@polar-sh/sdk";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { buy, eventually } from "../../../test/helpers/grants.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { TestClock } from "../../lib/clock.ts";

const SCOPES = [
  "products:write",
  "benefits:write",
  "checkouts:write",
  "customers:write",
  "orders:read",
  "license_keys:write",
];
const clock = new TestClock();
let t: TestServer;
let polar: Polar;
let token: string;
let organizationId: string;

beforeAll(async () => {
  t = await startTestServer({ clock, env: { LICENSE_KEY_RATE_LIMIT: "15" } });
  const seller = await createSeller(t.url, SCOPES);
  organizationId = seller.organization.id;
  token = seller.token;
  polar = new Polar({ accessToken: token, serverURL: t.url });
});
afterAll(() => t.stop());

let n = 0;
/** Buys a product granting a license_keys benefit with these properties; returns the issued key. */
async function issuedKey(properties: Record<string, unknown>) {
  n++;
  const benefit = await polar.benefits.create({
    type: "license_keys",
    description: `Key ${n}`,
    properties,
  } as Parameters<typeof polar.benefits.create>[0]);
  const product = await polar.products.create({
    name: `Licensed ${n}`,
    prices: [{ amountType: "fixed", priceAmount: 1000, priceCurrency: "usd" }],
  });
  await polar.products.updateBenefits({
    id: product.id,
    productBenefitsUpdate: { benefits: [benefit.id] },
  });
  const order = await buy(polar, organizationId, product.id, `licensee${n}@example.com`);
  const grant = await eventually(
    async () =>
      (
        await polar.benefitGrants.list({ organizationId, customerId: order.customerId })
      ).result.items.find((g) => g.isGranted),
    15_000,
    "license grant",
  );
  const id = (grant.properties as { licenseKeyId: string }).licenseKeyId;
  return { ...(await polar.licenseKeys.get({ id })), order, benefitId: benefit.id };
}

const portal = (path: string, body: Record<string, unknown>) =>
  api(t.url, `/v1/customer-portal/license-keys/${path}`, { method: "POST", body });
const seller = (path: string, body: Record<string, unknown>, tok = token) =>
  api(t.url, `/v1/license-keys/${path}`, { method: "POST", token: tok, body });

describe("license keys", () => {
  it("lists, reads and updates keys; reads activations", async () => {
    const key = await issuedKey({
      prefix: "tool",
      activations: { limit: 1, enableCustomerAdmin: true },
      limitUsage: null,
      expires: null,
    });
    expect(key.key).toMatch(/^TOOL-[0-9A-F]{8}(-[0-9A-F]{8}){3}$/);
    expect(key).toMatchObject({
      status: "granted",
      limitActivations: 1,
      limitUsage: null,
      expiresAt: null,
      usage: 0,
      validations: 0,
      activations: [],
    });
    const listed = await polar.licenseKeys.list({ organizationId, benefitId: key.benefitId });
    expect(listed.result.items.map((k) => k.id)).toEqual([key.id]);

    const activation = await polar.licenseKeys.activate({
      key: key.key,
      organizationId,
      label: "ci-runner",
      conditions: { major: 2 },
    });
    const read = await polar.licenseKeys.getActivation({ id: key.id, activationId: activation.id });
    expect(read).toMatchObject({
      id: activation.id,
      label: "ci-runner",
      licenseKey: { id: key.id },
    });
    // An activation with conditions validates only with the same conditions.
    expect(
      (
        await seller("validate", {
          key: key.key,
          organization_id: organizationId,
          activation_id: activation.id,
          conditions: { major: 3 },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await seller("validate", {
          key: key.key,
          organization_id: organizationId,
          activation_id: activation.id,
          conditions: { major: 2 },
        })
      ).status,
    ).toBe(200);

    const updated = await polar.licenseKeys.update({
      id: key.id,
      licenseKeyUpdate: { limitUsage: 10, usage: 3, limitActivations: 3 },
    });
    expect(updated).toMatchObject({ limitUsage: 10, usage: 3, limitActivations: 3 });
    const disabled = await polar.licenseKeys.update({
      id: key.id,
      licenseKeyUpdate: { status: "disabled" },
    });
    expect(disabled.status).toBe("disabled");
    expect(
      (await portal("validate", { key: key.key, organization_id: organizationId })).status,
    ).toBe(404);
    expect(
      (await portal("activate", { key: key.key, organization_id: organizationId, label: "x" }))
        .status,
    ).toBe(404);
    await polar.licenseKeys.update({ id: key.id, licenseKeyUpdate: { status: "granted" } });
    expect(
      (await portal("validate", { key: key.key, organization_id: organizationId })).status,
    ).toBe(200);
  });

  it("answers 404 for mismatched benefit or customer and unknown keys, 403 without activations", async () => {
    const key = await issuedKey({ prefix: null, activations: null, limitUsage: 2, expires: null });
    expect(key.key).toMatch(/^[0-9A-F]{8}(-[0-9A-F]{8}){3}$/);
    const base = { key: key.key, organization_id: organizationId };
    expect(
      (
        await portal("validate", {
          ...base,
          benefit_id: key.benefitId,
          customer_id: key.customerId,
        })
      ).status,
    ).toBe(200);
    expect(
      (await portal("validate", { ...base, benefit_id: "00000000-0000-4000-8000-000000000000" }))
        .status,
    ).toBe(404);
    expect(
      (await portal("validate", { ...base, customer_id: "00000000-0000-4000-8000-000000000000" }))
        .status,
    ).toBe(404);
    expect((await portal("validate", { ...base, key: `${key.key}X` })).body).toMatchObject({
      error: "ResourceNotFound",
    });
    const noActivations = await seller("activate", { ...base, label: "laptop" });
    expect(noActivations.status).toBe(403);
    expect(noActivations.body).toMatchObject({ error: "NotPermitted" });
    // Usage: 2 allowed, the third increment is a 400 and changes nothing.
    expect((await seller("validate", { ...base, increment_usage: 2 })).body).toMatchObject({
      usage: 2,
    });
    const over = await seller("validate", { ...base, increment_usage: 1 });
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ error: "BadRequest" });
    expect((await polar.licenseKeys.get({ id: key.id })).usage).toBe(2);
    expect(
      (
        await seller("deactivate", {
          ...base,
          activation_id: "00000000-0000-4000-8000-000000000000",
        })
      ).status,
    ).toBe(404);
  });

  it("keeps other organizations' keys out of reach, and bad input changes nothing", async () => {
    const key = await issuedKey({
      prefix: "ORG",
      activations: { limit: 2, enableCustomerAdmin: false },
      limitUsage: null,
      expires: null,
    });
    const other = await createSeller(t.url, ["license_keys:write"]);
    expect(
      (await seller("validate", { key: key.key, organization_id: organizationId }, other.token))
        .status,
    ).toBe(404);
    expect(
      (
        await seller(
          "activate",
          { key: key.key, organization_id: other.organization.id, label: "x" },
          other.token,
        )
      ).status,
    ).toBe(404);
    expect((await api(t.url, `/v1/license-keys/${key.id}`, { token: other.token })).status).toBe(
      404,
    );
    expect(
      (
        await api(t.url, `/v1/license-keys/${key.id}`, {
          method: "PATCH",
          token: other.token,
          body: { status: "revoked" },
        })
      ).status,
    ).toBe(404);

    const cases: [string, Record<string, unknown>, (string | number)[]][] = [
      ["validate", { key: key.key }, ["body", "organization_id"]],
      [
        "validate",
        { key: key.key, organization_id: organizationId, increment_usage: 0 },
        ["body", "increment_usage"],
      ],
      ["activate", { key: key.key, organization_id: organizationId }, ["body", "label"]],
      [
        "deactivate",
        { key: key.key, organization_id: organizationId, activation_id: "nope" },
        ["body", "activation_id"],
      ],
    ];
    for (const [path, body, loc] of cases) {
      const res = await seller(path, body);
      expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(422);
      expect((res.body as { detail: { loc: unknown[] }[] }).detail[0]!.loc).toEqual(loc);
    }
    const badPatch = await api(t.url, `/v1/license-keys/${key.id}`, {
      method: "PATCH",
      token,
      body: { status: "lost", usage: -1 },
    });
    expect(badPatch.status).toBe(422);
    const after = await polar.licenseKeys.get({ id: key.id });
    expect(after).toMatchObject({ status: "granted", usage: 0, validations: 0, activations: [] });
  });

  it("racing activations stop at the limit", async () => {
    const key = await issuedKey({
      prefix: "RACE",
      activations: { limit: 3, enableCustomerAdmin: false },
      limitUsage: null,
      expires: null,
    });
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        seller("activate", { key: key.key, organization_id: organizationId, label: `device-${i}` }),
      ),
    );
    expect(results.filter((r) => r.status === 200).length).toBe(3);
    expect(results.filter((r) => r.status === 403).length).toBe(5);
    const [row] = await t.server.database.rows<{ n: number }>(
      sql`select count(*)::int as n from license_key_activations where license_key_id = ${key.id}`,
    );
    expect(row!.n).toBe(3);
  });

  it("an expired key is not found; the expiry follows the benefit's ttl and timeframe", async () => {
    const key = await issuedKey({
      prefix: "TRIAL",
      activations: null,
      limitUsage: null,
      expires: { ttl: 3, timeframe: "day" },
    });
    const days = (key.expiresAt!.getTime() - clock.now().getTime()) / 86_400_000;
    expect(days).toBeGreaterThan(2.99);
    expect(days).toBeLessThanOrEqual(3);
    expect(
      (await portal("validate", { key: key.key, organization_id: organizationId })).status,
    ).toBe(200);
    clock.advance(3 * 86_400_000 + 1000);
    const expired = await portal("validate", { key: key.key, organization_id: organizationId });
    expect(expired.status).toBe(404);
    expect(expired.body).toMatchObject({
      error: "ResourceNotFound",
      detail: "License key has expired.",
    });
  });

  it("rate-limits the public routes per IP with Retry-After", async () => {
    clock.advance(61_000); // a fresh one-minute window, whatever earlier tests used
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${t.url}/v1/customer-portal/license-keys/validate`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ key: "NOPE", organization_id: organizationId }),
      });
      statuses.push(res.status);
      if (res.status === 429) retryAfter ??= res.headers.get("retry-after");
    }
    expect(statuses.slice(0, 15).every((s) => s === 404)).toBe(true);
    expect(statuses.slice(15).every((s) => s === 429)).toBe(true);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    // The next window admits requests again.
    clock.advance(61_000);
    expect(
      (await portal("validate", { key: "NOPE", organization_id: organizationId })).status,
    ).toBe(404);
    // The organization-token routes are not limited by it.
    expect(
      (await seller("validate", { key: "NOPE", organization_id: organizationId })).status,
    ).toBe(404);
  });
});
