// The rules a SubscriptionUpdate is held to before it changes anything, as Polar's service holds
// them: a refused change answers Polar's error and leaves the subscription and its orders as
// they were.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  billingSeller,
  monthlyProduct,
  ordersOf,
  subscribe,
  subscriptionOf,
  type BillingSeller,
} from "../../../test/helpers/billing.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

let t: TestServer;
let s: BillingSeller;

beforeAll(async () => {
  t = await startTestServer();
  s = await billingSeller(t);
});
afterAll(() => t.stop());

const DAY = 86_400_000;
const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();
const patch = (id: string, body: unknown) =>
  s.call(`/v1/subscriptions/${id}`, { method: "PATCH", body });

/** Sends `body`, expects Polar's refusal, and checks that nothing changed. */
async function refused(
  id: string,
  body: unknown,
  expected: { status: number; error: string; msg?: string },
) {
  const [before, ordersBefore] = [await subscriptionOf(s, id), await ordersOf(s, id)];
  const res = await patch(id, body);
  expect(res.status, JSON.stringify(res.body)).toBe(expected.status);
  expect(res.body.error).toBe(expected.error);
  if (expected.msg) expect(res.body.detail[0].msg).toBe(expected.msg);
  expect(await subscriptionOf(s, id)).toEqual(before);
  expect(await ordersOf(s, id)).toEqual(ordersBefore);
}

describe("trial_end on an active subscription", () => {
  it("cannot end a trial that is not running: no early charge", async () => {
    const plan = await monthlyProduct(s, "Paid, no trial", 1500);
    const { subscriptionId } = await subscribe(s, plan.id);
    await refused(
      subscriptionId,
      { trial_end: "now" },
      {
        status: 422,
        error: "RequestValidationError",
        msg: "The subscription is not currently trialing.",
      },
    );
  });

  it("starts a trial only after the period paid for", async () => {
    const plan = await monthlyProduct(s, "Paid, then trial", 1500);
    const { subscriptionId } = await subscribe(s, plan.id);
    const sub = await subscriptionOf(s, subscriptionId);
    const tooSoon = { status: 422, error: "RequestValidationError" };
    const msg = "Trial end must be after the current period end.";
    for (const end of [plus(sub.current_period_start, DAY), sub.current_period_end])
      await refused(subscriptionId, { trial_end: end }, { ...tooSoon, msg });

    const later = plus(sub.current_period_end, 10 * DAY);
    const trial = await patch(subscriptionId, { trial_end: later });
    expect(trial.status).toBe(200);
    expect(trial.body).toMatchObject({
      status: "trialing",
      trial_end: later,
      current_period_end: later,
    });
  });

  it("is checked against the period a plan change starts, before the change charges", async () => {
    const monthly = await monthlyProduct(s, "Monthly before yearly", 1000);
    const yearly = await monthlyProduct(s, "Yearly with trial", 10_000, undefined, "year");
    const { subscriptionId } = await subscribe(s, monthly.id);
    const sub = await subscriptionOf(s, subscriptionId);
    // After the month paid for, but inside the year the move to yearly would charge now.
    await refused(
      subscriptionId,
      {
        product_id: yearly.id,
        proration_behavior: "invoice",
        trial_end: plus(sub.current_period_end, 30 * DAY),
      },
      {
        status: 422,
        error: "RequestValidationError",
        msg: "Trial end must be after the current period end.",
      },
    );
  });
});

