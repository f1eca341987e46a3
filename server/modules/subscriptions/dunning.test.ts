// Failed renewals through the public API and the sandbox clock: the renewal-declined card pays at
// checkout and declines every renewal; the subscription goes past_due with a pending order, retries
// on the configured schedule, and after the last failure ends with its benefits revoked and the
// customer emailed. A trial is charged once, at its end.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "../../../test/helpers/auth.ts";
import {
  advance,
  billingSeller,
  ingestHourly,
  meteredPlan,
  ordersOf,
  subscribe,
  subscriptionOf,
  type BillingSeller,
} from "../../../test/helpers/billing.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { openMailLink } from "../../../test/helpers/browser.ts";
import { waitFor } from "../../../test/helpers/webhook-receiver.ts";
import { US_ADDRESS_SDK } from "../../../test/helpers/addresses.ts";

let t: TestServer;
let s: BillingSeller;

beforeAll(async () => {
  t = await startTestServer({ env: { DUNNING_RETRY_DAYS: "3,5,7" } });
  s = await billingSeller(t);
});
afterAll(() => t.stop());

const DAY = 86_400_000;
const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();

async function grantsOf(customerId: string) {
  const res = await s.call(`/v1/benefit-grants/?customer_id=${customerId}`);
  return res.body.items as { is_granted: boolean; is_revoked: boolean }[];
}

describe("dunning", () => {
  it("past_due on a declined renewal, retries 3, 5 and 7 days apart, then ends with benefits revoked", async () => {
    const benefit = await s.polar.benefits.create({
      type: "custom",
      description: "Members area",
      properties: {},
    });
    const product = await s.polar.products.create({
      name: "Declining",
      recurringInterval: "month",
      prices: [{ amountType: "fixed", priceAmount: 900, priceCurrency: "usd" }],
    });
    await s.polar.products.updateBenefits({
      id: product.id,
      productBenefitsUpdate: { benefits: [benefit.id] },
    });
    const email = "declines@example.com";
    const { subscriptionId, customerId } = await subscribe(
      s,
      product.id,
      "sandbox_token_renewal_declined",
      email,
    );
    await waitFor(
      async () => (await grantsOf(customerId)).some((g) => g.is_granted),
      10_000,
      "benefit granted",
    );
    const end = (await subscriptionOf(s, subscriptionId)).current_period_end as string;

    await advance(s, { to: end });
    let sub = await subscriptionOf(s, subscriptionId);
    expect(sub.status).toBe("past_due");
    expect(sub.past_due_at).toBe(end);
    let [cycle] = (await ordersOf(s, subscriptionId)).filter(
      (o) => o.billing_reason === "subscription_cycle",
    );
    expect(cycle).toMatchObject({ status: "pending", total_amount: 900, paid: false });
    expect(cycle!.next_payment_attempt_at).toBe(plus(end, 3 * DAY));

    // Just before the first retry nothing happens; at it, the next is 5 days later.
    await advance(s, { to: plus(end, 3 * DAY - 1000) });
    expect((await subscriptionOf(s, subscriptionId)).status).toBe("past_due");
    await advance(s, { to: plus(end, 3 * DAY) });
    [cycle] = (await ordersOf(s, subscriptionId)).filter(
      (o) => o.billing_reason === "subscription_cycle",
    );
    expect(cycle!.next_payment_attempt_at).toBe(plus(end, 8 * DAY));

    // One advance past the remaining retries (day 8, then day 15) ends it.
    await advance(s, { to: plus(end, 20 * DAY) });
    sub = await subscriptionOf(s, subscriptionId);
    expect(sub.status).toBe("canceled");
    expect(sub.ended_at).toBe(plus(end, 15 * DAY));
    const orders = await ordersOf(s, subscriptionId);
    expect(orders.filter((o) => o.billing_reason === "subscription_cycle")).toHaveLength(1);
    expect(orders.find((o) => o.billing_reason === "subscription_cycle")!.status).toBe("void");
    await waitFor(
      async () => (await grantsOf(customerId)).every((g) => g.is_revoked),
      10_000,
      "benefit revoked",
    );

    const attempts = await t.server.database.rows<{ n: number }>(
      sql`select count(*)::int as n from sandbox_charges where idempotency_key like ${`renewal:${subscriptionId}:%`}`,
    );
    expect(attempts[0]!.n).toBe(4);
    // Each failure's mail is sent by the job queued with it, once the failure has committed.
    const mailsOf = () =>
      t.server.database.rows<{ kind: string; text: string; link: string }>(
        sql`select kind, text, link from email_outbox where "to" = ${email} order by created_at`,
      );
    await waitFor(
      async () => (await mailsOf()).filter((m) => m.kind !== "receipt").length >= 4,
      10_000,
      "the four dunning mails",
    );
    const mails = await mailsOf();
    // No grace period (the default): access is paused, and the mail says when dunning gives up,
    // 3 + 5 + 7 days after the first failure.
    const failed = mails.find((m) => m.kind === "payment-failed")!;
    expect(failed.text).toContain("Your access is paused until the payment goes through.");
    expect(failed.text).toContain(`the subscription ends on ${plus(end, 15 * DAY).slice(0, 10)}.`);
    // Its link opens the customer's portal signed in, where the card is changed.
    const link = new URL(openMailLink(failed.link));
    expect(link.pathname).toBe("/portal");
    const session = link.searchParams.get("customer_session_token")!;
    const me = await api(t.url, "/v1/customer-portal/customers/me", { token: session });
    expect(me.status).toBe(200);
    expect(me.body.email).toBe(email);
    // The purchase's receipt goes out from the worker, in its own time; the dunning mails in order.
    const dunning = mails.filter((m) => m.kind !== "receipt");
    expect(dunning.map((m) => m.kind)).toEqual([
      "payment-failed",
      "payment-failed",
      "payment-failed",
      "subscription-ended-unpaid",
    ]);
    // Every one names what it is about, the retries' and the last one's too.
    for (const m of dunning) expect(m.text).toContain("your Declining subscription");
    const events = await t.server.database.rows<{ type: string }>(
      sql`select type from webhook_events where organization_id = ${s.organizationId} and type like 'subscription.%' and payload->'data'->>'id' = ${subscriptionId} order by seq`,
    );
    expect(events.map((e) => e.type)).toEqual([
      "subscription.created",
      "subscription.active",
      "subscription.updated",
      "subscription.past_due",
      "subscription.cycled",
      "subscription.updated",
      "subscription.canceled",
      "subscription.revoked",
    ]);
  });
});

