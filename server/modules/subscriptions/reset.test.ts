// The `reset` proration behavior, through the public API and the sandbox clock. As Polar, it needs
// the organization's reset_proration_behavior_enabled flag (a 422 otherwise, for a plan change, a
// seat change and the organization's default alike); with it, a change is billed at once in a
// subscription_update order of the new plan's full period, which starts at the change, with no
// credit for the old one and no cycle; a declined charge changes nothing; a trial ends
// now when the new plan has none, which is billed then.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  advance,
  billingSeller,
  enableResetProration,
  monthlyProduct,
  ordersOf,
  seatProduct,
  setSubscriptionSettings,
  subscribe,
  subscriptionOf,
  type BillingSeller,
} from "../../../test/helpers/billing.ts";
import { eventsOf } from "../../../test/helpers/catalog.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { US_ADDRESS } from "../../../test/helpers/addresses.ts";

let t: TestServer;
/** A seller that never turns the flag on. */
let off: BillingSeller;
/** A seller with the flag on. */
let on: BillingSeller;

beforeAll(async () => {
  t = await startTestServer();
  off = await billingSeller(t);
  on = await billingSeller(t);
  await enableResetProration(t.url, on);
});
afterAll(() => t.stop());

const NOT_ENABLED = "The 'reset' proration behavior is not enabled for this organization.";
const DAY = 86_400_000;

const patch = (s: BillingSeller, id: string, body: unknown) =>
  s.call(`/v1/subscriptions/${id}`, { method: "PATCH", body });

async function buySeats(s: BillingSeller, productId: string, seats: number) {
  const checkout = await s.call("/v1/checkouts/", { body: { products: [productId], seats } });
  expect(checkout.status, JSON.stringify(checkout.body)).toBe(201);
  const confirmed = await s.call(`/v1/checkouts/client/${checkout.body.client_secret}/confirm`, {
    body: {
      customer_email: `seats-${Math.random().toString(36).slice(2, 8)}@example.com`,
      customer_billing_address: US_ADDRESS,
      confirmation_token_id: "sandbox_token_success",
    },
  });
  expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
  return (await s.call(`/v1/checkouts/${checkout.body.id}`)).body.subscription_id as string;
}

/** Moves the seller's clock to the middle of the subscription's period; answers that time. */
async function toMidPeriod(s: BillingSeller, id: string): Promise<string> {
  const sub = await subscriptionOf(s, id);
  const start = Date.parse(sub.current_period_start);
  const mid = start + (Date.parse(sub.current_period_end) - start) / 2;
  return (await advance(s, { to: new Date(mid).toISOString() })).now;
}

