// The organization's benefit_revocation_grace_period through the public API and the sandbox clock:
// with the default 0 a declined renewal revokes the benefits at once and a paid retry grants them
// again; with 7 days they stay through the retry on day 3 and go at the retry on day 8. A renewal
// worked on its own (the batch's fallback) follows the same rule, and a seat holder's benefits go
// and come back with the buyer's. A retry paid within the grace renews a meter credit for the period
// the renewal started, so the calls made before the retry are not given back; with 0 the credit taken
// back at the failure comes back full for that period, not less the calls of the month before.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "../../../test/helpers/auth.ts";
import {
  advance,
  billingDepsOn,
  billingSeller,
  ingestHourly,
  meteredPlan,
  ordersOf,
  sandboxCard,
  type BillingSeller,
  setSubscriptionSettings,
  subscribe,
  subscriptionOf,
} from "../../../test/helpers/billing.ts";
import { seatsWorld } from "../../../test/helpers/seats.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { waitFor } from "../../../test/helpers/webhook-receiver.ts";
import { runDue } from "./due.ts";

let t: TestServer;
const DAY = 86_400_000;
const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();

beforeAll(async () => {
  t = await startTestServer({ env: { DUNNING_RETRY_DAYS: "3,5,7" } });
});
afterAll(() => t?.stop());

/** A seller whose product grants one custom benefit, and a subscriber whose renewals decline. */
async function decliningSubscriber(s: BillingSeller, name: string) {
  const benefit = await s.polar.benefits.create({
    type: "custom",
    description: name,
    properties: {},
  });
  const product = await s.polar.products.create({
    name,
    recurringInterval: "month",
    prices: [{ amountType: "fixed", priceAmount: 1200, priceCurrency: "usd" }],
  });
  await s.polar.products.updateBenefits({
    id: product.id,
    productBenefitsUpdate: { benefits: [benefit.id] },
  });
  const bought = await subscribe(s, product.id, "sandbox_token_renewal_declined");
  await waitFor(async () => (await grantOf(bought.customerId)).granted, 10_000, "granted");
  const end = (await subscriptionOf(s, bought.subscriptionId)).current_period_end as string;
  return { ...bought, end };
}

/** A subscriber to $100 a month plus $0.10 a call, 10 calls credited, whose renewals decline. */
async function creditedSubscriber(s: BillingSeller, name: string) {
  const plan = await meteredPlan(s, { name, interval: "month", credit: 10 });
  const bought = await subscribe(s, plan.product.id, "sandbox_token_renewal_declined");
  await waitFor(async () => (await grantOf(bought.customerId)).granted, 10_000, "granted");
  const sub = await subscriptionOf(s, bought.subscriptionId);
  return {
    ...bought,
    plan,
    start: sub.current_period_start as string,
    end: sub.current_period_end as string,
  };
}

/** The customer's one grant: granted, and whether a revocation is pending or done. */
async function grantOf(customerId: string) {
  const [row] = await t.server.database.rows<{ granted: boolean; revoking: boolean }>(
    sql`select granted_at is not null as granted,
          (coalesce(pending_action = 'revoke', false) or revoked_at is not null) as revoking
        from benefit_grants where customer_id = ${customerId}`,
  );
  return row ?? { granted: false, revoking: false };
}

/** The buyer saves a new default card in the portal, which retries what they owe at once. */
async function payWithNewCard(call: BillingSeller["call"], customerId: string) {
  const session = await call("/v1/customer-sessions/", { body: { customer_id: customerId } });
  const card = await sandboxCard(t.url, "4242424242424242");
  const added = await api(t.url, "/v1/customer-portal/customers/me/payment-methods", {
    token: session.body.token,
    body: {
      confirmation_token_id: card,
      set_default: true,
      return_url: "https://shop.example.com/account",
    },
  });
  expect(added.status).toBe(201);
}

async function grantEvents(customerId: string): Promise<string[]> {
  const rows = await t.server.database.rows<{ type: string }>(
    sql`select type from webhook_events where type like 'benefit_grant.%'
          and payload->'data'->>'customer_id' = ${customerId} order by seq`,
  );
  return rows.map((r) => r.type);
}

