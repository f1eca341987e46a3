// Plan changes within the period's interval, through the public API and the sandbox clock: invoice,
// prorate and next_period billing, tax, discounts, a declined charge, the portal, and refusals.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  advance,
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
  // German VAT for the customers a test places there; everyone else buys from the US, untaxed.
  t = await startTestServer({ env: { TAX_RATES: "DE:1900" } });
  s = await billingSeller(t);
});
afterAll(() => t.stop());

const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();
const monthly = (name: string, amount: number) => monthlyProduct(s, name, amount);
const patch = (id: string, body: unknown) =>
  s.call(`/v1/subscriptions/${id}`, { method: "PATCH", body });

describe("plan changes", () => {
  it("an invoice upgrade at mid-period charges about half the difference in a subscription_update order", async () => {
    const basic = await monthly("Basic", 1000);
    const pro = await monthly("Pro plan", 3000);
    const { subscriptionId } = await subscribe(s, basic.id);
    const sub = await subscriptionOf(s, subscriptionId);
    const half = (Date.parse(sub.current_period_end) - Date.parse(sub.current_period_start)) / 2;
    await advance(s, { to: plus(sub.current_period_start, half) });
    const changed = await patch(subscriptionId, {
      product_id: pro.id,
      proration_behavior: "invoice",
    });
    expect(changed.status).toBe(200);
    expect(changed.body.product_id).toBe(pro.id);
    // Its amount is the new plan's from now on (what lists, webhooks, the portal and MRR show).
    expect(changed.body.amount).toBe(3000);
    const update = (await ordersOf(s, subscriptionId)).find(
      (o) => o.billing_reason === "subscription_update",
    );
    expect(update).toMatchObject({ status: "paid" });
    expect(update!.total_amount).toBeGreaterThanOrEqual(990);
    expect(update!.total_amount).toBeLessThanOrEqual(1010);
    await advance(s, { to: sub.current_period_end });
    const [cycle] = (await ordersOf(s, subscriptionId)).filter(
      (o) => o.billing_reason === "subscription_cycle",
    );
    expect(cycle).toMatchObject({ total_amount: 3000, product_id: pro.id });
  });

  it("an invoice change is taxed as the customer's renewals are, and a credit gives the tax back", async () => {
    const basic = await monthly("Basic taxed", 1000);
    const pro = await monthly("Pro taxed", 3000);
    const { subscriptionId } = await subscribe(s, basic.id, undefined, undefined, "DE");
    const sub = await subscriptionOf(s, subscriptionId);
    const half = (Date.parse(sub.current_period_end) - Date.parse(sub.current_period_start)) / 2;
    await advance(s, { to: plus(sub.current_period_start, half) });
    const change = async (productId: string) => {
      const res = await patch(subscriptionId, {
        product_id: productId,
        proration_behavior: "invoice",
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return (await ordersOf(s, subscriptionId))
        .filter((o) => o.billing_reason === "subscription_update")
        .at(-1)!;
    };
    const check = (o: Record<string, any>) => {
      expect(o.tax_amount).toBe(
        o.items.reduce((sum: number, i: { tax_amount: number }) => sum + i.tax_amount, 0),
      );
      expect(Math.abs(o.tax_amount - Math.round(o.subtotal_amount * 0.19))).toBeLessThanOrEqual(1);
      expect(o.total_amount).toBe(o.subtotal_amount + o.tax_amount);
    };
    const up = await change(pro.id);
    expect(up.subtotal_amount).toBeGreaterThan(900);
    check(up);
    const down = await change(basic.id);
    expect(down.subtotal_amount).toBeLessThan(-900);
    check(down);
  });

  it("a prorate downgrade's credit beyond its cycle order gives the tax back too", async () => {
    const pro = await monthly("Pro credit taxed", 3000);
    const basic = await monthly("Basic credit taxed", 500);
    const { subscriptionId } = await subscribe(s, pro.id, undefined, undefined, "DE");
    const sub = await subscriptionOf(s, subscriptionId);
    const half = (Date.parse(sub.current_period_end) - Date.parse(sub.current_period_start)) / 2;
    await advance(s, { to: plus(sub.current_period_start, half) });
    const res = await patch(subscriptionId, {
      product_id: basic.id,
      proration_behavior: "prorate",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await advance(s, { to: sub.current_period_end });
    const cycle = (await ordersOf(s, subscriptionId)).find(
      (o) => o.billing_reason === "subscription_cycle",
    )!;
    // 500 for the new period and half of the 2500 difference credited: about −750 net, and its
    // 19 % back.
    expect(cycle.net_amount).toBeLessThan(-740);
    expect(cycle.tax_amount).toBe(-Math.round(-cycle.net_amount * 0.19));
    expect(cycle.total_amount).toBe(cycle.net_amount + cycle.tax_amount);
  });

  it("an invoice upgrade prorates net of the discount and records its payment", async () => {
    const basic = await monthly("Basic discounted", 1000);
    const pro = await monthly("Pro discounted", 3000);
    const half = await s.polar.discounts.create({
      name: "Half forever",
      type: "percentage",
      basisPoints: 5000,
      duration: "forever",
    });
    const { subscriptionId } = await subscribe(s, basic.id);
    expect((await patch(subscriptionId, { discount_id: half.id })).status).toBe(200);
    const sub = await subscriptionOf(s, subscriptionId);
    const mid = (Date.parse(sub.current_period_end) - Date.parse(sub.current_period_start)) / 2;
    await advance(s, { to: plus(sub.current_period_start, mid) });
    const changed = await patch(subscriptionId, {
      product_id: pro.id,
      proration_behavior: "invoice",
    });
    expect(changed.status).toBe(200);
    expect(changed.body.amount).toBe(1500);
    const update = (await ordersOf(s, subscriptionId)).find(
      (o) => o.billing_reason === "subscription_update",
    )!;
    // Half of (1500 − 500), not half of (3000 − 1000).
    expect(update.total_amount).toBeGreaterThanOrEqual(495);
    expect(update.total_amount).toBeLessThanOrEqual(505);
    const payments = await s.call(`/v1/payments/?order_id=${update.id}`);
    expect(payments.body.items).toMatchObject([
      { status: "succeeded", amount: update.total_amount, order_id: update.id },
    ]);
  });

  it("a declined plan-change charge changes nothing and is recorded as a failed payment", async () => {
    const basic = await monthly("Basic declined", 1000);
    const pro = await monthly("Pro declined", 3000);
    const { subscriptionId, customerId } = await subscribe(
      s,
      basic.id,
      "sandbox_token_renewal_declined",
    );
    const res = await patch(subscriptionId, { product_id: pro.id, proration_behavior: "invoice" });
    expect(res.status).toBe(402);
    expect((await subscriptionOf(s, subscriptionId)).product_id).toBe(basic.id);
    const payments = await s.call(`/v1/payments/?customer_id=${customerId}&status=failed`);
    expect(payments.body.items).toHaveLength(1);
    expect(payments.body.items[0]).toMatchObject({
      order_id: null,
      decline_reason: "card_declined",
    });
  });

  it("next_period records a pending update applied at the renewal; clearing it keeps the plan", async () => {
    const small = await monthly("Small", 2000);
    const large = await monthly("Large", 5000);
    const { subscriptionId } = await subscribe(s, small.id);
    const changed = await patch(subscriptionId, {
      product_id: large.id,
      proration_behavior: "next_period",
    });
    expect(changed.body).toMatchObject({ product_id: small.id, amount: 2000 });
    expect(changed.body.pending_update).toMatchObject({
      product_id: large.id,
      applies_at: changed.body.current_period_end,
    });
    await advance(s, { to: changed.body.current_period_end });
    const after = await subscriptionOf(s, subscriptionId);
    expect(after).toMatchObject({ product_id: large.id, pending_update: null, amount: 5000 });
    const [cycle] = (await ordersOf(s, subscriptionId)).filter(
      (o) => o.billing_reason === "subscription_cycle",
    );
    expect(cycle).toMatchObject({ total_amount: 5000, product_id: large.id });

    const other = await subscribe(s, small.id);
    await patch(other.subscriptionId, { product_id: large.id, proration_behavior: "next_period" });
    const cleared = await patch(other.subscriptionId, { pending_update: null });
    expect(cleared.body.pending_update).toBeNull();
    await advance(s, { to: cleared.body.current_period_end });
    expect((await subscriptionOf(s, other.subscriptionId)).product_id).toBe(small.id);
  });

  it("the portal changes the plan with the organization's prorate: the difference is on the next cycle order", async () => {
    const basic = await monthly("Portal basic", 1000);
    const pro = await monthly("Portal pro", 3000);
    const { subscriptionId, customerId } = await subscribe(s, basic.id);
    const sub = await subscriptionOf(s, subscriptionId);
    const half = (Date.parse(sub.current_period_end) - Date.parse(sub.current_period_start)) / 2;
    await advance(s, { to: plus(sub.current_period_start, half) });
    const session = await s.polar.customerSessions.create({ customerId });
    const res = await fetch(`${t.url}/v1/customer-portal/subscriptions/${subscriptionId}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${session.token}`, "content-type": "application/json" },
      body: JSON.stringify({ product_id: pro.id }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { product_id: string }).product_id).toBe(pro.id);
    expect(
      (await ordersOf(s, subscriptionId)).filter((o) => o.billing_reason === "subscription_update"),
    ).toHaveLength(0);
    await advance(s, { to: sub.current_period_end });
    const [cycle] = (await ordersOf(s, subscriptionId)).filter(
      (o) => o.billing_reason === "subscription_cycle",
    );
    expect(cycle!.items.map((i: { amount: number }) => i.amount)).toContain(3000);
    expect(cycle!.total_amount).toBeGreaterThanOrEqual(3990);
    expect(cycle!.total_amount).toBeLessThanOrEqual(4010);
    expect(cycle!.items.some((i: { proration: boolean }) => i.proration)).toBe(true);
  });

  it("refuses a product of nothing recurring with a 422 and changes nothing", async () => {
    const plan = await monthly("Kept", 1000);
    const oneTime = await s.polar.products.create({
      name: "Ebook",
      prices: [{ amountType: "fixed", priceAmount: 900, priceCurrency: "usd" }],
    });
    const { subscriptionId } = await subscribe(s, plan.id);
    const res = await patch(subscriptionId, {
      product_id: oneTime.id,
      proration_behavior: "invoice",
    });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(["body", "product_id"]);
    expect((await subscriptionOf(s, subscriptionId)).product_id).toBe(plan.id);
  });

  it("refuses a product without a price in the subscription's currency, and a bad rest of the update, before charging", async () => {
    const plan = await monthly("Kept in dollars", 1000);
    const euros = await s.polar.products.create({
      name: "Euro plan",
      recurringInterval: "month",
      prices: [{ amountType: "fixed", priceAmount: 900, priceCurrency: "eur" }],
    });
    const pro = await monthly("Pro kept", 3000);
    const { subscriptionId } = await subscribe(s, plan.id);
    const before = await ordersOf(s, subscriptionId);
    const currency = await patch(subscriptionId, {
      product_id: euros.id,
      proration_behavior: "prorate",
    });
    expect(currency.status).toBe(422);
    expect(currency.body.detail[0].loc).toEqual(["body", "product_id"]);
    expect(currency.body.detail[0].msg).toBe(
      "This product doesn't have a price for the subscription currency.",
    );
    // An unknown discount, or a trial end in the past, with a plan change: nothing is changed or
    // charged, where the plan change used to commit before the rest was refused.
    for (const rest of [
      { discount_id: "00000000-0000-4000-8000-000000000000" },
      { trial_end: "2001-01-01T00:00:00Z" },
    ]) {
      const res = await patch(subscriptionId, {
        product_id: pro.id,
        proration_behavior: "invoice",
        ...rest,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(422);
    }
    const after = await subscriptionOf(s, subscriptionId);
    expect(after).toMatchObject({ product_id: plan.id, amount: 1000, modified_at: null });
    expect(await ordersOf(s, subscriptionId)).toHaveLength(before.length);

    // A product priced in both currencies: only its dollar price is the subscription's.
    const both = await s.polar.products.create({
      name: "Pro in two currencies",
      recurringInterval: "month",
      prices: [
        { amountType: "fixed", priceAmount: 2000, priceCurrency: "usd" },
        { amountType: "fixed", priceAmount: 1800, priceCurrency: "eur" },
      ],
    });
    const sub = await subscriptionOf(s, subscriptionId);
    const half = (Date.parse(sub.current_period_end) - Date.parse(sub.current_period_start)) / 2;
    await advance(s, { to: plus(sub.current_period_start, half) });
    const moved = await patch(subscriptionId, {
      product_id: both.id,
      proration_behavior: "invoice",
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body).toMatchObject({ amount: 2000, currency: "usd" });
    expect(moved.body.prices.map((p: { price_currency: string }) => p.price_currency)).toEqual([
      "usd",
    ]);
    const update = (await ordersOf(s, subscriptionId)).find(
      (o) => o.billing_reason === "subscription_update",
    )!;
    // Half of the 1000 difference, give or take a second's rounding.
    expect(Math.abs(update.subtotal_amount - 500)).toBeLessThanOrEqual(2);
  });

  it("a bad value in an update names its field, whichever of the update's shapes it belongs to", async () => {
    const plan = await monthly("Named", 1000);
    const { subscriptionId } = await subscribe(s, plan.id);
    const cases: [Record<string, unknown>, string, string][] = [
      [{ product_id: plan.id, proration_behavior: "bogus" }, "proration_behavior", "enum"],
      [{ pause_at_period_end: "yes" }, "pause_at_period_end", "boolean_type"],
      [{ seats: "x" }, "seats", "number_type"],
      [{ seats: 10_001, proration_behavior: "invoice" }, "seats", "less_than_equal"],
      [{ seats: 0 }, "seats", "greater_than_equal"],
      [{ resumes_at: "2030-01-01T00:00:00Z" }, "pause_at_period_end", "missing"],
      [{ bogus: 1 }, "", "extra_forbidden"],
      [
        { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) },
        "metadata",
        "value_error",
      ],
    ];
    for (const [body, field, type] of cases) {
      const res = await patch(subscriptionId, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.detail[0], JSON.stringify(body)).toMatchObject({
        loc: field ? ["body", field] : ["body"],
        type,
      });
    }
    expect((await subscriptionOf(s, subscriptionId)).modified_at).toBeNull();
    // A body that is not JSON is refused, not read as no body (which changed nothing, with a 200).
    for (const [type, body] of [
      ["application/x-www-form-urlencoded", "cancel_at_period_end=true"],
      ["text/plain", JSON.stringify({ cancel_at_period_end: true })],
    ]) {
      const res = await fetch(`${t.url}/v1/subscriptions/${subscriptionId}`, {
        method: "PATCH",
        headers: { authorization: `Bearer ${s.token}`, "content-type": type! },
        body,
      });
      expect(res.status, type).toBe(415);
      expect(await res.json()).toMatchObject({ error: "UnsupportedMediaType" });
    }
    expect((await subscriptionOf(s, subscriptionId)).cancel_at_period_end).toBe(false);
  });
});

// As Polar's DiscountPercentage.get_discount_amount: a float product rounded half away from zero.
// 35% of 1290 is 451.49999999999994 there, so 451, where exact half-up arithmetic gives 452.
describe("percentage discounts rounded as Polar rounds them", () => {
  const pct = async () => {
    const res = await s.call("/v1/discounts/", {
      body: { name: "Thirty-five", type: "percentage", basis_points: 3500, duration: "forever" },
    });
    return res.body.id as string;
  };

  it("a renewal, a discount set by PATCH and a plan change all take 451 off 1290", async () => {
    const discountId = await pct();
    const big = await monthly("Rounded at 1290", 1290);
    const bought = await subscribe(s, big.id, undefined, undefined, undefined, discountId);
    const sub = await subscriptionOf(s, bought.subscriptionId);
    expect(sub.amount).toBe(839);
    await advance(s, { to: sub.current_period_end });
    const orders = await ordersOf(s, bought.subscriptionId);
    expect(orders.map((o) => [o.billing_reason, o.discount_amount, o.net_amount])).toEqual([
      ["subscription_create", 451, 839],
      ["subscription_cycle", 451, 839],
    ]);

    const patched = await subscribe(s, big.id);
    const set = await patch(patched.subscriptionId, { discount_id: discountId });
    expect([set.status, set.body.amount]).toEqual([200, 839]);

    const small = await monthly("Rounded from 500", 500);
    const moved = await subscribe(s, small.id, undefined, undefined, undefined, discountId);
    const changed = await patch(moved.subscriptionId, {
      product_id: big.id,
      proration_behavior: "prorate",
    });
    expect([changed.status, changed.body.amount]).toEqual([200, 839]);
  });
});