/** The seller's clock now (it runs on between two calls). */
async function clockNow(s: BillingSeller): Promise<number> {
  const res = await s.call(`/v1/sandbox/clock?organization_id=${s.organizationId}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return Date.parse(res.body.now);
}

/** The same time of day a calendar month later, on the last day of a shorter month. */
function monthAfter(iso: string): string {
  const d = new Date(iso);
  const lastDay = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 2, 0)).getUTCDate();
  const next = new Date(d);
  next.setUTCDate(1);
  next.setUTCMonth(d.getUTCMonth() + 1);
  next.setUTCDate(Math.min(d.getUTCDate(), lastDay));
  return next.toISOString();
}

const reasons = async (s: BillingSeller, id: string) =>
  (await ordersOf(s, id)).map((o) => o.billing_reason as string);

/** A reset asked of `off` (the flag off): Polar's 422, and the subscription as it was. */
async function expectRefused(id: string, body: Record<string, unknown>) {
  const before = await subscriptionOf(off, id);
  const res = await patch(off, id, body);
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  expect(res.body.detail).toMatchObject([
    { loc: ["body", "proration_behavior"], msg: NOT_ENABLED, type: "value_error" },
  ]);
  expect(await subscriptionOf(off, id)).toEqual(before);
  expect(await reasons(off, id)).toEqual(["subscription_create"]);
}

describe("without the organization's flag", () => {
  it("a reset plan change is Polar's 422 and changes nothing", async () => {
    const basic = await monthlyProduct(off, "Off basic", 1000);
    const pro = await monthlyProduct(off, "Off pro", 2000);
    const { subscriptionId } = await subscribe(off, basic.id);
    await expectRefused(subscriptionId, { product_id: pro.id, proration_behavior: "reset" });
  });

  it("a reset seat change is Polar's 422 and changes nothing", async () => {
    const id = await buySeats(off, await seatProduct(off.call, "Off seats"), 2);
    await expectRefused(id, { seats: 3, proration_behavior: "reset" });
  });

  it("reset as the organization's default is Polar's 422; the flag allows it", async () => {
    const s = await billingSeller(t);
    const path = `/v1/organizations/${s.organizationId}`;
    const org = (await s.call(path)).body;
    const settings = { ...org.subscription_settings, proration_behavior: "reset" };
    const refused = await s.call(path, {
      method: "PATCH",
      body: { subscription_settings: settings },
    });
    expect(refused.status, JSON.stringify(refused.body)).toBe(422);
    expect(refused.body.detail).toMatchObject([
      {
        loc: ["body", "subscription_settings", "proration_behavior"],
        msg: NOT_ENABLED,
        type: "value_error",
      },
    ]);
    const unchanged = (await s.call(path)).body;
    expect([unchanged.proration_behavior, unchanged.feature_settings]).toEqual([
      "prorate",
      org.feature_settings,
    ]);

    // The flag and the default in one request, as Polar applies feature settings first.
    const allowed = await s.call(path, {
      method: "PATCH",
      body: {
        feature_settings: { reset_proration_behavior_enabled: true },
        subscription_settings: settings,
      },
    });
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
    expect([
      allowed.body.proration_behavior,
      allowed.body.feature_settings.reset_proration_behavior_enabled,
    ]).toEqual(["reset", true]);
    // The flag cannot go off under a reset default.
    const disabled = await s.call(path, {
      method: "PATCH",
      body: { feature_settings: { reset_proration_behavior_enabled: false } },
    });
    expect(disabled.status, JSON.stringify(disabled.body)).toBe(422);
    expect(disabled.body.detail[0].loc).toEqual([
      "body",
      "feature_settings",
      "reset_proration_behavior_enabled",
    ]);
    expect((await s.call(path)).body.feature_settings.reset_proration_behavior_enabled).toBe(true);
  });
});

describe("with the flag", () => {
  it("bills the new plan's full period at once and starts that period at the change", async () => {
    const basic = await monthlyProduct(on, "Reset basic", 1000);
    const pro = await monthlyProduct(on, "Reset pro", 2000);
    const { subscriptionId } = await subscribe(on, basic.id);
    const from = Date.parse(await toMidPeriod(on, subscriptionId));
    const seen = (await eventsOf(t, on.organizationId)).length;
    const res = await patch(on, subscriptionId, {
      product_id: pro.id,
      proration_behavior: "reset",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const to = await clockNow(on);

    const sub = await subscriptionOf(on, subscriptionId);
    expect(sub).toMatchObject({ product_id: pro.id, amount: 2000, status: "active" });
    const start = Date.parse(sub.current_period_start);
    expect(start).toBeGreaterThanOrEqual(from);
    expect(start).toBeLessThanOrEqual(to);
    expect(sub.current_period_end).toBe(monthAfter(sub.current_period_start));

    const orders = await ordersOf(on, subscriptionId);
    expect(orders.map((o) => o.billing_reason)).toEqual([
      "subscription_create",
      "subscription_update",
    ]);
    const update = orders[1]!;
    expect(update).toMatchObject({ status: "paid", subtotal_amount: 2000, net_amount: 2000 });
    expect(update.total_amount).toBe(2000 + update.tax_amount);
    // One line of the new plan's price: no credit for the old plan's unused half.
    expect(update.items.map((i: { label: string; amount: number }) => [i.label, i.amount])).toEqual(
      [["Reset pro", 2000]],
    );

    const events = (await eventsOf(t, on.organizationId))
      .slice(seen)
      .filter((e) => (e.payload.data as { id?: string }).id === subscriptionId)
      .map((e) => e.type);
    expect(events).toContain("subscription.updated");
    expect(events).not.toContain("subscription.cycled");

    // The next renewal is a month after the change, of the new plan alone.
    await advance(on, { to: sub.current_period_end });
    const renewals = (await ordersOf(on, subscriptionId)).filter(
      (o) => o.billing_reason === "subscription_cycle",
    );
    expect(renewals.map((o) => o.subtotal_amount)).toEqual([2000]);
  });

  it("settles a prorate change still waiting with the reset's order", async () => {
    const basic = await monthlyProduct(on, "Waiting basic", 1000);
    const mid = await monthlyProduct(on, "Waiting mid", 2000);
    const pro = await monthlyProduct(on, "Waiting pro", 3000);
    const { subscriptionId } = await subscribe(on, basic.id);
    await toMidPeriod(on, subscriptionId);
    const prorated = await patch(on, subscriptionId, {
      product_id: mid.id,
      proration_behavior: "prorate",
    });
    expect(prorated.status, JSON.stringify(prorated.body)).toBe(200);
    const res = await patch(on, subscriptionId, {
      product_id: pro.id,
      proration_behavior: "reset",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [update] = (await ordersOf(on, subscriptionId)).filter(
      (o) => o.billing_reason === "subscription_update",
    );
    const lines = update!.items.map((i: { label: string; amount: number }) => [i.label, i.amount]);
    // About half a month of 20.00 − 10.00, waiting since the prorate change, and the new plan.
    expect(lines).toHaveLength(2);
    expect(lines[0][0]).toBe("Plan change (prorated)");
    expect(lines[0][1]).toBeGreaterThanOrEqual(480);
    expect(lines[0][1]).toBeLessThanOrEqual(520);
    expect(lines[1]).toEqual(["Waiting pro", 3000]);
    expect(update!.subtotal_amount).toBe(3000 + lines[0][1]);
    // Nothing is left to carry to the renewal.
    const sub = await subscriptionOf(on, subscriptionId);
    await advance(on, { to: sub.current_period_end });
    const [renewal] = (await ordersOf(on, subscriptionId)).filter(
      (o) => o.billing_reason === "subscription_cycle",
    );
    expect(renewal!.subtotal_amount).toBe(3000);
  });

  it("the organization's reset default applies to a change that names no behavior", async () => {
    const s = await billingSeller(t);
    await enableResetProration(t.url, s);
    await setSubscriptionSettings(t.url, s, { proration_behavior: "reset" });
    const basic = await monthlyProduct(s, "Default basic", 1000);
    const pro = await monthlyProduct(s, "Default pro", 2000);
    const { subscriptionId } = await subscribe(s, basic.id);
    await toMidPeriod(s, subscriptionId);
    const res = await patch(s, subscriptionId, { product_id: pro.id });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const orders = await ordersOf(s, subscriptionId);
    expect(orders.map((o) => [o.billing_reason, o.subtotal_amount])).toEqual([
      ["subscription_create", 1000],
      ["subscription_update", 2000],
    ]);
  });

  it("a reset seat change bills the new seats' full price for a new period", async () => {
    const id = await buySeats(on, await seatProduct(on.call, "Reset seats"), 2);
    const from = Date.parse(await toMidPeriod(on, id));
    const res = await patch(on, id, { seats: 3, proration_behavior: "reset" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const sub = await subscriptionOf(on, id);
    expect(sub.seats).toBe(3);
    expect(Date.parse(sub.current_period_start)).toBeGreaterThanOrEqual(from);
    expect(Date.parse(sub.current_period_start)).toBeLessThanOrEqual(await clockNow(on));
    expect(sub.current_period_end).toBe(monthAfter(sub.current_period_start));
    const orders = await ordersOf(on, id);
    expect(orders.map((o) => [o.billing_reason, o.seats, o.subtotal_amount])).toEqual([
      ["subscription_create", 2, 2000],
      ["subscription_update", 3, 3000],
    ]);
  });

  it("a declined charge is a 402 and leaves the subscription as it was", async () => {
    const basic = await monthlyProduct(on, "Declined basic", 1000);
    const pro = await monthlyProduct(on, "Declined pro", 2000);
    const { subscriptionId } = await subscribe(on, basic.id, "sandbox_token_renewal_declined");
    await toMidPeriod(on, subscriptionId);
    const before = await subscriptionOf(on, subscriptionId);
    const res = await patch(on, subscriptionId, {
      product_id: pro.id,
      proration_behavior: "reset",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(402);
    const after = await subscriptionOf(on, subscriptionId);
    expect(after).toMatchObject({
      status: "active",
      product_id: basic.id,
      amount: 1000,
      current_period_start: before.current_period_start,
      current_period_end: before.current_period_end,
    });
    expect(await reasons(on, subscriptionId)).toEqual(["subscription_create"]);
  });

  it("a trialing subscription moved to a plan without a trial ends it and is billed now", async () => {
    const trial = await monthlyProduct(on, "Reset trial", 1000, 14);
    const pro = await monthlyProduct(on, "Reset after trial", 2000);
    const { subscriptionId } = await subscribe(on, trial.id);
    const before = await subscriptionOf(on, subscriptionId);
    expect(before.status).toBe("trialing");
    const now = new Date(Date.parse(before.current_period_start) + 7 * DAY).toISOString();
    await advance(on, { to: now });
    const res = await patch(on, subscriptionId, {
      product_id: pro.id,
      proration_behavior: "reset",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // As Polar's update_product: the new product has no trial, so the trial ends now.
    expect(res.body).toMatchObject({
      status: "active",
      product_id: pro.id,
      current_period_start: res.body.trial_end,
    });
    expect(Date.parse(res.body.trial_end) - Date.parse(now)).toBeLessThan(60_000);
    const orders = await ordersOf(on, subscriptionId);
    expect(orders.map((o) => [o.billing_reason, o.subtotal_amount])).toEqual([
      ["subscription_create", 0],
      ["subscription_cycle", 2000],
    ]);
  });
});
