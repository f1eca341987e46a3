// GET /v1/customer-portal/benefit-grants/ with Polar's filters and CustomerBenefitGrantSortProperty.
// Ada subscribes to Pro (Priority support, then a license key) and later buys the Guide (one custom
// benefit); Bob subscribes to Pro too. Ada's session sees her three grants, narrowed and ordered
// as asked, and never one of Bob's, whatever id she filters by. Last, as Polar's readable grant
// statement: a grant of a benefit no longer public, and a revoked grant, are neither listed nor
// found by id.
import { Polar } from "@polar-sh/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { buy, eventually } from "../../../test/helpers/grants.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { SCOPES } from "../../lib/scopes.ts";

let t: TestServer;
let polar: Polar;
let sellerToken: string;
let organizationId: string;
const benefit = { support: "", key: "", guide: "" };
/** Ada's grant ids by benefit. */
const grant = { support: "", key: "", guide: "" };
type Purchase = Awaited<ReturnType<typeof buy>>;
let adaPro: Purchase;
let adaGuide: Purchase;
let bobPro: Purchase;
let adaSession: string;
let bobGrantIds: string[];

async function buyAndWait(productId: string, email: string, grants: number) {
  const order = await buy(polar, organizationId, productId, email);
  await eventually(
    async () => {
      const { items } = (
        await polar.benefitGrants.list({ organizationId, customerId: order.customerId })
      ).result;
      return items.length === grants && items.every((g) => g.isGranted);
    },
    20_000,
    `${grants} grants for ${email}`,
  );
  return order;
}

async function product(name: string, benefitIds: string[], recurring: boolean) {
  const p = await polar.products.create({
    name,
    ...(recurring ? { recurringInterval: "month" as const } : {}),
    prices: [{ amountType: "fixed", priceAmount: 1500, priceCurrency: "usd" }],
  });
  await polar.products.updateBenefits({
    id: p.id,
    productBenefitsUpdate: { benefits: benefitIds },
  });
  return p.id;
}

beforeAll(async () => {
  t = await startTestServer();
  const seller = await createSeller(t.url, [...SCOPES]);
  organizationId = seller.organization.id;
  sellerToken = seller.token;
  polar = new Polar({ accessToken: seller.token, serverURL: t.url });
  benefit.support = (
    await polar.benefits.create({ type: "custom", description: "Priority support", properties: {} })
  ).id;
  benefit.key = (
    await polar.benefits.create({ type: "license_keys", description: "Pro key", properties: {} })
  ).id;
  benefit.guide = (
    await polar.benefits.create({ type: "custom", description: "Guide chapters", properties: {} })
  ).id;
  const pro = await product("Pro", [benefit.support, benefit.key], true);
  const guide = await product("Guide", [benefit.guide], false);
  adaPro = await buyAndWait(pro, "ada@example.com", 2);
  // Bought after Pro's grants were granted, so the Guide's is the latest granted_at.
  adaGuide = await buyAndWait(guide, "ada@example.com", 3);
  bobPro = await buyAndWait(pro, "bob@example.com", 2);
  expect(adaGuide.customerId).toBe(adaPro.customerId);
  adaSession = (await polar.customerSessions.create({ customerId: adaPro.customerId })).token;
  for (const g of (await polar.benefitGrants.list({ organizationId, limit: 100 })).result.items) {
    const key = (Object.keys(benefit) as (keyof typeof benefit)[]).find(
      (k) => benefit[k] === g.benefitId,
    )!;
    if (g.customerId === adaPro.customerId) grant[key] = g.id;
  }
  bobGrantIds = (
    await polar.benefitGrants.list({ organizationId, customerId: bobPro.customerId })
  ).result.items.map((g) => g.id);
});
afterAll(() => t?.stop());

async function list(query: string) {
  const path = `/v1/customer-portal/benefit-grants/?${query}`;
  const res = await api(t.url, path, { token: adaSession });
  expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
  return res.body as { items: { id: string }[]; pagination: { total_count: number } };
}
const ids = async (query: string) => (await list(query)).items.map((g) => g.id);
const set = async (query: string) => (await ids(query)).sort();
const sorted = (...g: string[]) => [...g].sort();