describe("an issuer's do-not-retry decline", () => {
  it("skips the schedule: one last attempt at the deadline, then the subscription ends", async () => {
    const product = await s.polar.products.create({
      name: "Lost card",
      recurringInterval: "month",
      prices: [{ amountType: "fixed", priceAmount: 900, priceCurrency: "usd" }],
    });
    const { subscriptionId } = await subscribe(s, product.id, "sandbox_token_renewal_lost_card");
    const sub = await subscriptionOf(s, subscriptionId);
    await advance(s, { to: sub.current_period_end });
    const [owed] = (await ordersOf(s, subscriptionId)).filter(
      (o) => o.billing_reason === "subscription_cycle",
    );
    // Past due, and next tried at the deadline: 3 + 5 + 7 days after the failure.
    expect(await subscriptionOf(s, subscriptionId)).toMatchObject({ status: "past_due" });
    expect(owed).toMatchObject({
      status: "pending",
      next_payment_attempt_at: plus(sub.current_period_end, 15 * DAY),
    });
    await advance(s, { to: plus(sub.current_period_end, 14 * DAY) });
    const attempts = async () =>
      (await s.call(`/v1/payments/?order_id=${owed!.id}`)).body.items as unknown[];
    // The seller sees why: the issuer's reason, not a bare card_declined.
    expect(await attempts()).toMatchObject([
      {
        status: "failed",
        decline_reason: "lost_card",
        decline_message: "Your card was declined: the issuer reports it lost.",
      },
    ]);
    await advance(s, { to: plus(sub.current_period_end, 15 * DAY) });
    expect(await attempts()).toHaveLength(2);
    expect((await subscriptionOf(s, subscriptionId)).status).toBe("canceled");
    const [voided] = (await ordersOf(s, subscriptionId)).filter(
      (o) => o.billing_reason === "subscription_cycle",
    );
    expect(voided!.status).toBe("void");
  });
});

