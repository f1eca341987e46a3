// Refunds through Polar's client: partial refunds adding up to the order (tax in proportion), a third
// refused with RefundedAlready; racing refunds never passing the total; revoke_benefits on one-time
// orders (refused for subscriptions); a sandbox refund failure; bad input changing nothing.
import { Polar } from "@polar-sh/sdk";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { buy, eventually } from "../../../test/helpers/grants.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { REFUND_FAILS_TOKEN } from "../payments/sandbox.ts";

const SCOPES = [
  "products:write",
  "benefits:write",
  "checkouts:write",
  "subscriptions:write",
  "customers:read",
  "orders:read",
  "refunds:write",
];
let t: TestServer;
let polar: Polar;
let token: string;
let organizationId: string;

beforeAll(async () => {
  t = await startTestServer({ env: { TAX_RATES: "DE:1900" } });
  const seller = await createSeller(t.url, SCOPES);
  organizationId = seller.organization.id;
  token = seller.token;
  polar = new Polar({ accessToken: token, serverURL: t.url });
});
afterAll(() => t.stop());

async function oneTime(name: string, amount = 1000) {
  return polar.products.create({
    name,
    prices: [{ amountType: "fixed", priceAmount: amount, priceCurrency: "usd" }],
  });
}

async function eventTypes(since: number) {
  const rows = await t.server.database.rows<{ type: string }>(
    sql`select type from webhook_events where organization_id = ${organizationId} and seq > ${since} order by seq`,
  );
  return rows.map((r) => r.type);
}

async function lastSeq() {
  const [row] = await t.server.database.rows<{ n: number | null }>(
    sql`select max(seq)::int as n from webhook_events`,
  );
  return row?.n ?? 0;
}

async function refundCount(orderId: string) {
  const [row] = await t.server.database.rows<{ n: number }>(
    sql`select count(*)::int as n from refunds where order_id = ${orderId}`,
  );
  return Number(row!.n);
}

