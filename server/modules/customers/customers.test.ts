import { sql } from "drizzle-orm";
import { ResourceNotFound } from "@polar-sh/sdk/models/errors/resourcenotfound.js";
import { HTTPValidationError } from "@polar-sh/sdk/models/errors/httpvalidationerror.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { countRows, polarClient } from "../../../test/helpers/polar.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

type Seller = Awaited<ReturnType<typeof createSeller>>;
let t: TestServer;
let seller: Seller;
let other: Seller;
beforeAll(async () => {
  t = await startTestServer();
  seller = await createSeller(t.url, ["customers:write", "events:write"]);
  other = await createSeller(t.url, ["customers:write"]);
});
afterAll(() => t.stop());

describe("customers through @polar-sh/sdk", () => {
  it("creates, gets, lists with pagination, updates and deletes", async () => {
    const polar = polarClient(t, seller.token);
    const created = await polar.customers.create({
      email: "ada@example.com",
      name: "Ada",
      externalId: "usr_ada",
      billingAddress: { country: "FR", city: "Paris" },
      taxId: "FR 61 954 506 077",
      metadata: { plan: "pro", seats: 3 },
    });
    expect(created).toMatchObject({
      email: "ada@example.com",
      name: "Ada",
      externalId: "usr_ada",
      type: "individual",
      organizationId: seller.organization.id,
    });
    expect(created.taxId).toEqual(["FR61954506077", "eu_vat"]);
    expect(created.billingAddress).toMatchObject({ country: "FR", city: "Paris", line1: null });
    expect(created.deletedAt).toBeNull();

    expect((await polar.customers.get({ id: created.id })).email).toBe("ada@example.com");
    expect((await polar.customers.getExternal({ externalId: "usr_ada" })).id).toBe(created.id);
    const state = await polar.customers.getState({ id: created.id });
    expect(state).toMatchObject({
      id: created.id,
      activeSubscriptions: [],
      grantedBenefits: [],
      activeMeters: [],
    });
    expect((await polar.customers.getStateExternal({ externalId: "usr_ada" })).id).toBe(created.id);

    for (let i = 0; i < 4; i++)
      await polar.customers.create({ email: `c${i}@example.com`, name: `C${i}` });
    const pages = [];
    for await (const page of await polar.customers.list({ limit: 2 }))
      pages.push(page.result.items.map((c) => c.email));
    expect(pages.length).toBe(3);
    expect(pages.flat().sort()).toEqual([
      "ada@example.com",
      "c0@example.com",
      "c1@example.com",
      "c2@example.com",
      "c3@example.com",
    ]);
    const byMeta = await polar.customers.list({ metadata: { plan: "pro" } });
    expect(byMeta.result.items.map((c) => c.id)).toEqual([created.id]);
    const byQuery = await polar.customers.list({ query: "usr_a" });
    expect(byQuery.result.items.map((c) => c.id)).toEqual([created.id]);

    const updated = await polar.customers.update({
      id: created.id,
      customerUpdate: { name: "Ada L.", metadata: { plan: "team" } },
    });
    expect(updated).toMatchObject({ name: "Ada L.", metadata: { plan: "team" } });
    expect(updated.modifiedAt).toBeInstanceOf(Date);
    const byExternal = await polar.customers.updateExternal({
      externalId: "usr_ada",
      customerUpdateExternalID: { locale: "fr-FR" },
    });
    expect(byExternal.locale).toBe("fr-FR");

    await polar.customers.delete({ id: created.id });
    await expect(polar.customers.get({ id: created.id })).rejects.toBeInstanceOf(ResourceNotFound);
    await expect(polar.customers.getExternal({ externalId: "usr_ada" })).rejects.toBeInstanceOf(
      ResourceNotFound,
    );
    // A deleted customer frees its email and external id.
    const again = await polar.customers.create({ email: "ADA@example.com", externalId: "usr_ada" });
    expect(again.id).not.toBe(created.id);
    await polar.customers.deleteExternal({ externalId: "usr_ada" });

    const events = await t.server.database.rows<{
      type: string;
      payload: { data: { id: string } };
    }>(
      sql`select type, payload from webhook_events where organization_id = ${seller.organization.id} and payload->'data'->>'id' = ${created.id} order by seq`,
    );
    expect(events.map((e) => e.type)).toEqual([
      "customer.created",
      "customer.updated",
      "customer.updated",
      "customer.deleted",
    ]);
  });

  it("another organization's customer is ResourceNotFound; bad input is a 422", async () => {
    const polar = polarClient(t, seller.token);
    const mine = await polar.customers.create({ email: "mine@example.com", externalId: "mine" });
    const theirs = polarClient(t, other.token);
    await expect(theirs.customers.get({ id: mine.id })).rejects.toBeInstanceOf(ResourceNotFound);
    await expect(theirs.customers.getExternal({ externalId: "mine" })).rejects.toBeInstanceOf(
      ResourceNotFound,
    );
    await expect(
      theirs.customers.update({ id: mine.id, customerUpdate: { name: "x" } }),
    ).rejects.toBeInstanceOf(ResourceNotFound);
    await expect(theirs.customers.delete({ id: mine.id })).rejects.toBeInstanceOf(ResourceNotFound);
    await expect(polar.customers.create({ email: "mine@example.com" })).rejects.toBeInstanceOf(
      HTTPValidationError,
    );
  });
});