describe("revoking a past_due subscription", () => {
  it("voids its pending order and stops the retries", async () => {
    const product = await s.polar.products.create({
      name: "Revoked while past due",
      recurringInterval: "month",
      prices: [{ amountType: "fixed", priceAmount: 500, priceCurrency: "usd" }],
    });
    const { subscriptionId } = await subscribe(s, product.id, "sandbox_token_renewal_declined");
    const end = (await subscriptionOf(s, subscriptionId)).current_period_end as string;
    await advance(s, { to: end });
    expect((await subscriptionOf(s, subscriptionId)).status).toBe("past_due");
    const revoked = await s.call(`/v1/subscriptions/${subscriptionId}`, { method: "DELETE" });
    expect(revoked.status).toBe(200);
    expect(revoked.body.status).toBe("canceled");
    await advance(s, { to: plus(end, 30 * DAY) });
    const [cycle] = (await ordersOf(s, subscriptionId)).filter(
      (o) => o.billing_reason === "subscription_cycle",
    );
    expect(cycle).toMatchObject({ status: "void", next_payment_attempt_at: null });
    const attempts = await t.server.database.rows<{ n: number }>(
      sql`select count(*)::int as n from sandbox_charges where idempotency_key like ${`renewal:${subscriptionId}:%`}`,
    );
    expect(attempts[0]!.n).toBe(1);
  });
});

describe("revoking a past_due subscription with usage", () => {
  it("bills the usage since the failed renewal once, beside the voided renewal", async () => {
    const plan = await meteredPlan(s, { name: "pastdue", interval: "month", credit: 0 });
    const { subscriptionId, customerId } = await subscribe(
      s,
      plan.product.id,
      "sandbox_token_renewal_declined",
    );
    const sub = await subscriptionOf(s, subscriptionId);
    const end = sub.current_period_end as string;
    await ingestHourly(s, plan.event, customerId, sub.current_period_start, 3);
    await advance(s, { to: end });
    expect((await subscriptionOf(s, subscriptionId)).status).toBe("past_due");
    await ingestHourly(s, plan.event, customerId, end, 5);
    await advance(s, { to: plus(end, 2 * DAY) });
    const revoked = await s.call(`/v1/subscriptions/${subscriptionId}`, { method: "DELETE" });
    expect(revoked.body.status).toBe("canceled");
    await advance(s, { to: plus(end, 30 * DAY) });
    const orders = (await ordersOf(s, subscriptionId)).filter(
      (o) => o.billing_reason !== "subscription_create",
    );
    // The renewal carries the first month's 3 calls; the 5 made since are billed at the revoke.
    // Both are voided with it, as every pending order of a revoked subscription is (Polar).
    expect(orders.map((o) => [o.billing_reason, o.subtotal_amount, o.status])).toEqual([
      ["subscription_cycle", 10_030, "void"],
      ["subscription_meter_cycle", 50, "void"],
    ]);
    expect(orders[1]!.created_at).toBe(revoked.body.ended_at);
  });
});

describe("a change while past_due", () => {
  it("keeps the retries going: a metadata PATCH, then a prorate plan change", async () => {
    const plan = (name: string, amount: number) =>
      s.polar.products.create({
        name,
        recurringInterval: "month",
        prices: [{ amountType: "fixed", priceAmount: amount, priceCurrency: "usd" }],
      });
    const basic = await plan("Basic while past due", 1000);
    const pro = await plan("Pro while past due", 2000);
    const { subscriptionId } = await subscribe(s, basic.id, "sandbox_token_renewal_declined");
    const end = (await subscriptionOf(s, subscriptionId)).current_period_end as string;
    await advance(s, { to: end });
    expect((await subscriptionOf(s, subscriptionId)).status).toBe("past_due");

    const patch = (body: object) =>
      s.call(`/v1/subscriptions/${subscriptionId}`, { method: "PATCH", body });
    expect((await patch({ metadata: { plan: "kept" } })).status).toBe(200);
    expect((await patch({ product_id: pro.id, proration_behavior: "prorate" })).status).toBe(200);
    const attempts = async () =>
      (await ordersOf(s, subscriptionId)).find((o) => o.billing_reason === "subscription_cycle")!;
    await advance(s, { to: plus(end, 3 * DAY) });
    expect((await attempts()).next_payment_attempt_at).toBe(plus(end, 8 * DAY));
    await advance(s, { to: plus(end, 15 * DAY) });
    const sub = await subscriptionOf(s, subscriptionId);
    expect(sub.status).toBe("canceled");
    expect(sub.ended_at).toBe(plus(end, 15 * DAY));
  });
});

