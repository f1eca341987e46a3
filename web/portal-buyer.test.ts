// The customer portal as a buyer meets it in a real browser beyond the happy path: a free trial
// canceled and kept again by keyboard; a subscription in yen offered only the plans it can move to;
// and on a 360 px phone a failed renewal paid first with a card that is declined again, then with
// one that pays, the card form and the orders fitting the screen; a plan billing usage on top of
// its fixed price says so; a card added by keyboard keeps the focus where the buyer is; and a
// lost connection is said in words the buyer understands.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  advance,
  billingSeller,
  meteredPlan,
  monthlyProduct,
  subscribe,
  subscriptionOf,
  type BillingSeller,
} from "../test/helpers/billing.ts";
import { fillCard } from "../test/helpers/checkout-page.ts";
import { launchBrowser, snapshot } from "../test/helpers/chromium.ts";
import { startTestServer, type TestServer } from "../test/helpers/server.ts";

let t: TestServer;
let browser: Browser;
let s: BillingSeller;

beforeAll(async () => {
  [t, browser] = await Promise.all([startTestServer({ worker: false }), launchBrowser()]);
  s = await billingSeller(t);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.stop();
});

async function openPortal(customerId: string, viewport = { width: 1280, height: 800 }) {
  const session = await s.call("/v1/customer-sessions/", { body: { customer_id: customerId } });
  expect(session.status, JSON.stringify(session.body)).toBe(201);
  const page = await browser.newPage({ viewport, locale: "en-US" });
  await page.goto(session.body.customer_portal_url);
  return page;
}

const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement;
    return `${el.tagName.toLowerCase()}${el.className ? `.${el.className.split(" ").join(".")}` : ""}`;
  });

describe("a free trial in the portal", () => {
  it("is canceled by keyboard, says it ends with the trial, and is kept again; focus stays in the card", async () => {
    const product = await monthlyProduct(s, "Trial plan", 2000, 14);
    const { subscriptionId, customerId } = await subscribe(s, product.id);
    const trial = await subscriptionOf(s, subscriptionId);
    expect(trial.status).toBe("trialing");
    const page = await openPortal(customerId);
    const card = page.locator(`[data-subscription="${subscriptionId}"]`);
    await card.locator(".status").waitFor();
    const end = new Date(trial.trial_end).toLocaleDateString("en-US", {
      year: "numeric",
      month: "short",
      day: "numeric",
    });
    expect(await card.locator(".status").textContent()).toBe(
      `Free trial until ${end}; first payment then`,
    );

    await card.getByRole("button", { name: "Cancel subscription" }).focus();
    await page.keyboard.press("Enter");
    // The form opens with the reason to choose in focus, not the page's start.
    expect(await focused(page)).toBe("select");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    expect(await focused(page)).toBe("button.confirm-cancel");
    expect(await page.locator("button.confirm-cancel").textContent()).toBe(
      "Cancel when the trial ends",
    );
    await page.keyboard.press("Enter");
    await expect
      .poll(() => card.locator(".status").textContent())
      .toBe(`Free trial until ${end}; it ends then`);
    expect(await subscriptionOf(s, subscriptionId)).toMatchObject({
      status: "trialing",
      cancel_at_period_end: true,
      customer_cancellation_reason: "too_expensive",
    });
    // The button pressed is gone: focus is on the card's news, and Tab reaches Keep subscription.
    expect(await focused(page)).toBe("p.muted.status");
    await page.keyboard.press("Tab");
    expect(await focused(page)).toBe("button.uncancel");
    await page.keyboard.press("Enter");
    await expect
      .poll(() => card.locator(".status").textContent())
      .toBe(`Free trial until ${end}; first payment then`);
    expect((await subscriptionOf(s, subscriptionId)).cancel_at_period_end).toBe(false);
    expect(await focused(page)).toBe("p.muted.status");
    await page.close();
  });
});

describe("changing plan from a subscription in yen", () => {
  it("offers only the plans priced in yen", async () => {
    const yen = (name: string, amount: number) =>
      s.polar.products.create({
        name,
        recurringInterval: "month",
        prices: [{ amountType: "fixed", priceAmount: amount, priceCurrency: "jpy" }],
      });
    const basic = await yen("Yen basic", 1500);
    await yen("Yen pro", 3000);
    await monthlyProduct(s, "Dollar team", 3000);
    const { subscriptionId, customerId } = await subscribe(s, basic.id);
    const page = await openPortal(customerId);
    const card = page.locator(`[data-subscription="${subscriptionId}"]`);
    await card.getByRole("button", { name: "Change plan" }).click();
    const group = card.getByRole("group", { name: "Choose a new plan for Yen basic" });
    await group.getByRole("radio").first().waitFor();
    expect(await group.locator(".plan-option").allTextContents()).toEqual([
      "Yen pro¥3,000 / month",
    ]);
    await page.close();
  });
});

describe("a lost connection in the portal", () => {
  it("is said plainly where the buyer acted, and trying again works", async () => {
    const product = await monthlyProduct(s, "Offline plan", 1200);
    const { subscriptionId, customerId } = await subscribe(s, product.id);
    const page = await openPortal(customerId);
    const card = page.locator(`[data-subscription="${subscriptionId}"]`);
    await card.getByRole("button", { name: "Cancel subscription" }).click();
    await card.locator("select").selectOption("unused");
    const cut = (route: import("playwright-core").Route) => route.abort("internetdisconnected");
    await page.route("**/v1/customer-portal/subscriptions/**", cut);
    await card.getByRole("button", { name: "Cancel at period end" }).click();
    await expect
      .poll(() => card.getByRole("alert").textContent())
      .toBe("The connection was lost. Check your internet connection and try again.");
    expect((await subscriptionOf(s, subscriptionId)).cancel_at_period_end).toBe(false);
    expect(await focused(page)).toBe("button.confirm-cancel");
    await page.unroute("**/v1/customer-portal/subscriptions/**", cut);
    await card.getByRole("button", { name: "Cancel at period end" }).click();
    await expect.poll(() => card.locator(".status").textContent()).toMatch(/^Cancels on /);
    await page.close();
  });
});