describe("GET /v1/customer-portal/benefit-grants/ filters", () => {
  it("narrows by query (the benefit's description, wildcards taken literally) and type", async () => {
    expect(await set("query=SUPPORT")).toEqual([grant.support]);
    expect(await set("query=%25")).toEqual([]);
    expect(await set("type=license_keys")).toEqual([grant.key]);
    expect(await set("type=custom")).toEqual(sorted(grant.support, grant.guide));
    expect(await set("type=custom&type=license_keys")).toHaveLength(3);
  });

  it("narrows by benefit, checkout, order, subscription; a member matches no grant", async () => {
    expect(await set(`benefit_id=${benefit.key}`)).toEqual([grant.key]);
    expect(await set(`benefit_id=${benefit.key}&benefit_id=${benefit.guide}`)).toEqual(
      sorted(grant.key, grant.guide),
    );
    // A subscription's grants by its checkout, a one-time purchase's by its order's.
    expect(await set(`checkout_id=${adaPro.checkoutId}`)).toEqual(sorted(grant.support, grant.key));
    expect(await set(`checkout_id=${adaGuide.checkoutId}`)).toEqual([grant.guide]);
    expect(await set(`order_id=${adaGuide.id}`)).toEqual([grant.guide]);
    expect(await set(`subscription_id=${adaPro.subscriptionId}`)).toEqual(
      sorted(grant.support, grant.key),
    );
    expect(await set(`member_id=${crypto.randomUUID()}`)).toEqual([]);
  });

  it("never shows another customer's grant, even filtered by its ids", async () => {
    expect(bobGrantIds).toHaveLength(2);
    expect(await set("limit=100")).toEqual(sorted(grant.support, grant.key, grant.guide));
    expect(await set(`benefit_id=${benefit.support}`)).toEqual([grant.support]);
    expect(await set(`order_id=${bobPro.id}`)).toEqual([]);
    expect(await set(`subscription_id=${bobPro.subscriptionId}`)).toEqual([]);
    expect(await set(`checkout_id=${bobPro.checkoutId}`)).toEqual([]);
    const bobs = await api(t.url, `/v1/customer-portal/benefit-grants/?order_id=${bobPro.id}`, {
      token: (await polar.customerSessions.create({ customerId: bobPro.customerId })).token,
    });
    expect(bobs.body.items.map((g: { id: string }) => g.id).sort()).toEqual(sorted(...bobGrantIds));
  });

  it("a bad filter value is a 422 on its key", async () => {
    for (const [query, key] of [
      ["type=feature", "type"],
      ["benefit_id=nope", "benefit_id"],
      [`checkout_id=${benefit.key}&checkout_id=x`, "checkout_id"],
      ["order_id=1", "order_id"],
      ["subscription_id=", "subscription_id"],
      ["member_id=abc", "member_id"],
    ]) {
      const res = await api(t.url, `/v1/customer-portal/benefit-grants/?${query}`, {
        token: adaSession,
      });
      expect(res.status, query).toBe(422);
      expect(res.body.error).toBe("RequestValidationError");
      expect(res.body.detail[0].loc.slice(0, 2), query).toEqual(["query", key]);
    }
  });
});

