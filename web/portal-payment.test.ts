// A failed renewal paid from the customer portal in a real browser: the failed-payment mail's link
// opens the portal signed in, the page says a payment failed and opens the card form, a new card
// is saved as the default, and the server retries the payment with it at once: the subscription is
// active again and the card shows as the default.
import { sql } from "drizzle-orm";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  advance,
  billingSeller,
  ordersOf,
  subscribe,
  subscriptionOf,
  type BillingSeller,
} from "../test/helpers/billing.ts";
import { launchBrowser } from "../test/helpers/chromium.ts";
import { startTestServer, type TestServer } from "../test/helpers/server.ts";
import { openMailLink } from "../test/helpers/browser.ts";
import { waitFor } from "../test/helpers/webhook-receiver.ts";

let t: TestServer;
let browser: Browser;
let s: BillingSeller;

beforeAll(async () => {
  // With a worker: the failed-payment mail is sent by its job.
  [t, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  s = await billingSeller(t);
});
afterAll(async () => {
  await browser?.close();
  await t?.stop();
});

describe("paying a failed renewal from the portal", () => {
  it("the mail's link opens the portal, a new card is saved and the payment goes through", async () => {
    const product = await s.polar.products.create({
      name: "Team plan",
      recurringInterval: "month",
      prices: [{ amountType: "fixed", priceAmount: 2500, priceCurrency: "usd" }],
    });
    const email = "declined-portal@example.com";
    const { subscriptionId } = await subscribe(
      s,
      product.id,
      "sandbox_token_renewal_declined",
      email,
    );
    await advance(s, { to: (await subscriptionOf(s, subscriptionId)).current_period_end });
    expect((await subscriptionOf(s, subscriptionId)).status).toBe("past_due");
    // The job queued with the failure sends its mail once that has committed.
    const mailOf = async () =>
      (
        await t.server.database.rows<{ link: string }>(
          sql`select link from email_outbox where "to" = ${email} and kind = 'payment-failed'`,
        )
      )[0];
    await waitFor(async () => (await mailOf()) !== undefined, 10_000, "the failed-payment mail");
    const mail = await mailOf();

    const page = await browser.newPage({ locale: "en-US" });
    await page.goto(openMailLink(mail!.link));
    await page.waitForSelector("text=A payment failed. Add a card to pay it now.");
    // The card says when the payment is tried again by itself: the pending order's next attempt.
    const pending = (await ordersOf(s, subscriptionId)).find((o) => o.status === "pending")!;
    const retry = new Date(pending.next_payment_attempt_at).toLocaleDateString("en-US", {
      year: "numeric",
      month: "short",
      day: "numeric",
    });
    expect(
      await page.locator(`[data-subscription="${subscriptionId}"] .status`).textContent(),
    ).toBe(`A payment failed; it is tried again on ${retry}`);
    // The form is open already; a bad number is said beside its field and nothing is sent.
    await page.fill("#card-number", "4242 4242 4242 4241");
    await page.fill("#card-expiry", "12/34");
    await page.fill("#card-cvc", "123");
    await page.click("button.save-card");
    await page.waitForSelector("text=This card number is not valid.");
    await page.fill("#card-number", "4242 4242 4242 4242");
    await page.click("button.save-card");
    await page.waitForSelector("text=Card saved. The payment due is paid.");

    expect((await subscriptionOf(s, subscriptionId)).status).toBe("active");
    const cycle = (await ordersOf(s, subscriptionId)).find(
      (o) => o.billing_reason === "subscription_cycle",
    );
    expect(cycle).toMatchObject({ status: "paid", total_amount: 2500 });
    const cards = page.locator("[data-payment-method]");
    expect(await cards.count()).toBe(2);
    const current = cards.filter({ hasText: "Default" });
    expect(await current.textContent()).toContain("•••• 4242");
    expect(await page.locator("text=A payment failed").count()).toBe(0);
    await page.close();
  });
});

describe("removing a card in the portal", () => {
  it("the last card of a running subscription stays, with the reason; another is removed", async () => {
    const product = await s.polar.products.create({
      name: "Card plan",
      recurringInterval: "month",
      prices: [{ amountType: "fixed", priceAmount: 1500, priceCurrency: "usd" }],
    });
    const { customerId } = await subscribe(s, product.id, "sandbox_token_success");
    const session = await s.call("/v1/customer-sessions/", { body: { customer_id: customerId } });
    const page = await browser.newPage({ locale: "en-US", viewport: { width: 320, height: 800 } });
    await page.goto(session.body.customer_portal_url);
    const cards = page.locator("[data-payment-method]");
    await cards.first().waitFor();
    expect(await cards.count()).toBe(1);

    await page.getByRole("button", { name: /^Remove .*•••• 4242/ }).click();
    await page.waitForSelector(
      "text=This payment method is still needed to bill a subscription. Add another one or cancel the subscription first.",
    );
    expect(await cards.count()).toBe(1);

    await page.click("button.add-card-open");
    await page.fill("#card-number", "5555 5555 5555 4444");
    await page.fill("#card-expiry", "12/34");
    await page.fill("#card-cvc", "123");
    await page.click("button.save-card");
    await page.waitForSelector("text=Card saved as your default.");
    expect(await cards.count()).toBe(2);
    await page.getByRole("button", { name: /^Remove .*•••• 4242/ }).click();
    await page.waitForSelector("text=Card removed.");
    expect(await cards.count()).toBe(1);
    expect(await cards.first().textContent()).toContain("•••• 4444");
    expect(await cards.first().textContent()).toContain("Default");
    // Nothing overflows the narrow screen.
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth > document.documentElement.clientWidth,
    );
    expect(overflow).toBe(false);
    await page.close();
  });
});
