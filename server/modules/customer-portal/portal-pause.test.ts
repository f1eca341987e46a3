// Pausing, resuming and taking back a scheduled change from the customer portal, through real HTTP
// and the sandbox clock: pause and resume only when the organization's
// customer_portal_settings.subscription.pause allows them (Polar's PauseResumeNotAllowed otherwise),
// resume (and an uncancel) only with a card to charge (PaymentMethodRequired), a pending update
// cleared always, and a body mixing the variants refused as Polar's validation error.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "../../../test/helpers/auth.ts";
import {
  advance,
  billingSeller,
  type BillingSeller,
  ordersOf,
  setOrganizationSettings,
  subscribe,
  subscriptionOf,
} from "../../../test/helpers/billing.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

let t: TestServer;
/** Polar's defaults: pausing is off. */
let off: BillingSeller;
/** A seller that lets its customers pause and resume. */
let on: BillingSeller;

beforeAll(async () => {
  t = await startTestServer({ worker: false });
  [off, on] = await Promise.all([billingSeller(t), billingSeller(t)]);
  await setOrganizationSettings(t.url, on, "customer_portal_settings", {
    subscription: { update_seats: true, update_plan: true, pause: true },
  });
});
afterAll(() => t?.stop());

const DAY = 86_400_000;
const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();
const NOT_ALLOWED = {
  error: "PauseResumeNotAllowed",
  detail: "Pausing or resuming a subscription is not allowed.",
};

function monthly(s: BillingSeller, name: string, amount: number) {
  return s.polar.products.create({
    name,
    recurringInterval: "month",
    prices: [{ amountType: "fixed", priceAmount: amount, priceCurrency: "usd" }],
  });
}

/** A customer session's calls to /v1/customer-portal/. */
async function portalOf(s: BillingSeller, customerId: string) {
  const session = await s.call("/v1/customer-sessions/", { body: { customer_id: customerId } });
  return (path: string, init: { method?: string; body?: unknown } = {}) =>
    api(t.url, `/v1/customer-portal/${path}`, { token: session.body.token, ...init });
}

async function cycleOrders(s: BillingSeller, subscriptionId: string) {
  return (await ordersOf(s, subscriptionId)).filter(
    (o) => o.billing_reason === "subscription_cycle",
  );
}

/** A subscription of `s` paused by the seller at its period end, and the portal of its customer. */
async function pausedSubscription(s: BillingSeller, name: string) {
  const product = await monthly(s, name, 1500);
  const { subscriptionId, customerId } = await subscribe(s, product.id);
  const set = await s.call(`/v1/subscriptions/${subscriptionId}`, {
    method: "PATCH",
    body: { pause_at_period_end: true },
  });
  expect(set.status).toBe(200);
  await advance(s, { to: set.body.current_period_end });
  expect((await subscriptionOf(s, subscriptionId)).status).toBe("paused");
  return { subscriptionId, portal: await portalOf(s, customerId) };
}

describe("portal pause and resume switched off", () => {
  it("pause, taking a pause back and resume are 403 PauseResumeNotAllowed and change nothing", async () => {
    const product = await monthly(off, "Kept running", 1000);
    const { subscriptionId, customerId } = await subscribe(off, product.id);
    const portal = await portalOf(off, customerId);
    const mine = await portal(`subscriptions/${subscriptionId}`);
    expect(mine.body.product.organization.customer_portal_settings.subscription).toEqual({
      update_seats: true,
      update_plan: true,
      pause: false,
    });

    const before = await subscriptionOf(off, subscriptionId);
    for (const body of [
      { pause_at_period_end: true },
      { pause_at_period_end: true, resumes_at: plus(before.current_period_end, 30 * DAY) },
      { pause_at_period_end: false },
      { resume: true },
    ]) {
      const res = await portal(`subscriptions/${subscriptionId}`, { method: "PATCH", body });
      expect(res.status, JSON.stringify(body)).toBe(403);
      expect(res.body).toEqual(NOT_ALLOWED);
    }
    expect(await subscriptionOf(off, subscriptionId)).toEqual(before);

    // Paused by the seller, it stays paused: the customer cannot resume it either.
    const paused = await pausedSubscription(off, "Paused by the seller");
    const held = await subscriptionOf(off, paused.subscriptionId);
    const resumed = await paused.portal(`subscriptions/${paused.subscriptionId}`, {
      method: "PATCH",
      body: { resume: true },
    });
    expect(resumed.status).toBe(403);
    expect(resumed.body).toEqual(NOT_ALLOWED);
    expect(await subscriptionOf(off, paused.subscriptionId)).toEqual(held);
    expect(await cycleOrders(off, paused.subscriptionId)).toHaveLength(0);
  });
});

