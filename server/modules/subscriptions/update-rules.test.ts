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
