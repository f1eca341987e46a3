// Refunds Stripe takes but holds as pending (its test card 4000 0000 0000 7726, as a balance too low
// or a slow card network do): till answers `pending`, keeps the amount reserved and leaves the order
// and its grants as they are; Stripe's refund.updated / charge.refund.updated later say how it
// ended. Succeeded: the order's refunded amounts and status move, with refund.updated,
// order.refunded and order.updated, once however many copies arrive and however they race. Failed:
// only refund.updated, and the reservation is freed. The reconciler asks Stripe about it without
// taking pending for an answer.
import type { Polar } from "@polar-sh/sdk";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { US_ADDRESS_SDK } from "../../../test/helpers/addresses.ts";
import {
  startStripeTill,
  type StripeTill,
  WEBHOOK_SECRET,
} from "../../../test/helpers/stripe-till.ts";
import { TestClock } from "../../lib/clock.ts";
import { createProcessor } from "../payments/factory.ts";
import { reconcileRefunds } from "./reconcile.ts";

const clock = new TestClock();
let s: StripeTill;
let polar: Polar;

beforeAll(async () => {
  s = await startStripeTill({ clock });
  ({ polar } = s);
});
afterAll(() => s?.stop());

const PENDING_REFUND_CARD = "pm_card_pendingRefund";

/** Till's webhook events of a type naming a resource, oldest first. */
async function eventsOf(id: string, type: string) {
  const rows = await s.t.server.database.rows<{ payload: { data: Record<string, unknown> } }>(
    sql`select payload from webhook_events where type = ${type} and payload::text like ${`%${id}%`} order by created_at, id`,
  );
  return rows.map((r) => r.payload.data);
}

const stripeRefundOf = (tillRefundId: string) =>
  [...s.stripe.state.refunds.values()].find(
    (r) => (r.metadata as Record<string, string>).till_refund_id === tillRefundId,
  )!;

/** Stripe's events of `types` from event number `from` on. */
const since = (from: number, ...types: string[]) =>
  s.stripe.state.events.slice(from).filter((e) => types.includes(e.type));

function holding<T>(run: () => Promise<T>): Promise<T> {
  s.stripe.deliverTo(null);
  return run().finally(() => s.stripe.deliverTo({ url: s.webhookUrl, secret: WEBHOOK_SECRET }));
}

const refundOf = async (orderId: string, id: string) =>
  (await polar.refunds.list({ orderId })).result.items.find((r) => r.id === id);

/** An order of a one-time product with a custom benefit, paid with `card`; and its grants. */
async function orderWithGrant(card: string) {
  const benefit = await polar.benefits.create({
    type: "custom",
    description: "Support",
    properties: { note: "Write to support@acme.test" },
  });
  const product = await polar.products.create({
    name: "Once, with support",
    prices: [{ amountType: "fixed", priceAmount: 1500, priceCurrency: "usd" }],
  });
  await polar.products.updateBenefits({
    id: product.id,
    productBenefitsUpdate: { benefits: [benefit.id] },
  });
  const c = await polar.checkouts.create({
    products: [product.id],
    customerEmail: "grants@example.com",
    customerBillingAddress: US_ADDRESS_SDK,
  });
  await s.confirm(c.clientSecret, await s.token(card));
  await s.stripe.idle();
  const [order] = await s.orders(c.id);
  return order!;
}

const grantsOf = (orderId: string) =>
  s.t.server.database.rows<{ pending_action: string | null; revoked_at: Date | null }>(
    sql`select pending_action, revoked_at from benefit_grants where order_id = ${orderId}`,
  );

