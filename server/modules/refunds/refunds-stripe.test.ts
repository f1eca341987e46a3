// Refunds through Stripe whose answer never came back (the connection cut after Stripe refunded, or
// the process gone before it heard): the refund stays pending, reserved against the order, and is
// settled once, by Stripe's charge.refunded or by the reconciler asking Stripe (and sending it again
// under the same key when it never got there), never refunded twice.
import type { Polar } from "@polar-sh/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStripeTill, type StripeTill } from "../../../test/helpers/stripe-till.ts";
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

const paidOrder = () => s.paidOrder();

/** A refund of 300 whose answer from Stripe is lost on the way back. */
async function refundWithoutAnswer(orderId: string) {
  return s.during(s.stripe.cutAnswers, "POST /v1/refunds", () =>
    polar.refunds.create({ orderId, reason: "customer_request", amount: 300 }),
  );
}

/** What the refund reconciler job runs with, on the test's clock. */
const reconcilerDeps = () => ({
  db: s.t.server.database.db,
  clock,
  processor: createProcessor(s.t.config.payments, s.t.server.database.db),
  queue: null,
  baseUrl: s.t.config.baseUrl,
  reconcileAfterSeconds: s.t.config.payments.reconcileAfterSeconds,
});

const stripeRefunds = (pi: string) =>
  [...s.stripe.state.refunds.values()].filter((r) => r.payment_intent === pi);

describe("a refund Stripe made but till never heard back about", () => {
  it("is pending, not failed, and charge.refunded settles it once", async () => {
    const order = await paidOrder();
    const refund = await refundWithoutAnswer(order.id);
    expect(refund.status).toBe("pending");
    await s.stripe.idle();
    const [after] = (await polar.refunds.list({ orderId: order.id })).result.items;
    expect(after).toMatchObject({ id: refund.id, status: "succeeded" });
    expect(stripeRefunds(order.processor_payment_id)).toHaveLength(1);
    const o = await polar.orders.get({ id: order.id });
    expect(o.status).toBe("partially_refunded");
    expect(o.refundedAmount + o.refundedTaxAmount).toBe(300);
  });

  it("is settled by the reconciler when Stripe's event is lost too", async () => {
    const order = await paidOrder();
    s.stripe.deliverTo(null);
    try {
      const refund = await refundWithoutAnswer(order.id);
      expect(refund.status).toBe("pending");
      const deps = reconcilerDeps();
      // Not yet: the request may still be on its way.
      expect(await reconcileRefunds(deps)).toMatchObject({ succeeded: 0 });
      clock.advance((deps.reconcileAfterSeconds + 1) * 1000);
      expect(await reconcileRefunds(deps)).toMatchObject({ succeeded: 1 });
      expect(await reconcileRefunds(deps)).toMatchObject({ succeeded: 0 });
      const [after] = (await polar.refunds.list({ orderId: order.id })).result.items;
      expect(after).toMatchObject({ id: refund.id, status: "succeeded" });
      expect(stripeRefunds(order.processor_payment_id)).toHaveLength(1);
      const o = await polar.orders.get({ id: order.id });
      expect(o.refundedAmount + o.refundedTaxAmount).toBe(300);
    } finally {
      s.stripe.deliverTo({ url: s.webhookUrl, secret: "whsec_tilltest" });
    }
  });

  it("one that never reached Stripe is sent again by the reconciler, under the same key", async () => {
    const order = await paidOrder();
    const refund = await s.during(s.stripe.failing, "POST /v1/refunds", () =>
      polar.refunds.create({ orderId: order.id, reason: "other", amount: 300 }),
    );
    expect(refund.status).toBe("pending");
    expect(stripeRefunds(order.processor_payment_id)).toHaveLength(0);
    const deps = reconcilerDeps();
    clock.advance((deps.reconcileAfterSeconds + 1) * 1000);
    expect(await reconcileRefunds(deps)).toMatchObject({ succeeded: 1 });
    await s.stripe.idle();
    expect(await reconcileRefunds(deps)).toMatchObject({ succeeded: 0 });
    expect(stripeRefunds(order.processor_payment_id)).toHaveLength(1);
    const o = await polar.orders.get({ id: order.id });
    expect(o.refundedAmount + o.refundedTaxAmount).toBe(300);
  });
});
