// Refunds Stripe fails after the fact (the card's bank sends the money back: the card was closed or
// lost): refund.failed, refund.updated and charge.refund.updated make till's refund failed, give
// the order back its refunded amounts with refund.updated and order.updated recorded, and apply
// once however many of them arrive, in any order, repeated. And a payment refunded in more pieces
// than one page of Stripe's list holds (100): charge.refunded reads every page, so each refund made
// in Stripe's dashboard is recorded; the local server pages its list as Stripe does.
import type { Polar } from "@polar-sh/sdk";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  startStripeTill,
  type StripeTill,
  WEBHOOK_SECRET,
} from "../../../test/helpers/stripe-till.ts";

let s: StripeTill;
let polar: Polar;

beforeAll(async () => {
  s = await startStripeTill();
  ({ polar } = s);
});
afterAll(() => s?.stop());

const paidOrder = () => s.paidOrder();

/** Till's webhook events about a resource, oldest first. */
async function eventsOf(id: string) {
  return s.t.server.database.rows<{ type: string; payload: { data: Record<string, unknown> } }>(
    sql`select type, payload from webhook_events where payload::text like ${`%${id}%`} order by created_at, id`,
  );
}

const refundRow = async (id: string) =>
  (
    await s.t.server.database.rows<{ status: string; failure_reason: string | null }>(
      sql`select status, failure_reason from refunds where id = ${id}`,
    )
  )[0]!;

const stripeRefundOf = (tillRefundId: string) =>
  [...s.stripe.state.refunds.values()].find(
    (r) => (r.metadata as Record<string, string>).till_refund_id === tillRefundId,
  )!;

/** Stripe's events from `from` on, held back from till. */
const since = (from: number, type: string) =>
  s.stripe.state.events.slice(from).filter((e) => e.type === type);

function holding<T>(run: () => Promise<T>): Promise<T> {
  s.stripe.deliverTo(null);
  return run().finally(() => s.stripe.deliverTo({ url: s.webhookUrl, secret: WEBHOOK_SECRET }));
}

describe("a refund Stripe fails after it succeeded", () => {
  it("becomes failed and the order's refunded amounts are restored, once", async () => {
    const order = await paidOrder();
    const kept = await polar.refunds.create({ orderId: order.id, reason: "other", amount: 200 });
    const lost = await polar.refunds.create({ orderId: order.id, reason: "other", amount: 300 });
    expect([kept.status, lost.status]).toEqual(["succeeded", "succeeded"]);
    await s.stripe.idle();
    expect((await polar.orders.get({ id: order.id })).refundedAmount).toBe(500);

    await holding(async () => {
      const from = s.stripe.state.events.length;
      s.stripe.refunds.fail(stripeRefundOf(lost.id).id);
      const failures = [
        ...since(from, "charge.refund.updated"),
        ...since(from, "refund.updated"),
        ...since(from, "refund.failed"),
      ];
      expect(failures).toHaveLength(3);
      // The oldest kind first, then the rest, then all again under new ids (a replay).
      for (const e of failures) expect(await s.stripe.deliver(e)).toBe(200);
      for (const e of failures) expect(await s.stripe.deliver({ ...e, id: `${e.id}_2` })).toBe(200);
    });

    const refunds = (await polar.refunds.list({ orderId: order.id })).result.items;
    expect(refunds.find((r) => r.id === lost.id)?.status).toBe("failed");
    expect(refunds.find((r) => r.id === kept.id)?.status).toBe("succeeded");
    expect(await refundRow(lost.id)).toMatchObject({
      status: "failed",
      failure_reason: "card_expired",
    });
    const o = await polar.orders.get({ id: order.id });
    expect(o.status).toBe("partially_refunded");
    expect(o.refundedAmount).toBe(200);
    const events = await eventsOf(lost.id);
    const failed = events.filter(
      (e) => e.type === "refund.updated" && e.payload.data.status === "failed",
    );
    expect(failed).toHaveLength(1);
    const orderUpdates = (await eventsOf(order.id)).filter(
      (e) => e.type === "order.updated" && e.payload.data.refunded_amount === 200,
    );
    expect(orderUpdates.length).toBeGreaterThanOrEqual(1);
  });

  it("a whole refund failed: the order is paid again and can be refunded again", async () => {
    const order = await paidOrder();
    const before = await polar.orders.get({ id: order.id });
    const all = before.netAmount;
    const refund = await polar.refunds.create({ orderId: order.id, reason: "other", amount: all });
    await s.stripe.idle();
    expect((await polar.orders.get({ id: order.id })).status).toBe("refunded");
    s.stripe.refunds.fail(stripeRefundOf(refund.id).id, "lost_or_stolen_card");
    await s.stripe.idle();
    expect(await refundRow(refund.id)).toMatchObject({
      status: "failed",
      failure_reason: "card_lost",
    });
    const after = await polar.orders.get({ id: order.id });
    expect(after).toMatchObject({ status: "paid", refundedAmount: 0, refundedTaxAmount: 0 });
    const again = await polar.refunds.create({ orderId: order.id, reason: "other", amount: all });
    expect(again.status).toBe("succeeded");
  });

  it("one made in Stripe's dashboard is failed too", async () => {
    const order = await paidOrder();
    const outside = await s.stripe.sdk().refunds.create({
      payment_intent: order.processor_payment_id,
      amount: 400,
    });
    await s.stripe.idle();
    expect((await polar.orders.get({ id: order.id })).refundedAmount).toBeGreaterThan(0);
    s.stripe.refunds.fail(outside.id);
    await s.stripe.idle();
    const [row] = await s.t.server.database.rows<{ status: string }>(
      sql`select status from refunds where processor_refund_id = ${outside.id}`,
    );
    expect(row?.status).toBe("failed");
    const o = await polar.orders.get({ id: order.id });
    expect(o).toMatchObject({ status: "paid", refundedAmount: 0 });
  });
});

