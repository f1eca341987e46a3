// Tenancy by type at run time: a grant read under one organization's scope never returns another
// organization's grant, by id, locked, in a list or as a customer's or subscription's grants, nor
// its customer meters or download counts, whatever customer (or external id) the filter names.
import { randomUUID } from "node:crypto";
import { Polar } from "@polar-sh/sdk";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inTransaction } from "../../../db/client.ts";
import { createSeller } from "../../../test/helpers/auth.ts";
import { buy } from "../../../test/helpers/grants.ts";
import { polarClient } from "../../../test/helpers/polar.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { scopeOfSeller } from "../../../test/helpers/org-scope.ts";
import { customerStateGrants, customerStateGrantsOf } from "./queries.ts";
import { type GrantFilter, listGrants } from "./list-repository.ts";
import * as meterRepo from "./meter-repository.ts";
import * as repo from "./repository.ts";

let t: TestServer;
let a: Awaited<ReturnType<typeof createSeller>>;
let b: Awaited<ReturnType<typeof createSeller>>;
let grantId: string;
let customerId: string;
let benefitId: string;
let meterId: string;
let bought: { customerId: string; subscriptionId: string; productId: string };
const externalId = "usr_grant_scoped";
const fileId = randomUUID();
beforeAll(async () => {
  t = await startTestServer();
  const scopes = ["customers:write", "benefits:write", "products:write", "checkouts:write"];
  a = await createSeller(t.url, [...scopes, "orders:read", "meters:write"]);
  b = await createSeller(t.url, scopes);
  const db = t.server.database.db;
  const polar = polarClient(t, a.token);
  customerId = (await polar.customers.create({ email: "g@example.com", externalId })).id;
  const benefit = await polar.benefits.create({
    type: "custom",
    description: "Scoped grant",
    properties: {},
  });
  benefitId = benefit.id;
  const grant = await repo.insertGrant(db, {
    organizationId: a.organization.id,
    customerId,
    benefitId,
    scopeId: randomUUID(),
    grantedAt: new Date(),
  });
  grantId = grant.id;
  await repo.recordDownload(db, {
    organizationId: a.organization.id,
    customerId,
    benefitId,
    grantId,
    fileId,
  });
  meterId = (
    await polar.meters.create({
      name: "Scoped tokens",
      filter: { conjunction: "and", clauses: [] },
      aggregation: { func: "count" },
    })
  ).id;
  await meterRepo.creditUnits(db, {
    organizationId: a.organization.id,
    customerId,
    meterId,
    units: 10,
    rollover: false,
    now: new Date(),
  });
  const sdk = new Polar({ accessToken: a.token, serverURL: t.url });
  const monthly = await sdk.products.create({
    name: "A's monthly",
    recurringInterval: "month",
    prices: [{ amountType: "fixed", priceAmount: 900, priceCurrency: "usd" }],
  });
  await sdk.products.updateBenefits({
    id: monthly.id,
    productBenefitsUpdate: { benefits: [benefitId] },
  });
  const order = await buy(sdk, a.organization.id, monthly.id, "subscriber@example.com");
  bought = {
    customerId: order.customerId,
    subscriptionId: order.subscriptionId!,
    productId: monthly.id,
  };
  // Stands for the worker having granted it, so the reads of grants in force see it.
  await t.server.database.rows(
    sql`update benefit_grants set granted_at = now() where subscription_id = ${bought.subscriptionId}`,
  );
});
afterAll(() => t?.stop());

