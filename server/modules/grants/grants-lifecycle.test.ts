// Grants taken back by changes other than a subscription ending: a benefit removed from a product,
// a benefit deleted, a customer deleted. And the grant lists: /v1/benefit-grants/ with its filters,
// /v1/benefits/{id}/grants, tenancy, 422 for bad queries, the webhook payloads.
import { Polar } from "@polar-sh/sdk";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { buy, eventually } from "../../../test/helpers/grants.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

const SCOPES = [
  "products:write",
  "benefits:write",
  "checkouts:write",
  "customers:write",
  "orders:read",
  "license_keys:write",
];
let t: TestServer;
let polar: Polar;
let token: string;
let organizationId: string;

beforeAll(async () => {
  t = await startTestServer();
  const seller = await createSeller(t.url, SCOPES);
  organizationId = seller.organization.id;
  token = seller.token;
  polar = new Polar({ accessToken: token, serverURL: t.url });
});
afterAll(() => t.stop());

const grants = async (query: Record<string, unknown> = {}) =>
  (await polar.benefitGrants.list({ organizationId, limit: 100, ...query })).result.items;

describe("grant lifecycle", () => {
  it("revokes when a benefit leaves a product, when a benefit is deleted, and when a customer is deleted", async () => {
    const note = await polar.benefits.create({
      type: "custom",
      description: "Private note",
      properties: { note: "Hello" },
    });
    const key = await polar.benefits.create({
      type: "license_keys",
      description: "Key",
      properties: { prefix: "LC", activations: null, limitUsage: null, expires: null },
    });
    const product = await polar.products.create({
      name: "Bundle",
      prices: [{ amountType: "fixed", priceAmount: 1000, priceCurrency: "usd" }],
    });
    await polar.products.updateBenefits({
      id: product.id,
      productBenefitsUpdate: { benefits: [note.id, key.id] },
    });
    const o1 = await buy(polar, organizationId, product.id, "first@example.com");
    const o2 = await buy(polar, organizationId, product.id, "second@example.com");
    await eventually(
      async () => ((await grants({ isGranted: true })).length === 4 ? true : undefined),
      15_000,
      "four grants",
    );
    await polar.customers.update({
      id: o1.customerId,
      customerUpdate: { externalId: "ext-first" },
    });

    // Filters.
    expect((await grants({ customerId: o1.customerId })).map((g) => g.benefitId).sort()).toEqual(
      [note.id, key.id].sort(),
    );
    expect(
      (await grants({ externalCustomerId: "ext-first" })).every(
        (g) => g.customerId === o1.customerId,
      ),
    ).toBe(true);
    const ofNote = await api(t.url, `/v1/benefits/${note.id}/grants`, { token });
    expect(ofNote.status).toBe(200);
    expect(
      (ofNote.body as { items: { customer_id: string }[] }).items.map((g) => g.customer_id).sort(),
    ).toEqual([o1.customerId, o2.customerId].sort());
    const ofNoteFirst = await api(
      t.url,
      `/v1/benefits/${note.id}/grants?customer_id=${o1.customerId}&is_granted=true`,
      { token },
    );
    expect(
      (ofNoteFirst.body as { pagination: { total_count: number } }).pagination.total_count,
    ).toBe(1);

    // The license key leaves the product: both customers lose the key, keep the note.
    await polar.products.updateBenefits({
      id: product.id,
      productBenefitsUpdate: { benefits: [note.id] },
    });
    await eventually(
      async () => ((await grants({ isGranted: false })).length === 2 ? true : undefined),
      15_000,
      "key grants revoked",
    );
    expect(
      (await grants({ isGranted: false })).every((g) => g.benefitId === key.id && g.isRevoked),
    ).toBe(true);
    expect(
      (await polar.licenseKeys.list({ organizationId, benefitId: key.id })).result.items.map(
        (k) => k.status,
      ),
    ).toEqual(["revoked", "revoked"]);

    // The second customer is deleted: their note grant is revoked.
    await polar.customers.delete({ id: o2.customerId });
    await eventually(
      async () =>
        (await grants({ customerId: o2.customerId })).every((g) => g.isRevoked) ? true : undefined,
      15_000,
      "customer's grants revoked",
    );
    expect(
      (await grants({ customerId: o1.customerId, isGranted: true })).map((g) => g.benefitId),
    ).toEqual([note.id]);

    // The note benefit is deleted: the first customer's note grant goes too.
    await polar.benefits.delete({ id: note.id });
    await eventually(
      async () => ((await grants({ isGranted: true })).length === 0 ? true : undefined),
      15_000,
      "all revoked",
    );
    const state = await polar.customers.getState({ id: o1.customerId });
    expect(state.grantedBenefits).toEqual([]);

    // Webhooks: the revocation carries the grant with its previous properties.
    const [revoked] = await t.server.database.rows<{ payload: { data: Record<string, unknown> } }>(
      sql`select payload from webhook_events where organization_id = ${organizationId} and type = 'benefit_grant.revoked' and payload->'data'->>'benefit_id' = ${key.id} limit 1`,
    );
    expect(revoked!.payload.data).toMatchObject({
      is_revoked: true,
      is_granted: false,
      benefit_id: key.id,
      previous_properties: { license_key_id: expect.any(String) },
    });
    expect(revoked!.payload.data.customer).toMatchObject({ id: expect.any(String) });
    expect(revoked!.payload.data.benefit).toMatchObject({ id: key.id, type: "license_keys" });
  });

  it("refuses bad list queries with a 422 and hides other organizations' grants", async () => {
    for (const q of ["is_granted=maybe", "customer_id=nope", "sorting=color", "limit=0"]) {
      const res = await api(t.url, `/v1/benefit-grants/?${q}`, { token });
      expect(res.status, q).toBe(422);
    }
    const other = await createSeller(t.url, ["benefits:read"]);
    const mine = (await grants()).length;
    expect(mine).toBeGreaterThan(0);
    const theirs = await api(t.url, "/v1/benefit-grants/", { token: other.token });
    expect(theirs.body).toMatchObject({ items: [], pagination: { total_count: 0 } });
    const benefit = await polar.benefits.create({
      type: "custom",
      description: "Mine only",
      properties: { note: null },
    });
    expect(
      (await api(t.url, `/v1/benefits/${benefit.id}/grants`, { token: other.token })).status,
    ).toBe(404);
    expect(
      (
        await api(t.url, `/v1/benefit-grants/${(await grants())[0]!.id}/downloadables`, {
          token: other.token,
        })
      ).status,
    ).toBe(404);
  });
});