describe("a refund Stripe fails before till heard it succeeded", () => {
  it("the pending refund fails and its reservation is released", async () => {
    const order = await paidOrder();
    const refund = await holding(async () => {
      const made = await s.during(s.stripe.cutAnswers, "POST /v1/refunds", () =>
        polar.refunds.create({ orderId: order.id, reason: "other", amount: 300 }),
      );
      expect(made.status).toBe("pending");
      const from = s.stripe.state.events.length;
      s.stripe.refunds.fail(stripeRefundOf(made.id).id);
      // Only the failure arrives; the earlier success events are lost.
      for (const e of since(from, "refund.failed")) expect(await s.stripe.deliver(e)).toBe(200);
      return made;
    });
    expect(await refundRow(refund.id)).toMatchObject({ status: "failed" });
    const o = await polar.orders.get({ id: order.id });
    expect(o).toMatchObject({ status: "paid", refundedAmount: 0 });
    const failed = (await eventsOf(refund.id)).filter(
      (e) => e.type === "refund.updated" && e.payload.data.status === "failed",
    );
    expect(failed).toHaveLength(1);
    // The reservation is gone: the whole order can be refunded.
    const all = await polar.refunds.create({
      orderId: order.id,
      reason: "other",
      amount: o.netAmount,
    });
    expect(all.status).toBe("succeeded");
  });
});

describe("the local Stripe API's lists", () => {
  it("page newest first with has_more, starting_after and ending_before", async () => {
    const order = await s.paidOrder();
    const sdk = s.stripe.sdk();
    const pi = order.processor_payment_id;
    const made = [];
    for (let i = 0; i < 5; i++)
      made.push(await sdk.refunds.create({ payment_intent: pi, amount: 1 }));
    await s.stripe.idle();
    const newest = made.map((r) => r.id).reverse();
    const first = await sdk.refunds.list({ payment_intent: pi, limit: 2 });
    expect(first.data.map((r) => r.id)).toEqual(newest.slice(0, 2));
    expect(first.has_more).toBe(true);
    const next = await sdk.refunds.list({
      payment_intent: pi,
      limit: 2,
      starting_after: newest[1]!,
    });
    expect(next.data.map((r) => r.id)).toEqual(newest.slice(2, 4));
    const back = await sdk.refunds.list({
      payment_intent: pi,
      limit: 2,
      ending_before: newest[2]!,
    });
    expect(back.data.map((r) => r.id)).toEqual(newest.slice(0, 2));
    expect(
      (await sdk.refunds.list({ payment_intent: pi, limit: 2, starting_after: newest[3]! }))
        .has_more,
    ).toBe(false);
    const all = await sdk.refunds
      .list({ payment_intent: pi, limit: 2 })
      .autoPagingToArray({ limit: 100 });
    expect(all.map((r) => r.id)).toEqual(newest);
    await expect(sdk.refunds.list({ limit: 101 })).rejects.toMatchObject({ statusCode: 400 });
  });
});

describe("charge.refunded", () => {
  it("records every refund of a payment, past the first page", async () => {
    const order = await s.paidOrder();
    const pi = order.processor_payment_id;
    const sdk = s.stripe.sdk();
    s.stripe.deliverTo(null);
    try {
      const from = s.stripe.state.events.length;
      // 105 refunds of a cent each in Stripe's dashboard; only the last charge.refunded arrives.
      for (let i = 0; i < 105; i++) await sdk.refunds.create({ payment_intent: pi, amount: 1 });
      const refunded = s.stripe.state.events
        .slice(from)
        .filter((e) => e.type === "charge.refunded")
        .at(-1)!;
      expect(await s.stripe.deliver(refunded)).toBe(200);
    } finally {
      s.stripe.deliverTo({ url: s.webhookUrl, secret: WEBHOOK_SECRET });
    }
    const [row] = await s.t.server.database.rows<{ n: number }>(
      sql`select count(*)::int as n from refunds where order_id = ${order.id} and status = 'succeeded'`,
    );
    expect(row!.n).toBe(105);
    const o = await polar.orders.get({ id: order.id });
    expect(o.refundedAmount + o.refundedTaxAmount).toBe(105);
  });
});