describe("benefit revocation grace period", () => {
  it("0 (the default): a declined renewal revokes the benefits, a paid retry grants them again", async () => {
    const s = await billingSeller(t);
    const { subscriptionId, customerId, end } = await decliningSubscriber(s, "Immediate");
    await advance(s, { to: end });
    expect((await subscriptionOf(s, subscriptionId)).status).toBe("past_due");
    expect((await grantOf(customerId)).revoking).toBe(true);
    await waitFor(async () => !(await grantOf(customerId)).granted, 10_000, "revoked");

    await payWithNewCard(s.call, customerId);
    expect((await subscriptionOf(s, subscriptionId)).status).toBe("active");
    await waitFor(async () => (await grantOf(customerId)).granted, 10_000, "granted again");
    expect(await grantEvents(customerId)).toEqual([
      "benefit_grant.created",
      "benefit_grant.revoked",
      "benefit_grant.updated",
    ]);
  });

  it("7 days: kept through the retry on day 3, revoked at the failed retry on day 8", async () => {
    const s = await billingSeller(t);
    const saved = await setSubscriptionSettings(t.url, s, { benefit_revocation_grace_period: 7 });
    expect(saved.benefit_revocation_grace_period).toBe(7);
    const { subscriptionId, customerId, end } = await decliningSubscriber(s, "Seven days");

    await advance(s, { to: end });
    expect((await subscriptionOf(s, subscriptionId)).status).toBe("past_due");
    expect(await grantOf(customerId)).toEqual({ granted: true, revoking: false });
    // The failed-payment mail says how long access lasts, as Polar's does.
    const { email } = (await s.call(`/v1/customers/${customerId}`)).body as { email: string };
    const mailOf = async () =>
      (
        await t.server.database.rows<{ text: string }>(
          sql`select text from email_outbox where "to" = ${email} and kind = 'payment-failed'`,
        )
      )[0];
    await waitFor(async () => (await mailOf()) !== undefined, 10_000, "the failed-payment mail");
    const mail = await mailOf();
    expect(mail?.text).toContain(`You keep access until ${plus(end, 7 * DAY).slice(0, 10)};`);
    await advance(s, { to: plus(end, 3 * DAY) });
    expect(await grantOf(customerId)).toEqual({ granted: true, revoking: false });
    await advance(s, { to: plus(end, 8 * DAY) });
    expect((await subscriptionOf(s, subscriptionId)).status).toBe("past_due");
    expect((await grantOf(customerId)).revoking).toBe(true);
    await waitFor(async () => !(await grantOf(customerId)).granted, 10_000, "revoked");
  });

  it("a renewal worked on its own, outside a batch, revokes at the failure too", async () => {
    const s = await billingSeller(t);
    const { subscriptionId, customerId, end } = await decliningSubscriber(s, "On its own");
    const deps = billingDepsOn(t, t.server.database.db);
    expect(await runDue(deps, subscriptionId, new Date(end))).toBe("renewed");
    expect((await subscriptionOf(s, subscriptionId)).status).toBe("past_due");
    expect((await grantOf(customerId)).revoking).toBe(true);
  });

  it("a seat holder's benefits go with the failure and come back with the payment", async () => {
    const w = await seatsWorld(t);
    const sub = await w.seatSubscription(2, w.seller, "sandbox_token_renewal_declined");
    const seat = await w.call("/v1/customer-seats", {
      body: {
        subscription_id: sub.subscriptionId,
        email: w.email("holder"),
        immediate_claim: true,
      },
    });
    expect(seat.status, JSON.stringify(seat.body)).toBe(200);
    const holder = seat.body.customer_id as string;
    await waitFor(async () => (await grantOf(holder)).granted, 10_000, "holder granted");
    const end = (await w.call(`/v1/subscriptions/${sub.subscriptionId}`)).body.current_period_end;
    expect((await w.call("/v1/sandbox/clock/advance", { body: { to: end } })).status).toBe(200);
    expect((await w.call(`/v1/subscriptions/${sub.subscriptionId}`)).body.status).toBe("past_due");
    expect((await grantOf(holder)).revoking).toBe(true);
    await waitFor(async () => !(await grantOf(holder)).granted, 10_000, "holder revoked");
    await payWithNewCard(w.call, sub.customerId);
    expect((await w.call(`/v1/subscriptions/${sub.subscriptionId}`)).body.status).toBe("active");
    await waitFor(async () => (await grantOf(holder)).granted, 10_000, "holder granted again");
  });

  it("7 days: a meter credit renewed by a paid retry counts the calls made before it", async () => {
    const s = await billingSeller(t);
    await setSubscriptionSettings(t.url, s, { benefit_revocation_grace_period: 7 });
    const { plan, subscriptionId, customerId, end } = await creditedSubscriber(s, "credited");
    await advance(s, { to: end });
    // 6 calls on the first day past due, the new card on the second, 14 calls after it.
    await ingestHourly(s, plan.event, customerId, end, 6);
    await advance(s, { to: plus(end, DAY) });
    await payWithNewCard(s.call, customerId);
    expect((await subscriptionOf(s, subscriptionId)).status).toBe("active");
    await ingestHourly(s, plan.event, customerId, plus(end, 2 * DAY), 14);
    await advance(s, { to: (await subscriptionOf(s, subscriptionId)).current_period_end });
    const cycles = (await ordersOf(s, subscriptionId)).filter(
      (o) => o.billing_reason === "subscription_cycle",
    );
    // The month's 20 calls, 10 of them credited: 10 billed at $0.10.
    expect(cycles.map((o) => o.subtotal_amount)).toEqual([10_000, 10_100]);
  });

  it("0: a meter credit taken back at the failure starts the paid period full again", async () => {
    const s = await billingSeller(t);
    const { plan, subscriptionId, customerId, start, end } = await creditedSubscriber(
      s,
      "regranted",
    );
    // 4 of the first month's 10 credited calls, then the renewal declines and the credit goes.
    await ingestHourly(s, plan.event, customerId, start, 4);
    await advance(s, { to: end });
    await waitFor(async () => !(await grantOf(customerId)).granted, 10_000, "revoked");
    await ingestHourly(s, plan.event, customerId, end, 6);
    await advance(s, { to: plus(end, DAY) });
    await payWithNewCard(s.call, customerId);
    await waitFor(async () => (await grantOf(customerId)).granted, 10_000, "granted again");
    const paid = await subscriptionOf(s, subscriptionId);
    expect(paid.status).toBe("active");
    expect(paid.meters.map((m: { credited_units: number }) => m.credited_units)).toEqual([10]);
    await ingestHourly(s, plan.event, customerId, plus(end, 2 * DAY), 14);
    await advance(s, { to: paid.current_period_end });
    const cycles = (await ordersOf(s, subscriptionId)).filter(
      (o) => o.billing_reason === "subscription_cycle",
    );
    // Month one's 4 calls were credited; month two's 20, 10 of them credited: 10 billed at $0.10.
    expect(cycles.map((o) => [o.subtotal_amount, o.status])).toEqual([
      [10_000, "paid"],
      [10_100, "paid"],
    ]);
  });
});
