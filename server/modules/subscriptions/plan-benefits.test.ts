// A plan change switches the subscription's benefits, as Polar's enqueue_benefits_grants: the
// grants of benefits the new product lacks are revoked, the new product's granted, and a benefit
// both have keeps its one grant. invoice/prorate switch at once (a declined invoice charge switches
// nothing), next_period at the renewal; the portal's change does it too, and a change back re-uses
// the first grant.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "../../../test/helpers/auth.ts";
import {
  advance,
  billingSeller,
  enableResetProration,
  monthlyProduct,
  subscribe,
  type BillingSeller,
} from "../../../test/helpers/billing.ts";
import { insertMeter } from "../../../test/helpers/catalog.ts";
import { eventually } from "../../../test/helpers/grants.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

let t: TestServer;
let s: BillingSeller;

beforeAll(async () => {
  t = await startTestServer();
  s = await billingSeller(t);
});
afterAll(() => t?.stop());

interface Grant {
  id: string;
  benefit_id: string;
  is_granted: boolean;
  is_revoked: boolean;
}

const patch = (id: string, body: unknown) =>
  s.call(`/v1/subscriptions/${id}`, { method: "PATCH", body });

async function grantsOf(customerId: string): Promise<Grant[]> {
  const res = await s.call(`/v1/benefit-grants/?customer_id=${customerId}&limit=100`);
  return res.body.items;
}

/** The benefits granted to the customer, sorted, once no grant job is left to run. */
async function settledGrants(customerId: string, expected: string[]) {
  const want = [...expected].sort();
  return eventually(
    async () => {
      const grants = await grantsOf(customerId);
      const granted = grants.filter((g) => g.is_granted).map((g) => g.benefit_id);
      return JSON.stringify(granted.sort()) === JSON.stringify(want) && grants;
    },
    20_000,
    `grants of ${want.join(", ")}`,
  );
}

async function custom(description: string) {
  return (await s.polar.benefits.create({ type: "custom", description, properties: {} })).id;
}

/** A monthly product with the benefits. */
async function plan(name: string, amount: number, benefits: string[]) {
  const product = await monthlyProduct(s, name, amount);
  await s.polar.products.updateBenefits({
    id: product.id,
    productBenefitsUpdate: { benefits },
  });
  return product.id;
}

/** Shared, a Basic-only benefit and a Pro-only benefit, and the two plans. */
async function plans(tag: string) {
  const shared = await custom(`${tag} community`);
  const basicOnly = await custom(`${tag} basic support`);
  const proOnly = await custom(`${tag} priority support`);
  return {
    shared,
    basicOnly,
    proOnly,
    basic: await plan(`${tag} Basic`, 1000, [shared, basicOnly]),
    pro: await plan(`${tag} Pro`, 3000, [shared, proOnly]),
  };
}

