// prevent_trial_abuse with Stripe: the card's fingerprint is read from the ConfirmationToken before
// anything is saved, so a card that had a trial is refused another under a new email, while the
// same buyer's other card is not; the card saved by the first trial keeps its fingerprint.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { setSubscriptionSettings } from "../../../../test/helpers/billing.ts";
import { startStripeTill, type StripeTill } from "../../../../test/helpers/stripe-till.ts";
import { US_ADDRESS_SDK } from "../../../../test/helpers/addresses.ts";

let s: StripeTill;

beforeAll(async () => {
  s = await startStripeTill();
});
afterAll(() => s?.stop());

describe("Stripe: trial abuse by card", () => {
  it("refuses a trial to a card that had one, under another email", async () => {
    await setSubscriptionSettings(
      s.t.url,
      { token: s.accessToken, organizationId: s.organizationId },
      { prevent_trial_abuse: true },
    );
    const product = await s.polar.products.create({
      name: "Trial",
      recurringInterval: "month",
      trialInterval: "day",
      trialIntervalCount: 7,
      prices: [{ amountType: "fixed", priceAmount: 1500, priceCurrency: "usd" }],
    });
    const checkout = (email: string) =>
      s.polar.checkouts.create({
        products: [product.id],
        customerEmail: email,
        customerBillingAddress: US_ADDRESS_SDK,
      });

    const first = await checkout("ann@example.com");
    const ok = await s.confirm(first.clientSecret, await s.token("pm_card_mastercard"));
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const [saved] = await s.t.server.database.rows<{ fingerprint: string | null }>(
      sql`select fingerprint from payment_methods where organization_id = ${s.organizationId}`,
    );
    expect(saved?.fingerprint).toMatch(/^fp_/);

    const second = await checkout("bob@example.com");
    const refused = await s.confirm(second.clientSecret, await s.token("pm_card_mastercard"));
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe("TrialAlreadyRedeemed");
    // Nothing was set up at Stripe for the refused attempt.
    expect(
      [...s.stripe.state.setupIntents.values()].filter(
        (si) => (si.metadata as Record<string, string>).checkout_id === second.id,
      ),
    ).toEqual([]);
    const other = await s.confirm(second.clientSecret, await s.token("pm_card_visa"));
    expect(other.status, JSON.stringify(other.body)).toBe(200);
    const done = await s.polar.checkouts.get({ id: second.id });
    expect(done.status).toBe("succeeded");
  });
});