describe("GET /v1/customer-portal/benefit-grants/ sorting", () => {
  it("defaults to product_benefit, then the latest granted first, one page at a time", async () => {
    // Support and the Guide's benefit come first on their products; the Guide's was granted later.
    const all = [grant.guide, grant.support, grant.key];
    expect(await ids("")).toEqual(all);
    expect(await ids("sorting=product_benefit&sorting=-granted_at")).toEqual(all);
    for (const [i, id] of all.entries()) {
      const page = await list(`limit=1&page=${i + 1}`);
      expect(page.items.map((g) => g.id)).toEqual([id]);
      expect(page.pagination).toEqual({ total_count: 3, max_page: 3 });
    }
    expect(await ids("sorting=-product_benefit&sorting=granted_at")).toEqual([
      grant.key,
      grant.support,
      grant.guide,
    ]);
  });

  it("sorts by granted_at and type both ways; organization ties and the id decides", async () => {
    expect((await ids("sorting=granted_at")).at(-1)).toBe(grant.guide);
    expect((await ids("sorting=-granted_at"))[0]).toBe(grant.guide);
    const customs = sorted(grant.support, grant.guide);
    expect(await ids("sorting=type")).toEqual([...customs, grant.key]);
    expect(await ids("sorting=-type")).toEqual([grant.key, ...customs]);
    const byId = sorted(grant.support, grant.key, grant.guide);
    expect(await ids("sorting=organization")).toEqual(byId);
    expect(await ids("sorting=-organization")).toEqual(byId);
  });

  it("takes Polar's client's filters and sorting as it sends them", async () => {
    const page = await polar.customerPortal.benefitGrants.list(
      { customerSession: adaSession },
      {
        typeFilter: ["custom"],
        sorting: ["-granted_at"],
        benefitId: [benefit.support, benefit.key, benefit.guide],
      },
    );
    expect(page.result.items.map((g) => g.id)).toEqual([grant.guide, grant.support]);
  });

  it("an unknown or a seller-side sort key is a 422 on sorting", async () => {
    for (const sorting of ["created_at", "-revoked_at", "product", "-"]) {
      const res = await api(t.url, `/v1/customer-portal/benefit-grants/?sorting=${sorting}`, {
        token: adaSession,
      });
      expect(res.status, sorting).toBe(422);
      expect(res.body.detail[0].loc.slice(0, 2)).toEqual(["query", "sorting"]);
    }
  });
});

describe("GET /v1/customer-portal/benefit-grants/ reads only unrevoked grants of public benefits", () => {
  const getOne = (token: string, id: string) =>
    api(t.url, `/v1/customer-portal/benefit-grants/${id}`, { token });
  const notFound = { error: "ResourceNotFound", detail: "Benefit grant not found." };

  it("a grant of a benefit made private or draft is gone and a 404; public again, it is back", async () => {
    const visibility = async (value: string) => {
      const res = await api(t.url, `/v1/benefits/${benefit.guide}`, {
        method: "PATCH",
        token: sellerToken,
        body: { type: "custom", visibility: value },
      });
      expect(res.status, value).toBe(200);
    };
    expect((await getOne(adaSession, grant.guide)).status).toBe(200);
    for (const value of ["private", "draft"]) {
      await visibility(value);
      expect(await set("limit=100"), value).toEqual(sorted(grant.support, grant.key));
      expect(await set(`benefit_id=${benefit.guide}`), value).toEqual([]);
      expect((await list("")).pagination.total_count, value).toBe(2);
      const res = await getOne(adaSession, grant.guide);
      expect(res.status, value).toBe(404);
      expect(res.body, value).toEqual(notFound);
    }
    await visibility("public");
    expect(await set("limit=100")).toEqual(sorted(grant.support, grant.key, grant.guide));
    expect((await getOne(adaSession, grant.guide)).status).toBe(200);
  });

  it("a revoked grant is gone from the list and a 404, filtered by its own ids too", async () => {
    const bobSession = (await polar.customerSessions.create({ customerId: bobPro.customerId }))
      .token;
    const bobs = async (query: string) =>
      (
        await api(t.url, `/v1/customer-portal/benefit-grants/?${query}`, { token: bobSession })
      ).body.items.map((g: { id: string }) => g.id);
    expect((await bobs("")).sort()).toEqual(sorted(...bobGrantIds));
    expect((await getOne(bobSession, bobGrantIds[0]!)).status).toBe(200);
    await polar.subscriptions.revoke({ id: bobPro.subscriptionId! });
    await eventually(
      async () =>
        (
          await polar.benefitGrants.list({ organizationId, customerId: bobPro.customerId })
        ).result.items.every((g) => g.isRevoked),
      20_000,
      "Bob's grants revoked",
    );
    expect(await bobs("")).toEqual([]);
    expect(await bobs(`subscription_id=${bobPro.subscriptionId}`)).toEqual([]);
    for (const id of bobGrantIds) {
      const res = await getOne(bobSession, id);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(notFound);
    }
    // Ada's grants of the same product are hers still.
    expect(await set("limit=100")).toEqual(sorted(grant.support, grant.key, grant.guide));
  });
});