describe("a plan change switches the benefit grants", () => {
  it("invoice switches at once; the shared benefit keeps its grant; a change back re-uses the grant", async () => {
    const meterId = await insertMeter(t, s.organizationId, "Plan change calls");
    const credit = (units: number) =>
      s.polar.benefits
        .create({
          type: "meter_credit",
          description: `${units} calls`,
          properties: { units, rollover: false, meterId },
        })
        .then((b) => b.id);
    const shared = await custom("Invoice community");
    const [small, large] = [await credit(100), await credit(500)];
    const basic = await plan("Invoice Basic", 1000, [shared, small]);
    const pro = await plan("Invoice Pro", 3000, [shared, large]);
    const { subscriptionId, customerId } = await subscribe(s, basic);
    const before = await settledGrants(customerId, [shared, small]);
    const sharedGrant = before.find((g) => g.benefit_id === shared)!.id;

    const up = await patch(subscriptionId, { product_id: pro, proration_behavior: "invoice" });
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    let grants = await settledGrants(customerId, [shared, large]);
    expect(grants.filter((g) => g.benefit_id === shared)).toMatchObject([
      { id: sharedGrant, is_granted: true, is_revoked: false },
    ]);
    expect(grants.find((g) => g.benefit_id === small)).toMatchObject({ is_revoked: true });
    // The new product's credit for the period, the old one's taken back.
    const meters = async () =>
      (await s.polar.customers.getState({ id: customerId })).activeMeters.map(
        (m) => m.creditedUnits,
      );
    expect(await meters()).toEqual([500]);

    const back = await patch(subscriptionId, { product_id: basic, proration_behavior: "invoice" });
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    grants = await settledGrants(customerId, [shared, small]);
    // One grant per benefit and subscription: the first one is granted again.
    expect(grants.filter((g) => g.benefit_id === small)).toHaveLength(1);
    expect(grants.filter((g) => g.benefit_id === shared)).toMatchObject([{ id: sharedGrant }]);
    expect(grants.find((g) => g.benefit_id === large)).toMatchObject({ is_revoked: true });
    expect(await meters()).toEqual([100]);
  });

  it("a change undone at once leaves the first plan's credit once, not twice", async () => {
    const meterId = await insertMeter(t, s.organizationId, "Undone calls");
    const credit = await s.polar.benefits.create({
      type: "meter_credit",
      description: "Undone 100 calls",
      properties: { units: 100, rollover: false, meterId },
    });
    const other = await custom("Undone other");
    const basic = await plan("Undone Basic", 1000, [credit.id]);
    const pro = await plan("Undone Pro", 3000, [other]);
    const { subscriptionId, customerId } = await subscribe(s, basic);
    await settledGrants(customerId, [credit.id]);
    for (const product of [pro, basic]) {
      const res = await patch(subscriptionId, {
        product_id: product,
        proration_behavior: "invoice",
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    await settledGrants(customerId, [credit.id]);
    await new Promise((r) => setTimeout(r, 1000));
    const state = await s.polar.customers.getState({ id: customerId });
    expect(state.activeMeters.map((m) => m.creditedUnits)).toEqual([100]);
  });

  it("a declined invoice charge switches nothing", async () => {
    const p = await plans("Declined");
    const { subscriptionId, customerId } = await subscribe(
      s,
      p.basic,
      "sandbox_token_renewal_declined",
    );
    await settledGrants(customerId, [p.shared, p.basicOnly]);
    const res = await patch(subscriptionId, { product_id: p.pro, proration_behavior: "invoice" });
    expect(res.status).toBe(402);
    const grants = await grantsOf(customerId);
    expect(grants.map((g) => g.benefit_id).sort()).toEqual([p.shared, p.basicOnly].sort());
    expect(grants.every((g) => g.is_granted)).toBe(true);
  });

  it("next_period switches at the renewal, not before", async () => {
    const p = await plans("Scheduled");
    const { subscriptionId, customerId } = await subscribe(s, p.basic);
    await settledGrants(customerId, [p.shared, p.basicOnly]);
    const res = await patch(subscriptionId, {
      product_id: p.pro,
      proration_behavior: "next_period",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // Any job the change queued has had its time.
    await new Promise((r) => setTimeout(r, 1500));
    const waiting = await grantsOf(customerId);
    expect(waiting.map((g) => g.benefit_id).sort()).toEqual([p.shared, p.basicOnly].sort());
    expect(waiting.every((g) => g.is_granted)).toBe(true);

    await advance(s, { to: res.body.current_period_end });
    const grants = await settledGrants(customerId, [p.shared, p.proOnly]);
    expect(grants.filter((g) => g.benefit_id === p.shared)).toHaveLength(1);
    expect(grants.find((g) => g.benefit_id === p.basicOnly)).toMatchObject({ is_revoked: true });
  });

  it("prorate and reset switch at once", async () => {
    await enableResetProration(t.url, s);
    for (const behavior of ["prorate", "reset"]) {
      const p = await plans(`Now ${behavior}`);
      const { subscriptionId, customerId } = await subscribe(s, p.basic);
      await settledGrants(customerId, [p.shared, p.basicOnly]);
      const res = await patch(subscriptionId, { product_id: p.pro, proration_behavior: behavior });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      await settledGrants(customerId, [p.shared, p.proOnly]);
    }
  });

  it("the customer portal's plan change switches them too", async () => {
    const p = await plans("Portal");
    const { subscriptionId, customerId } = await subscribe(s, p.basic);
    await settledGrants(customerId, [p.shared, p.basicOnly]);
    const session = await s.call("/v1/customer-sessions/", { body: { customer_id: customerId } });
    const res = await api(t.url, `/v1/customer-portal/subscriptions/${subscriptionId}`, {
      token: session.body.token,
      method: "PATCH",
      body: { product_id: p.pro },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await settledGrants(customerId, [p.shared, p.proOnly]);
  });
});