describe("a failed renewal paid from a 360 px phone", () => {
  it("says a card declined again is declined, then pays with another; nothing leaves the screen", async () => {
    const product = await monthlyProduct(s, "Phone plan", 2500);
    const { subscriptionId, customerId } = await subscribe(
      s,
      product.id,
      "sandbox_token_renewal_declined",
    );
    await advance(s, { to: (await subscriptionOf(s, subscriptionId)).current_period_end });
    expect((await subscriptionOf(s, subscriptionId)).status).toBe("past_due");
    const page = await openPortal(customerId, { width: 360, height: 740 });
    const sideways = () =>
      page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    /** Lines each of the elements' text takes: 1 unless a word was broken or wrapped. */
    const lines = (selector: string) =>
      page.$$eval(selector, (els) =>
        els.map((el) => {
          const range = document.createRange();
          range.selectNodeContents(el);
          return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
        }),
      );
    await page.waitForSelector("text=A payment failed. Add a card to pay it now.");
    const form = page.locator("form.add-card");
    // The card form is laid out in the screen's width: every input inside the form's box.
    const box = (await form.boundingBox())!;
    for (const input of await form.locator("input").all()) {
      const b = (await input.boundingBox())!;
      expect(b.x).toBeGreaterThanOrEqual(box.x);
      expect(b.x + b.width).toBeLessThanOrEqual(box.x + box.width);
    }
    expect(await sideways()).toBe(0);
    // Amounts, dates and statuses of the orders are never broken mid-word.
    const row = page.locator("tr[data-order]").first();
    expect(await row.locator("td").allTextContents()).toEqual([
      expect.any(String),
      "Phone plan",
      "$25.00",
      "Payment due",
      "",
    ]);
    for (const cell of [1, 2, 3, 4])
      expect(await lines(`tr[data-order] td:nth-child(${cell})`)).toEqual([1, 1]);
    await snapshot(page, "portal-phone-past-due", { fullPage: true });

    await fillCard(page, "4000 0000 0000 0341");
    await page.click("button.save-card");
    const declined = page.getByRole("alert");
    await declined.waitFor();
    expect(await declined.textContent()).toBe(
      "Your card was saved, but the payment was declined again. Add another card to pay it.",
    );
    expect((await subscriptionOf(s, subscriptionId)).status).toBe("past_due");

    await page.click("button.add-card-open");
    await fillCard(page, "4242 4242 4242 4242");
    await page.click("button.save-card");
    await page.waitForSelector("text=Card saved. The payment due is paid.");
    expect(await page.getByRole("alert").count()).toBe(0);
    expect((await subscriptionOf(s, subscriptionId)).status).toBe("active");
    expect(await row.locator("td").nth(3).textContent()).toBe("Paid");
    expect(await sideways()).toBe(0);
    await page.close();
  });
});

describe("a subscription with a metered price", () => {
  it("says usage is billed on top of the fixed price, and at what a unit", async () => {
    const { product } = await meteredPlan(s, {
      name: "Render",
      interval: "month",
      credit: 0,
      fixedAmount: 500,
    });
    const { subscriptionId, customerId } = await subscribe(s, product.id);
    const page = await openPortal(customerId);
    const card = page.locator(`[data-subscription="${subscriptionId}"]`);
    await card.locator(".status").waitFor();
    expect(await card.locator(".price").textContent()).toBe("$5.00 / month + usage");
    expect(await card.locator(".usage-price").allTextContents()).toEqual([
      "Plus $0.10 per unit of Render calls, billed each month",
    ]);
    await page.close();
  });
});

describe("a card added in the portal by keyboard", () => {
  it("focus goes into the form, back to it after a decline, and to Add a card when it closes", async () => {
    const product = await monthlyProduct(s, "Keyboard plan", 1200);
    const { customerId } = await subscribe(s, product.id);
    const page = await openPortal(customerId);
    const open = page.locator("button.add-card-open");
    await open.focus();
    await page.keyboard.press("Enter");
    await page.locator("form.add-card").waitFor();
    const focusedId = () => page.evaluate(() => document.activeElement?.id);
    expect(await focusedId()).toBe("card-number");
    // Saved with nothing typed: focus on the first problem.
    await page.keyboard.press("Enter");
    await page.locator("#card-number-error").waitFor();
    expect(await focusedId()).toBe("card-number");
    await fillCard(page, "4000 0000 0000 0002");
    await page.keyboard.press("Enter");
    await page.getByRole("alert").waitFor();
    expect(await page.getByRole("alert").textContent()).toBe(
      "Could not add this payment method: Your card was declined. Please try again with a different card.",
    );
    // The buyer types another card where they are, not from the top of the page.
    expect(await focusedId()).toBe("card-number");
    await page.locator("form.add-card button", { hasText: "Back" }).focus();
    await page.keyboard.press("Enter");
    await open.waitFor();
    expect(await focused(page)).toBe("button.add-card-open");
    await page.keyboard.press("Enter");
    await fillCard(page, "4242 4242 4242 4242");
    await page.keyboard.press("Enter");
    await page.waitForSelector("text=Card saved as your default.");
    expect(await focused(page)).toBe("button.add-card-open");
    await page.close();
  });
});