describe("pause and cancel", () => {
  const cannotPause = { status: 409, error: "CannotPauseSubscription" };

  it("pauses only an active subscription set to neither cancel nor pause", async () => {
    const plan = await monthlyProduct(s, "Pause rules", 1200);
    const trialPlan = await monthlyProduct(s, "Pause rules trial", 1200, 14);
    const canceling = (await subscribe(s, plan.id)).subscriptionId;
    expect((await patch(canceling, { cancel_at_period_end: true })).status).toBe(200);
    await refused(canceling, { pause_at_period_end: true }, cannotPause);

    const pausing = (await subscribe(s, plan.id)).subscriptionId;
    expect((await patch(pausing, { pause_at_period_end: true })).status).toBe(200);
    const end = (await subscriptionOf(s, pausing)).current_period_end;
    await refused(
      pausing,
      { pause_at_period_end: true, resumes_at: plus(end, 30 * DAY) },
      cannotPause,
    );

    const trialing = (await subscribe(s, trialPlan.id)).subscriptionId;
    await refused(trialing, { pause_at_period_end: true }, cannotPause);

    const active = (await subscribe(s, plan.id)).subscriptionId;
    await refused(
      active,
      { pause_at_period_end: false },
      { status: 409, error: "NoScheduledPause" },
    );
    await refused(active, { resume: true }, { status: 409, error: "NotPausedSubscription" });
  });

  it("a cancellation takes a scheduled pause back; a paused subscription is not canceled at a period end it has passed", async () => {
    const plan = await monthlyProduct(s, "Pause then cancel", 1200);
    const { subscriptionId } = await subscribe(s, plan.id);
    const sub = await subscriptionOf(s, subscriptionId);
    await patch(subscriptionId, {
      pause_at_period_end: true,
      resumes_at: plus(sub.current_period_end, 30 * DAY),
    });
    const canceled = await patch(subscriptionId, { cancel_at_period_end: true });
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({
      cancel_at_period_end: true,
      pause_at_period_end: false,
      resumes_at: null,
      ends_at: sub.current_period_end,
    });
    // As Polar's update_currrent_billing_period_end: an end already set is not moved.
    await refused(
      subscriptionId,
      { current_billing_period_end: plus(sub.current_period_end, 5 * DAY) },
      { status: 403, error: "AlreadyCanceledSubscription" },
    );

    const other = (await subscribe(s, plan.id)).subscriptionId;
    await patch(other, { pause_at_period_end: true });
    const otherEnd = (await subscriptionOf(s, other)).current_period_end;
    const clock = await s.call("/v1/sandbox/clock/advance", { body: { to: plus(otherEnd, DAY) } });
    expect(clock.status).toBe(200);
    expect((await subscriptionOf(s, other)).status).toBe("paused");
    await refused(
      other,
      { cancel_at_period_end: true },
      { status: 403, error: "AlreadyCanceledSubscription" },
    );
    // Its period is the resume's to set, not the seller's.
    await refused(
      other,
      { current_billing_period_end: plus(otherEnd, 40 * DAY) },
      { status: 403, error: "InactiveSubscription" },
    );
    // Resumed, it renews as any other: nothing left over says it ends.
    const resumed = await patch(other, { resume: true });
    expect(resumed.body).toMatchObject({
      status: "active",
      cancel_at_period_end: false,
      ends_at: null,
    });
  });
});

describe("a subscription set to cancel", () => {
  it("given a trial, ends where the trial does, and says so", async () => {
    const plan = await monthlyProduct(s, "Cancel then trial", 1200);
    const { subscriptionId } = await subscribe(s, plan.id);
    const canceled = await patch(subscriptionId, { cancel_at_period_end: true });
    const end = plus(canceled.body.current_period_end, 10 * DAY);
    const trial = await patch(subscriptionId, { trial_end: end });
    expect(trial.status).toBe(200);
    expect(trial.body).toMatchObject({
      status: "trialing",
      cancel_at_period_end: true,
      current_period_end: end,
      ends_at: end,
    });
  });
});

describe("a plan change with a discount", () => {
  it("checks the discount against the new product before the change charges", async () => {
    const basic = await monthlyProduct(s, "Discounted basic", 1500);
    const pro = await monthlyProduct(s, "Undiscounted pro", 3000);
    const basicOnly = await s.call("/v1/discounts/", {
      body: {
        name: "Basic only",
        type: "percentage",
        basis_points: 1000,
        duration: "forever",
        products: [basic.id],
      },
    });
    expect(basicOnly.status).toBe(201);
    const { subscriptionId } = await subscribe(s, basic.id);
    await refused(
      subscriptionId,
      { product_id: pro.id, proration_behavior: "invoice", discount_id: basicOnly.body.id },
      {
        status: 422,
        error: "RequestValidationError",
        msg: "This discount does not apply to this product.",
      },
    );
  });
});
