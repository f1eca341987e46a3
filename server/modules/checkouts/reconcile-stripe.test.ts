// The checkout reconciler with Stripe when Stripe's search lags behind the reconcile delay (it is
// eventually consistent, minutes behind in an incident): a charge whose answer was lost is found by
// asking the charge again under its idempotency key, so the session is fulfilled, not reopened
// with the customer charged; one that never reached Stripe is made then, once; one abandoned on
// 3-D Secure is canceled at Stripe before the session reopens.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStripeTill, type StripeTill } from "../../../test/helpers/stripe-till.ts";
import { TestClock } from "../../lib/clock.ts";
import { createSecretBox } from "../../lib/secret-box.ts";
import { createProcessor } from "../payments/factory.ts";
import { createTaxCalculator } from "../tax/calculator.ts";
import { ABANDONED_AFTER_SECONDS, reconcileCheckouts } from "./reconcile.ts";

const clock = new TestClock();
let s: StripeTill;

beforeAll(async () => {
  s = await startStripeTill({ clock });
  // Far past the reconcile delay: nothing made in this file is found by Stripe's search.
  s.stripe.state.searchLagMs = 3_600_000;
});
afterAll(() => s?.stop());

const deps = () => ({
  db: s.t.server.database.db,
  clock,
  config: s.t.config,
  secretBox: createSecretBox(s.t.config.authSecret),
  tax: createTaxCalculator(s.t.config.taxRates),
  processor: createProcessor(s.t.config.payments, s.t.server.database.db),
  queue: null,
});

/** A confirm whose charge request meets `fault`; Stripe's events are held back. */
async function confirmUnanswered(fault: Set<string>, recurring: boolean) {
  const c = await s.checkout(recurring);
  const tokenId = await s.token("pm_card_visa");
  const res = await s.during(fault, "POST /v1/payment_intents", () =>
    s.confirm(c.clientSecret, tokenId),
  );
  expect(res.status).toBe(400);
  expect((await s.polar.checkouts.get({ id: c.id })).status).toBe("confirmed");
  return c;
}

async function reconcileLate() {
  clock.advance((s.t.config.payments.reconcileAfterSeconds + 1) * 1000);
  return reconcileCheckouts(deps());
}

describe("the checkout reconciler with Stripe's search lagging", () => {
  it("fulfils a session Stripe charged whose answer was lost, with no second charge", async () => {
    s.stripe.deliverTo(null);
    try {
      for (const recurring of [false, true]) {
        const c = await confirmUnanswered(s.stripe.cutAnswers, recurring);
        const [pi] = s.intentOf(c.id);
        expect(pi?.status).toBe("succeeded");
        expect(await reconcileLate()).toMatchObject({ fulfilled: 1, reopened: 0 });
        expect((await s.polar.checkouts.get({ id: c.id })).status).toBe("succeeded");
        expect(await s.orders(c.id)).toEqual([
          { id: expect.any(String), processor_payment_id: pi!.id },
        ]);
        expect(s.intentOf(c.id)).toHaveLength(1);
      }
    } finally {
      s.stripe.deliverTo({ url: s.webhookUrl, secret: "whsec_tilltest" });
    }
  });

  it("makes a charge that never reached Stripe under the same key, once", async () => {
    s.stripe.deliverTo(null);
    const c = await confirmUnanswered(s.stripe.failing, false);
    try {
      expect(s.intentOf(c.id)).toHaveLength(0);
      expect(await reconcileLate()).toMatchObject({ fulfilled: 1 });
      expect(await reconcileLate()).toMatchObject({ fulfilled: 0, reopened: 0 });
    } finally {
      s.stripe.deliverTo({ url: s.webhookUrl, secret: "whsec_tilltest" });
    }
    // Stripe's held events arrive late: nothing changes.
    for (const e of s.stripe.state.events) expect(await s.stripe.deliver(e)).toBe(200);
    const [pi] = s.intentOf(c.id);
    expect(s.intentOf(c.id)).toHaveLength(1);
    expect(await s.orders(c.id)).toEqual([
      { id: expect.any(String), processor_payment_id: pi!.id },
    ]);
  });

  it("gives up a payment left waiting on 3-D Secure at Stripe before reopening the session", async () => {
    const c = await s.checkout(false);
    const res = await s.confirm(c.clientSecret, await s.token("pm_card_threeDSecure2Required"));
    expect(res.status).toBe(200);
    const [pi] = s.intentOf(c.id);
    expect(pi?.status).toBe("requires_action");
    await s.stripe.idle();
    clock.advance(ABANDONED_AFTER_SECONDS * 1000);
    expect(await reconcileLate()).toMatchObject({ reopened: 1 });
    expect((await s.polar.checkouts.get({ id: c.id })).status).toBe("open");
    // Canceled, so the buyer finishing the old challenge later cannot be charged for nothing.
    expect(s.stripe.state.intent(pi!.id)).toMatchObject({ status: "canceled" });
  });
});