describe("trials", () => {
  it("a 7-day trial takes no money, is trialing with its dates, and is charged once at its end", async () => {
    const product = await s.polar.products.create({
      name: "Trial plan",
      recurringInterval: "month",
      trialInterval: "day",
      trialIntervalCount: 7,
      prices: [{ amountType: "fixed", priceAmount: 2000, priceCurrency: "usd" }],
    });
    // The checkout says so before anything is paid: a card is set up, nothing is paid now.
    const offered = await s.call("/v1/checkouts/", { body: { products: [product.id] } });
    expect(offered.body).toMatchObject({
      active_trial_interval: "day",
      active_trial_interval_count: 7,
      is_payment_required: false,
      is_payment_setup_required: true,
      is_payment_form_required: true,
    });
    expect(Date.parse(offered.body.trial_end) - Date.parse(offered.body.created_at)).toBe(7 * DAY);
    const { subscriptionId } = await subscribe(s, product.id);
    const sub = await subscriptionOf(s, subscriptionId);
    expect(sub.status).toBe("trialing");
    expect(Date.parse(sub.trial_end) - Date.parse(sub.trial_start)).toBe(7 * DAY);
    expect(sub.current_period_end).toBe(sub.trial_end);
    let orders = await ordersOf(s, subscriptionId);
    expect(orders).toHaveLength(1);
    expect(orders[0]).toMatchObject({ billing_reason: "subscription_create", total_amount: 0 });

    await advance(s, { to: plus(sub.trial_end, -1000) });
    expect((await subscriptionOf(s, subscriptionId)).status).toBe("trialing");
    await advance(s, { to: sub.trial_end });
    await advance(s, { to: sub.trial_end });
    const after = await subscriptionOf(s, subscriptionId);
    expect(after.status).toBe("active");
    expect(after.current_period_start).toBe(sub.trial_end);
    orders = await ordersOf(s, subscriptionId);
    const charged = orders.filter((o) => o.total_amount > 0);
    expect(charged).toHaveLength(1);
    expect(charged[0]).toMatchObject({
      billing_reason: "subscription_cycle",
      status: "paid",
      total_amount: 2000,
    });
  });

  it("a checkout's own trial overrides the product's; allow_trial false sells without one", async () => {
    const product = await s.polar.products.create({
      name: "No trial plan",
      recurringInterval: "month",
      prices: [{ amountType: "fixed", priceAmount: 1500, priceCurrency: "usd" }],
    });
    const confirmed = async (body: Record<string, unknown>) => {
      const created = await s.call("/v1/checkouts/", { body: { products: [product.id], ...body } });
      expect(created.status).toBe(201);
      await s.polar.checkouts.clientUpdate({
        clientSecret: created.body.client_secret,
        checkoutUpdatePublic: {
          customerEmail: `t-${Math.random().toString(36).slice(2, 8)}@example.com`,
          customerBillingAddress: US_ADDRESS_SDK,
        },
      });
      await s.polar.checkouts.clientConfirm({
        clientSecret: created.body.client_secret,
        checkoutConfirmStripe: { confirmationTokenId: "sandbox_token_success" },
      });
      const [order] = (await s.polar.orders.list({ checkoutId: created.body.id })).result.items;
      return { created: created.body, sub: await subscriptionOf(s, order!.subscriptionId!), order };
    };
    const three = await confirmed({ trial_interval: "day", trial_interval_count: 3 });
    expect(three.created).toMatchObject({
      trial_interval: "day",
      trial_interval_count: 3,
      active_trial_interval: "day",
      active_trial_interval_count: 3,
      is_payment_required: false,
    });
    expect(three.sub.status).toBe("trialing");
    expect(Date.parse(three.sub.trial_end) - Date.parse(three.sub.trial_start)).toBe(3 * DAY);
    expect(three.order!.totalAmount).toBe(0);

    const trialProduct = await s.polar.products.create({
      name: "Trial plan, no trial here",
      recurringInterval: "month",
      trialInterval: "week",
      trialIntervalCount: 2,
      prices: [{ amountType: "fixed", priceAmount: 1500, priceCurrency: "usd" }],
    });
    const created = await s.call("/v1/checkouts/", {
      body: { products: [trialProduct.id], allow_trial: false },
    });
    expect(created.body).toMatchObject({
      allow_trial: false,
      active_trial_interval: null,
      trial_end: null,
      is_payment_required: true,
    });
    // The seller's own trial on the session, set later, then cleared.
    const set = await s.call(`/v1/checkouts/${created.body.id}`, {
      method: "PATCH",
      body: { trial_interval: "month" },
    });
    expect(set.body).toMatchObject({ trial_interval: "month", active_trial_interval: null });
    const bad = await s.call("/v1/checkouts/", {
      body: { products: [product.id], trial_interval: "fortnight" },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(["body", "trial_interval"]);
  });
});