describe("portal pause and resume switched on", () => {
  it("shows pause in the portal's organization, public and signed in", async () => {
    const org = (await on.call(`/v1/organizations/${on.organizationId}`)).body;
    const page = await api(t.url, `/v1/customer-portal/organizations/${org.slug}`);
    expect(page.body.organization.customer_portal_settings.subscription).toEqual({
      update_seats: true,
      update_plan: true,
      pause: true,
    });
  });

  it("pauses at period end with resumes_at, is paused there with no cycle order, and resumes with a charge", async () => {
    const product = await monthly(on, "Pausable", 1200);
    const { subscriptionId, customerId } = await subscribe(on, product.id);
    const portal = await portalOf(on, customerId);
    const mine = await portal(`subscriptions/${subscriptionId}`);
    expect(mine.body.product.organization.customer_portal_settings.subscription.pause).toBe(true);
    const end = mine.body.current_period_end as string;

    const early = await portal(`subscriptions/${subscriptionId}`, {
      method: "PATCH",
      body: { pause_at_period_end: true, resumes_at: end },
    });
    expect(early.status).toBe(422);
    const resumesAt = plus(end, 30 * DAY);
    const scheduled = await portal(`subscriptions/${subscriptionId}`, {
      method: "PATCH",
      body: { pause_at_period_end: true, resumes_at: resumesAt },
    });
    expect(scheduled.status).toBe(200);
    expect(scheduled.body).toMatchObject({
      id: subscriptionId,
      status: "active",
      pause_at_period_end: true,
      resumes_at: resumesAt,
    });

    await advance(on, { to: plus(end, DAY) });
    expect(await subscriptionOf(on, subscriptionId)).toMatchObject({
      status: "paused",
      paused_at: end,
      pause_at_period_end: false,
    });
    expect(await cycleOrders(on, subscriptionId)).toHaveLength(0);

    // Resumed by the customer before resumes_at: a new period from now, charged at once.
    const resumed = await portal(`subscriptions/${subscriptionId}`, {
      method: "PATCH",
      body: { resume: true },
    });
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ status: "active", paused_at: null, resumes_at: null });
    expect(Date.parse(resumed.body.current_period_start)).toBeGreaterThan(Date.parse(end));
    const cycles = await cycleOrders(on, subscriptionId);
    expect(cycles).toHaveLength(1);
    expect(cycles[0]).toMatchObject({ status: "paid", total_amount: 1200 });

    // Only a paused subscription resumes (the seller's rule, unchanged).
    const again = await portal(`subscriptions/${subscriptionId}`, {
      method: "PATCH",
      body: { resume: true },
    });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe("NotPausedSubscription");
    expect(await cycleOrders(on, subscriptionId)).toHaveLength(1);
  });

  it("pause_at_period_end false takes a scheduled pause back: the period renews", async () => {
    const product = await monthly(on, "Pause taken back", 900);
    const { subscriptionId, customerId } = await subscribe(on, product.id);
    const portal = await portalOf(on, customerId);
    const path = `subscriptions/${subscriptionId}`;
    const scheduled = await portal(path, {
      method: "PATCH",
      body: { pause_at_period_end: true, resumes_at: null },
    });
    expect(scheduled.body).toMatchObject({ pause_at_period_end: true, resumes_at: null });
    const kept = await portal(path, { method: "PATCH", body: { pause_at_period_end: false } });
    expect(kept.status).toBe(200);
    expect(kept.body).toMatchObject({ pause_at_period_end: false, resumes_at: null });

    await advance(on, { to: kept.body.current_period_end });
    expect((await subscriptionOf(on, subscriptionId)).status).toBe("active");
    expect(await cycleOrders(on, subscriptionId)).toHaveLength(1);
  });

  it("resuming without a saved payment method is a 409 PaymentMethodRequired; with one it charges", async () => {
    const { subscriptionId, portal } = await pausedSubscription(on, "No card left");
    const methods = await portal("customers/me/payment-methods");
    expect(methods.body.items.length).toBeGreaterThan(0);
    for (const m of methods.body.items as { id: string }[])
      expect(
        (await portal(`customers/me/payment-methods/${m.id}`, { method: "DELETE" })).status,
      ).toBe(204);

    const held = await subscriptionOf(on, subscriptionId);
    const refused = await portal(`subscriptions/${subscriptionId}`, {
      method: "PATCH",
      body: { resume: true },
    });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      error: "PaymentMethodRequired",
      detail: "Add a payment method before resuming this subscription.",
    });
    expect(await subscriptionOf(on, subscriptionId)).toEqual(held);
    expect(await cycleOrders(on, subscriptionId)).toHaveLength(0);

    const added = await portal("customers/me/payment-methods", {
      body: {
        confirmation_token_id: "sandbox_token_success",
        set_default: true,
        return_url: "https://shop.example/account",
      },
    });
    expect(added.status).toBe(201);
    const resumed = await portal(`subscriptions/${subscriptionId}`, {
      method: "PATCH",
      body: { resume: true },
    });
    expect(resumed.status).toBe(200);
    expect(resumed.body.status).toBe("active");
    expect((await cycleOrders(on, subscriptionId))[0]).toMatchObject({ status: "paid" });
  });
});