describe("customer validation: 4xx in Polar's shape, nothing written", () => {
  const cases: [string, Record<string, unknown>, (string | number)[]][] = [
    ["missing email", { name: "x" }, ["body", "email"]],
    ["malformed email", { email: "not-an-email" }, ["body", "email"]],
    [
      "address without country",
      { email: "a1@example.com", billing_address: { city: "Paris" } },
      ["body", "billing_address", "country"],
    ],
    [
      "unknown country",
      { email: "a2@example.com", billing_address: { country: "XX" } },
      ["body", "billing_address", "country"],
    ],
    [
      "an address line of 200 KB",
      { email: "a5@example.com", billing_address: { country: "US", line1: "x".repeat(200_000) } },
      ["body", "billing_address", "line1"],
    ],
    [
      "tax id without address",
      { email: "a3@example.com", tax_id: "911144442" },
      ["body", "tax_id"],
    ],
    [
      "tax id of the wrong shape",
      { email: "a4@example.com", billing_address: { country: "US" }, tax_id: "12" },
      ["body", "tax_id"],
    ],
    [
      "tax id pair with an unknown format",
      { email: "a5@example.com", tax_id: ["123", "xx_vat"] },
      ["body", "tax_id"],
    ],
    ["team customers", { email: "a6@example.com", type: "team" }, ["body", "type"]],
    [
      "metadata with 51 keys",
      {
        email: "a7@example.com",
        metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])),
      },
      ["body", "metadata"],
    ],
    [
      "metadata key over 40 characters",
      { email: "a8@example.com", metadata: { ["k".repeat(41)]: 1 } },
      ["body", "metadata", "k".repeat(41)],
    ],
    [
      "metadata string over 500 characters",
      { email: "a9@example.com", metadata: { note: "x".repeat(501) } },
      ["body", "metadata", "note"],
    ],
    [
      "name over 256 characters",
      { email: "a10@example.com", name: "n".repeat(257) },
      ["body", "name"],
    ],
  ];
  it.each(cases)("%s", async (_label, body, loc) => {
    const before = await countRows(t, "customers");
    const res = await api(t.url, "/v1/customers/", { token: seller.token, body });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe("RequestValidationError");
    expect(res.body.detail[0].loc).toEqual(loc);
    expect(await countRows(t, "customers")).toBe(before);
  });

  it("a tax id pair with a known format is kept as given", async () => {
    const res = await api(t.url, "/v1/customers/", {
      token: seller.token,
      body: { email: "pair@example.com", tax_id: ["911144442", "us_ein"] },
    });
    expect(res.status).toBe(201);
    expect(res.body.tax_id).toEqual(["911144442", "us_ein"]);
  });

  it("email is unique per organization, case-insensitively; external_id too; other organizations may reuse both", async () => {
    await api(t.url, "/v1/customers/", {
      token: seller.token,
      body: { email: "dup@example.com", external_id: "dup" },
    });
    const before = await countRows(t, "customers");
    const email = await api(t.url, "/v1/customers/", {
      token: seller.token,
      body: { email: "DUP@example.com" },
    });
    expect(email.status).toBe(422);
    expect(email.body.detail[0].loc).toEqual(["body", "email"]);
    const ext = await api(t.url, "/v1/customers/", {
      token: seller.token,
      body: { email: "dup2@example.com", external_id: "dup" },
    });
    expect(ext.body.detail[0].loc).toEqual(["body", "external_id"]);
    expect(await countRows(t, "customers")).toBe(before);
    const elsewhere = await api(t.url, "/v1/customers/", {
      token: other.token,
      body: { email: "dup@example.com", external_id: "dup" },
    });
    expect(elsewhere.status).toBe(201);
  });

  it("updates are validated too and change nothing when rejected", async () => {
    const a = await api(t.url, "/v1/customers/", {
      token: seller.token,
      body: { email: "upd-a@example.com", external_id: "upd-a" },
    });
    await api(t.url, "/v1/customers/", {
      token: seller.token,
      body: { email: "upd-b@example.com" },
    });
    const events = await countRows(t, "webhook_events", seller.organization.id);
    for (const [body, loc] of [
      [{ email: "UPD-B@example.com" }, ["body", "email"]],
      [{ external_id: "other" }, ["body", "external_id"]],
      [{ tax_id: "911144442" }, ["body", "tax_id"]],
      [{ billing_address: { line1: "x" } }, ["body", "billing_address", "country"]],
    ] as const) {
      const res = await api(t.url, `/v1/customers/${a.body.id}`, {
        method: "PATCH",
        token: seller.token,
        body,
      });
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(loc);
    }
    const unchanged = await api(t.url, `/v1/customers/${a.body.id}`, { token: seller.token });
    expect(unchanged.body).toEqual(a.body);
    expect(await countRows(t, "webhook_events", seller.organization.id)).toBe(events);
  });

  it("a malformed id is a 422 on the path; an unknown one a 404; a read-only token cannot write", async () => {
    expect(
      (await api(t.url, "/v1/customers/nope", { token: seller.token })).body.detail[0].loc,
    ).toEqual(["path", "id"]);
    const missing = await api(t.url, "/v1/customers/00000000-0000-4000-8000-000000000000", {
      token: seller.token,
    });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe("ResourceNotFound");
    const reader = await createSeller(t.url, ["customers:read"]);
    const res = await api(t.url, "/v1/customers/", {
      token: reader.token,
      body: { email: "r@example.com" },
    });
    expect(res.status).toBe(403);
  });
});
