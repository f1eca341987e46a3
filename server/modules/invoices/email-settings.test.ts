// The organization's customer_email_settings switch customer emails off, as Polar's do: a one-time
// purchase's receipt (order_confirmation), a new subscription's (subscription_confirmation) and a
// failed renewal's mail (subscription_past_due) and the first charge after a trial's
// (subscription_cycled_after_trial); what is left on still goes out.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  advance,
  billingSeller,
  buy,
  setOrganizationSettings,
  type BillingSeller,
  subscribe,
  subscriptionOf,
} from "../../../test/helpers/billing.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { waitFor } from "../../../test/helpers/webhook-receiver.ts";

let t: TestServer;
let s: BillingSeller;

beforeAll(async () => {
  t = await startTestServer({ env: { DUNNING_RETRY_DAYS: "3,5,7" } });
  s = await billingSeller(t);
});
afterAll(() => t?.stop());

async function mailsTo(to: string): Promise<string[]> {
  const rows = await t.server.database.rows<{ kind: string }>(
    sql`select kind from email_outbox where "to" = ${to} order by created_at`,
  );
  return rows.map((r) => r.kind);
}

const setEmails = (settings: Record<string, boolean>, seller = s) =>
  setOrganizationSettings(t.url, seller, "customer_email_settings", settings);

describe("customer email settings", () => {
  it("emails switched off are not sent; the others are", async () => {
    const settings = await setEmails({ order_confirmation: false, subscription_past_due: false });
    expect(settings).toMatchObject({
      order_confirmation: false,
      subscription_past_due: false,
      subscription_confirmation: true,
    });
    const once = await s.polar.products.create({
      name: "E-book",
      prices: [{ amountType: "fixed", priceAmount: 900, priceCurrency: "usd" }],
    });
    const plan = await s.polar.products.create({
      name: "Monthly",
      recurringInterval: "month",
      prices: [{ amountType: "fixed", priceAmount: 1500, priceCurrency: "usd" }],
    });
    await buy(s, once.id, "sandbox_token_success", "reader@example.com");
    const { subscriptionId } = await subscribe(
      s,
      plan.id,
      "sandbox_token_renewal_declined",
      "member@example.com",
    );
    // The receipts are one job each, in order: once the subscription's is out, the book's was done.
    await waitFor(
      async () => (await mailsTo("member@example.com")).includes("receipt"),
      10_000,
      "the subscription's receipt",
    );
    expect(await mailsTo("reader@example.com")).toEqual([]);

    const end = (await subscriptionOf(s, subscriptionId)).current_period_end as string;
    await advance(s, { to: end });
    expect((await subscriptionOf(s, subscriptionId)).status).toBe("past_due");
    expect(await mailsTo("member@example.com")).toEqual(["receipt"]);

    // Switched back on, the next failed retry mails the customer.
    await setEmails({ subscription_past_due: true });
    await advance(s, { to: new Date(Date.parse(end) + 3 * 86_400_000).toISOString() });
    // Its job sends it once the failure has committed.
    await waitFor(
      async () => (await mailsTo("member@example.com")).includes("payment-failed"),
      10_000,
      "the failed-payment mail",
    );
    expect(await mailsTo("member@example.com")).toEqual(["receipt", "payment-failed"]);
  });

  it("the first charge after a trial has its own switch; later renewals still mail", async () => {
    const seller = await billingSeller(t);
    await setEmails({ subscription_cycled_after_trial: false }, seller);
    const product = await seller.polar.products.create({
      name: "Tried",
      recurringInterval: "month",
      trialInterval: "day",
      trialIntervalCount: 7,
      prices: [{ amountType: "fixed", priceAmount: 2000, priceCurrency: "usd" }],
    });
    const email = "trier@example.com";
    const { subscriptionId } = await subscribe(seller, product.id, undefined, email);
    const trialEnd = (await subscriptionOf(seller, subscriptionId)).trial_end as string;
    await advance(seller, { to: trialEnd });
    const next = (await subscriptionOf(seller, subscriptionId)).current_period_end as string;
    await advance(seller, { to: next });
    // Two paid cycles (after the trial, then a month on); only the second is mailed.
    const cycles = (
      await seller.call(`/v1/orders/?subscription_id=${subscriptionId}&limit=10`)
    ).body.items.filter(
      (o: { billing_reason: string }) => o.billing_reason === "subscription_cycle",
    );
    expect(cycles.map((o: { status: string }) => o.status)).toEqual(["paid", "paid"]);
    await waitFor(
      async () => (await mailsTo(email)).includes("receipt"),
      10_000,
      "renewal receipt",
    );
    expect(await mailsTo(email)).toEqual(["receipt"]);
  });
});