describe("refunds", () => {
  it("two partial refunds add up to the order with tax in proportion; a third is RefundedAlready", async () => {
    const order = await buy(
      polar,
      organizationId,
      (await oneTime("Taxed")).id,
      "taxed@example.com",
      { country: "DE" },
    );
    expect(order).toMatchObject({ netAmount: 1000, taxAmount: 190, totalAmount: 1190 });

    const before = await lastSeq();
    const first = await polar.refunds.create({
      orderId: order.id,
      reason: "customer_request",
      amount: 400,
      comment: "asked nicely",
      metadata: { ticket: "T-1" },
    });
    expect(first).toMatchObject({
      status: "succeeded",
      amount: 400,
      taxAmount: 76,
      currency: "usd",
      orderId: order.id,
      customerId: order.customerId,
      revokeBenefits: false,
      metadata: { ticket: "T-1" },
    });
    let o = await polar.orders.get({ id: order.id });
    expect(o).toMatchObject({
      status: "partially_refunded",
      refundedAmount: 400,
      refundedTaxAmount: 76,
    });
    expect((await api(t.url, `/v1/orders/${order.id}`, { token })).body).toMatchObject({
      refundable_amount: 600,
      refundable_tax_amount: 114,
    });
    expect(await eventTypes(before)).toEqual([
      "refund.created",
      "refund.updated",
      "order.refunded",
      "order.updated",
    ]);

    const second = await polar.refunds.create({ orderId: order.id, reason: "other", amount: 600 });
    expect(second).toMatchObject({ status: "succeeded", amount: 600, taxAmount: 114 });
    o = await polar.orders.get({ id: order.id });
    expect(o).toMatchObject({ status: "refunded", refundedAmount: 1000, refundedTaxAmount: 190 });
    expect((await api(t.url, `/v1/orders/${order.id}`, { token })).body).toMatchObject({
      refundable_amount: 0,
      refundable_tax_amount: 0,
    });

    const third = await api(t.url, "/v1/refunds/", {
      method: "POST",
      token,
      body: { order_id: order.id, reason: "other", amount: 1 },
    });
    expect(third.status).toBe(403);
    expect(third.body).toMatchObject({ error: "RefundedAlready" });
    expect(await refundCount(order.id)).toBe(2);

    const listed = await polar.refunds.list({ orderId: order.id });
    expect(listed.result.items.map((r) => r.amount).sort()).toEqual([400, 600]);
    expect(listed.result.pagination.totalCount).toBe(2);
  });

  it("racing refunds never refund more than was paid", async () => {
    const order = await buy(
      polar,
      organizationId,
      (await oneTime("Raced")).id,
      "raced@example.com",
    );
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        api(t.url, "/v1/refunds/", {
          method: "POST",
          token,
          body: { order_id: order.id, reason: "duplicate", amount: 300 },
        }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201).length).toBe(3);
    expect(statuses.filter((s) => s !== 201).every((s) => s === 422 || s === 403)).toBe(true);
    const o = await polar.orders.get({ id: order.id });
    expect(o.refundedAmount).toBe(900);
    const [sum] = await t.server.database.rows<{ n: number }>(
      sql`select coalesce(sum(amount), 0)::int as n from refunds where order_id = ${order.id} and status = 'succeeded'`,
    );
    expect(sum!.n).toBe(900);
    const last = await api(t.url, "/v1/refunds/", {
      method: "POST",
      token,
      body: { order_id: order.id, reason: "other", amount: 101 },
    });
    expect(last.status).toBe(422);
    // What is left is said as money, in the order's currency, not in minor units.
    expect((last.body as { detail: unknown[] }).detail).toEqual([
      {
        loc: ["body", "amount"],
        msg: "The amount exceeds what is left to refund on this order ($1.00).",
        type: "less_than_equal",
      },
    ]);
    expect(
      (
        await api(t.url, "/v1/refunds/", {
          method: "POST",
          token,
          body: { order_id: order.id, reason: "other", amount: 100 },
        })
      ).status,
    ).toBe(201);
  });

  it("revoke_benefits revokes a one-time order's grants and is refused for a subscription order", async () => {
    const benefit = await polar.benefits.create({
      type: "custom",
      description: "Support",
      properties: { note: "Write to support@acme.test" },
    });
    const product = await oneTime("With support");
    await polar.products.updateBenefits({
      id: product.id,
      productBenefitsUpdate: { benefits: [benefit.id] },
    });
    const order = await buy(polar, organizationId, product.id, "support@example.com");
    await eventually(
      async () =>
        (
          await polar.benefitGrants.list({ organizationId, customerId: order.customerId })
        ).result.items.find((g) => g.isGranted),
      15_000,
      "grant",
    );
    await polar.refunds.create({
      orderId: order.id,
      reason: "satisfaction_guarantee",
      amount: 100,
      revokeBenefits: true,
    });
    const revoked = await eventually(
      async () =>
        (
          await polar.benefitGrants.list({ organizationId, customerId: order.customerId })
        ).result.items.find((g) => g.isRevoked),
      15_000,
      "revoked grant",
    );
    expect(revoked.benefitId).toBe(benefit.id);

    const sub = await polar.products.create({
      name: "Monthly",
      recurringInterval: "month",
      prices: [{ amountType: "fixed", priceAmount: 500, priceCurrency: "usd" }],
    });
    const subOrder = await buy(polar, organizationId, sub.id, "monthly@example.com");
    const refused = await api(t.url, "/v1/refunds/", {
      method: "POST",
      token,
      body: { order_id: subOrder.id, reason: "other", amount: 100, revoke_benefits: true },
    });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({
      error: "RequestValidationError",
      detail: [{ loc: ["body", "revoke_benefits"] }],
    });
    expect(await refundCount(subOrder.id)).toBe(0);
    // Without revoke_benefits a subscription order refunds like any other.
    expect(
      (await polar.refunds.create({ orderId: subOrder.id, reason: "other", amount: 100 }))
        .subscriptionId,
    ).toBe(subOrder.subscriptionId);
  });

  it("a refund the processor refuses is failed, and the order is unchanged", async () => {
    const order = await buy(
      polar,
      organizationId,
      (await oneTime("Unrefundable")).id,
      "refusal@example.com",
      { token: REFUND_FAILS_TOKEN },
    );
    const before = await lastSeq();
    const refund = await polar.refunds.create({
      orderId: order.id,
      reason: "fraudulent",
      amount: 500,
    });
    expect(refund.status).toBe("failed");
    expect(await eventTypes(before)).toEqual(["refund.created", "refund.updated"]);
    const o = await polar.orders.get({ id: order.id });
    expect(o).toMatchObject({ status: "paid", refundedAmount: 0 });
    // The failed refund reserved nothing: the full amount can still be refunded (here it fails again).
    expect(
      (
        await api(t.url, "/v1/refunds/", {
          method: "POST",
          token,
          body: { order_id: order.id, reason: "other", amount: 1000 },
        })
      ).status,
    ).toBe(201);
  });

  it("bad input is a 422 at its field and writes nothing", async () => {
    const order = await buy(
      polar,
      organizationId,
      (await oneTime("Validated")).id,
      "validated@example.com",
    );
    const cases: [Record<string, unknown>, (string | number)[]][] = [
      [{ order_id: order.id, reason: "because", amount: 100 }, ["body", "reason"]],
      [{ order_id: order.id, reason: "other", amount: 0 }, ["body", "amount"]],
      [{ order_id: order.id, reason: "other", amount: 1.5 }, ["body", "amount"]],
      [{ order_id: order.id, reason: "other", amount: 1001 }, ["body", "amount"]],
      [
        { order_id: "00000000-0000-4000-8000-000000000000", reason: "other", amount: 100 },
        ["body", "order_id"],
      ],
      [{ reason: "other", amount: 100 }, ["body", "order_id"]],
    ];
    for (const [body, loc] of cases) {
      const res = await api(t.url, "/v1/refunds/", { method: "POST", token, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect((res.body as { detail: { loc: unknown[] }[] }).detail[0]!.loc).toEqual(loc);
    }
    expect(await refundCount(order.id)).toBe(0);
    expect((await polar.orders.get({ id: order.id })).refundedAmount).toBe(0);
    // Another organization's order is not found either.
    const other = await createSeller(t.url, ["refunds:write"]);
    const res = await api(t.url, "/v1/refunds/", {
      method: "POST",
      token: other.token,
      body: { order_id: order.id, reason: "other", amount: 100 },
    });
    expect(res.status).toBe(422);
    expect(await refundCount(order.id)).toBe(0);
  });
});