describe("portal pending update and validation", () => {
  it("pending_update null clears the seller's next_period plan change, even with pausing off", async () => {
    const small = await monthly(off, "Small", 2000);
    const large = await monthly(off, "Large", 5000);
    const { subscriptionId, customerId } = await subscribe(off, small.id);
    const changed = await off.call(`/v1/subscriptions/${subscriptionId}`, {
      method: "PATCH",
      body: { product_id: large.id, proration_behavior: "next_period" },
    });
    expect(changed.body.pending_update).toMatchObject({ product_id: large.id });

    const portal = await portalOf(off, customerId);
    const cleared = await portal(`subscriptions/${subscriptionId}`, {
      method: "PATCH",
      body: { pending_update: null },
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ product_id: small.id, pending_update: null });
    expect((await subscriptionOf(off, subscriptionId)).pending_update).toBeNull();

    await advance(off, { to: cleared.body.current_period_end });
    const [cycle] = await cycleOrders(off, subscriptionId);
    expect(cycle).toMatchObject({ product_id: small.id, total_amount: 2000 });
  });

  it("a body mixing variants, with an unknown field or a wrong value is a 422 and changes nothing", async () => {
    const product = await monthly(on, "Validated", 1000);
    const { subscriptionId, customerId } = await subscribe(on, product.id);
    const portal = await portalOf(on, customerId);
    const before = await subscriptionOf(on, subscriptionId);
    for (const body of [
      { pause_at_period_end: true, resume: true },
      { pending_update: null, cancel_at_period_end: true },
      { pause_at_period_end: true, seats: 2 },
      { resume: true, unknown: 1 },
      { resume: false },
      { pending_update: "x" },
      { pause_at_period_end: true, resumes_at: "next month" },
    ]) {
      const res = await portal(`subscriptions/${subscriptionId}`, { method: "PATCH", body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error).toBe("RequestValidationError");
      expect(res.body.detail.length).toBeGreaterThan(0);
      for (const d of res.body.detail) {
        expect(d.loc[0]).toBe("body");
        expect(typeof d.msg).toBe("string");
        expect(typeof d.type).toBe("string");
      }
    }
    expect(await subscriptionOf(on, subscriptionId)).toEqual(before);
  });
});

describe("portal uncancel", () => {
  it("taking a cancellation back needs a saved card, as Polar: a 409 without one", async () => {
    const product = await monthly(off, "Uncancel", 1200);
    const { subscriptionId, customerId } = await subscribe(off, product.id);
    const portal = await portalOf(off, customerId);
    const cancel = (value: boolean) =>
      portal(`subscriptions/${subscriptionId}`, {
        method: "PATCH",
        body: { cancel_at_period_end: value },
      });
    expect((await cancel(true)).body.cancel_at_period_end).toBe(true);
    for (const m of (await portal("customers/me/payment-methods")).body.items as { id: string }[])
      await portal(`customers/me/payment-methods/${m.id}`, { method: "DELETE" });

    const refused = await cancel(false);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      error: "PaymentMethodRequired",
      detail: "Add a payment method before uncancelling this subscription.",
    });
    expect((await subscriptionOf(off, subscriptionId)).cancel_at_period_end).toBe(true);

    const added = await portal("customers/me/payment-methods", {
      body: {
        confirmation_token_id: "sandbox_token_success",
        set_default: true,
        return_url: "https://shop.example/account",
      },
    });
    expect(added.status).toBe(201);
    const back = await cancel(false);
    expect(back.status).toBe(200);
    expect(back.body.cancel_at_period_end).toBe(false);
  });
});