describe("OrgScope on grants reads", () => {
  it("returns A's grant under A's scope only, by id and in lists", async () => {
    const db = t.server.database.db;
    const scopeA = scopeOfSeller(a);
    const scopeB = scopeOfSeller(b);

    expect((await repo.findGrant(db, scopeA, grantId))?.id).toBe(grantId);
    expect(await repo.findGrant(db, scopeB, grantId)).toBeNull();
    const list = (f: GrantFilter) => listGrants(db, f, [], 10, 0);
    const byCustomer = { customerIds: [customerId] };
    expect((await list({ scope: scopeA, ...byCustomer })).total).toBe(1);
    expect(await list({ scope: scopeB, ...byCustomer })).toEqual({
      rows: [],
      total: 0,
    });
    const byExternal = { externalCustomerIds: [externalId] };
    const listA = await list({ scope: scopeA, ...byExternal });
    expect(listA.rows.map((r) => r.id)).toEqual([grantId]);
    const listB = await list({ scope: scopeB, ...byExternal });
    expect(listB).toEqual({ rows: [], total: 0 });
  });

  it("locks, and finds by purchase, A's grant under A's scope only", async () => {
    const db = t.server.database.db;
    const [grant] = await repo.grantedOfSubscription(db, scopeOfSeller(a), bought.subscriptionId);
    expect(grant?.benefitId).toBe(benefitId);
    await inTransaction(db, async (tx) => {
      expect((await repo.lockGrant(tx, scopeOfSeller(a), grantId))?.id).toBe(grantId);
      expect(await repo.lockGrant(tx, scopeOfSeller(b), grantId)).toBeNull();
      const args = [bought.customerId, benefitId, bought.subscriptionId] as const;
      expect((await repo.findByScope(tx, scopeOfSeller(a), ...args))?.id).toBe(grant!.id);
      expect(await repo.findByScope(tx, scopeOfSeller(b), ...args)).toBeNull();
    });
    const ofProduct = await repo.benefitsOfProduct(db, scopeOfSeller(a), bought.productId);
    expect(ofProduct.map((r) => r.id)).toEqual([benefitId]);
    expect(await repo.benefitsOfProduct(db, scopeOfSeller(b), bought.productId)).toEqual([]);
  });

  it("reads a customer's and a subscription's grants in force under A's scope only", async () => {
    const db = t.server.database.db;
    const scopeA = scopeOfSeller(a);
    const scopeB = scopeOfSeller(b);
    const ids = (rows: { id: string }[]) => rows.map((r) => r.id);

    expect(ids(await repo.grantedOfCustomer(db, scopeA, customerId))).toEqual([grantId]);
    expect(await repo.grantedOfCustomer(db, scopeB, customerId)).toEqual([]);
    expect(ids(await repo.grantedOfCustomers(db, scopeA, [customerId]))).toEqual([grantId]);
    expect(await repo.grantedOfCustomers(db, scopeB, [customerId])).toEqual([]);
    const sub = bought.subscriptionId;
    expect((await repo.grantedOfSubscription(db, scopeA, sub)).length).toBe(1);
    expect(await repo.grantedOfSubscription(db, scopeB, sub)).toEqual([]);
    expect((await repo.grantedOfSubscriptions(db, scopeA, [sub])).length).toBe(1);
    expect(await repo.grantedOfSubscriptions(db, scopeB, [sub])).toEqual([]);

    const stateA = await customerStateGrants(db, scopeA, customerId);
    expect(stateA.granted_benefits.map((g) => g.benefit_id)).toEqual([benefitId]);
    expect(stateA.active_meters.map((m) => m.meter_id)).toEqual([meterId]);
    expect(await customerStateGrants(db, scopeB, customerId)).toEqual({
      granted_benefits: [],
      active_meters: [],
    });
    const manyB = await customerStateGrantsOf(db, scopeB, [customerId]);
    expect(manyB.get(customerId)).toEqual({ granted_benefits: [], active_meters: [] });
  });

  it("reads A's customer meters and download counts under A's scope only", async () => {
    const db = t.server.database.db;
    const scopeA = scopeOfSeller(a);
    const scopeB = scopeOfSeller(b);

    expect((await meterRepo.creditRowOf(db, scopeA, customerId, meterId))?.creditedUnits).toBe(10);
    expect(await meterRepo.creditRowOf(db, scopeB, customerId, meterId)).toBeNull();
    expect([...(await meterRepo.customersWithMeters(db, scopeA, [customerId]))]).toEqual([
      customerId,
    ]);
    expect((await meterRepo.customersWithMeters(db, scopeB, [customerId])).size).toBe(0);
    expect((await meterRepo.customerMetersOf(db, scopeA, customerId)).length).toBe(1);
    expect(await meterRepo.customerMetersOf(db, scopeB, customerId)).toEqual([]);

    const statsA = await repo.downloadStats(db, scopeA, benefitId);
    expect(statsA.get(fileId)).toEqual({ downloads: 1, downloaders: 1 });
    expect((await repo.downloadStats(db, scopeB, benefitId)).size).toBe(0);
  });

  it("marks for revoke the scope's grants only (rolled back)", async () => {
    const db = t.server.database.db;
    const rollback = new Error("rollback");
    await expect(
      inTransaction(db, async (tx) => {
        const now = new Date();
        expect(
          await repo.markForRevoke(tx, scopeOfSeller(b), repo.byBenefit(benefitId), now),
        ).toEqual([]);
        const marked = await repo.markForRevoke(
          tx,
          scopeOfSeller(a),
          repo.byBenefit(benefitId),
          now,
        );
        expect(marked.map((g) => g.id)).toContain(grantId);
        throw rollback;
      }),
    ).rejects.toBe(rollback);
    expect((await repo.findGrant(db, scopeOfSeller(a), grantId))?.pendingAction).toBeNull();
  });
});