describe("a refund Stripe holds as pending", () => {
  it("is pending, reserved, and leaves the order alone until Stripe says it succeeded", async () => {
    const order = await s.paidOrder(PENDING_REFUND_CARD);
    const refund = await polar.refunds.create({ orderId: order.id, reason: "other", amount: 300 });
    expect(refund.status).toBe("pending");
    await s.stripe.idle();
    // Stripe's own refund.created and charge.refunded came and went: still pending.
    expect((await refundOf(order.id, refund.id))?.status).toBe("pending");
    const o = await polar.orders.get({ id: order.id });
    expect(o).toMatchObject({ status: "paid", refundedAmount: 0, refundedTaxAmount: 0 });
    expect(await eventsOf(order.id, "order.refunded")).toHaveLength(0);
    expect(await eventsOf(refund.id, "refund.created")).toMatchObject([{ status: "pending" }]);
    expect(await eventsOf(refund.id, "refund.updated")).toHaveLength(0);
    // The pending amount is reserved: the whole order is no longer there to refund.
    await expect(
      polar.refunds.create({ orderId: order.id, reason: "other", amount: o.netAmount }),
    ).rejects.toMatchObject({ statusCode: 422 });

    await holding(async () => {
      const from = s.stripe.state.events.length;
      s.stripe.refunds.succeed(stripeRefundOf(refund.id).id);
      const updates = since(from, "charge.refund.updated", "refund.updated");
      expect(updates).toHaveLength(2);
      // Both kinds at once, then every copy again at once under new ids (redeliveries).
      const statuses = await Promise.all([
        ...updates.map((e) => s.stripe.deliver(e)),
        ...updates.map((e) => s.stripe.deliver({ ...e, id: `${e.id}_2` })),
        ...updates.map((e) => s.stripe.deliver({ ...e, id: `${e.id}_3` })),
      ]);
      expect(statuses.every((st) => st === 200)).toBe(true);
    });

    expect((await refundOf(order.id, refund.id))?.status).toBe("succeeded");
    const after = await polar.orders.get({ id: order.id });
    expect(after.status).toBe("partially_refunded");
    expect(after.refundedAmount + after.refundedTaxAmount).toBe(300);
    expect(await eventsOf(refund.id, "refund.updated")).toMatchObject([{ status: "succeeded" }]);
    const refunded = await eventsOf(order.id, "order.refunded");
    expect(refunded).toHaveLength(1);
    expect(refunded[0]).toMatchObject({ status: "partially_refunded" });
    const atStripe = [...s.stripe.state.refunds.values()].filter(
      (r) => r.payment_intent === order.processor_payment_id,
    );
    expect(atStripe).toHaveLength(1);
  });

  it("that fails at Stripe becomes failed and frees its reservation, the order untouched", async () => {
    const order = await s.paidOrder(PENDING_REFUND_CARD);
    const refund = await polar.refunds.create({ orderId: order.id, reason: "other", amount: 300 });
    expect(refund.status).toBe("pending");
    await s.stripe.idle();
    s.stripe.refunds.fail(stripeRefundOf(refund.id).id, "insufficient_funds");
    await s.stripe.idle();
    const [row] = await s.t.server.database.rows<{ status: string; failure_reason: string }>(
      sql`select status, failure_reason from refunds where id = ${refund.id}`,
    );
    expect(row).toMatchObject({ status: "failed", failure_reason: "insufficient_funds" });
    const o = await polar.orders.get({ id: order.id });
    expect(o).toMatchObject({ status: "paid", refundedAmount: 0, refundedTaxAmount: 0 });
    expect(await eventsOf(refund.id, "refund.updated")).toMatchObject([{ status: "failed" }]);
    expect(await eventsOf(order.id, "order.refunded")).toHaveLength(0);
    const updates = await eventsOf(order.id, "order.updated");
    expect(updates.filter((d) => d.refunded_amount !== 0)).toHaveLength(0);
    // Nothing is reserved any more: the whole order can be refunded (pending again, at Stripe).
    const all = await polar.refunds.create({
      orderId: order.id,
      reason: "other",
      amount: o.netAmount,
    });
    expect(all.status).toBe("pending");
  });

  it("revokes the benefits it was asked to only once it succeeded", async () => {
    const order = await orderWithGrant(PENDING_REFUND_CARD);
    const before = await grantsOf(order.id);
    expect(before).toHaveLength(1);
    const refund = await polar.refunds.create({
      orderId: order.id,
      reason: "satisfaction_guarantee",
      amount: 100,
      revokeBenefits: true,
    });
    expect(refund.status).toBe("pending");
    await s.stripe.idle();
    expect(await grantsOf(order.id)).toEqual(before);
    s.stripe.refunds.succeed(stripeRefundOf(refund.id).id);
    await s.stripe.idle();
    expect((await refundOf(order.id, refund.id))?.status).toBe("succeeded");
    const [grant] = await grantsOf(order.id);
    expect(grant?.pending_action === "revoke" || grant?.revoked_at !== null).toBe(true);
  });

  it("stays pending through the reconciler until Stripe has it succeeded", async () => {
    const order = await s.paidOrder(PENDING_REFUND_CARD);
    const deps = {
      db: s.t.server.database.db,
      clock,
      processor: createProcessor(s.t.config.payments, s.t.server.database.db),
      queue: null,
      baseUrl: s.t.config.baseUrl,
      reconcileAfterSeconds: s.t.config.payments.reconcileAfterSeconds,
    };
    await holding(async () => {
      const refund = await polar.refunds.create({
        orderId: order.id,
        reason: "other",
        amount: 300,
      });
      expect(refund.status).toBe("pending");
      clock.advance((deps.reconcileAfterSeconds + 1) * 1000);
      expect(await reconcileRefunds(deps)).toMatchObject({ succeeded: 0, failed: 0 });
      expect((await refundOf(order.id, refund.id))?.status).toBe("pending");
      expect((await polar.orders.get({ id: order.id })).refundedAmount).toBe(0);
      // Stripe's events about it are lost: the reconciler finds it succeeded.
      s.stripe.refunds.succeed(stripeRefundOf(refund.id).id);
      expect(await reconcileRefunds(deps)).toMatchObject({ succeeded: 1 });
      expect(await reconcileRefunds(deps)).toMatchObject({ succeeded: 0 });
      expect((await refundOf(order.id, refund.id))?.status).toBe("succeeded");
    });
    const o = await polar.orders.get({ id: order.id });
    expect(o.refundedAmount + o.refundedTaxAmount).toBe(300);
    expect(await eventsOf(order.id, "order.refunded")).toHaveLength(1);
  });
});
