// The checkout form's summary in a real browser: a discount code applied with Enter, a discount the
// buyer has used up, a trial, an amount and a country that reprice what is charged, usage billed
// later at its unit price, and an offer the seller changed while the page was open. A total that
// moves is announced to screen readers once per change.
import { describe, expect, it } from "vitest";
import { api } from "../test/helpers/auth.ts";
import { createCountMeter } from "../test/helpers/catalog.ts";
import {
  browser,
  confirmCalls,
  newCheckout,
  t,
  token,
  withCheckoutForm,
} from "../test/helpers/checkout-form.ts";
import { US_ADDRESS } from "../test/helpers/addresses.ts";
import { fillCheckout } from "../test/helpers/checkout-page.ts";

withCheckoutForm();

/** A product sold once at `amount` cents, without the plan's custom field. */
const oneTimeProduct = (name: string, amount: number) =>
  api(t.url, "/v1/products/", {
    token,
    body: { name, prices: [{ amount_type: "fixed", price_amount: amount, price_currency: "usd" }] },
  });

/** A product whose buyer names the amount: $10.00 suggested, at least $5.00. */
const payWhatYouWant = (name: string) =>
  api(t.url, "/v1/products/", {
    token,
    body: {
      name,
      prices: [
        { amount_type: "custom", price_currency: "usd", minimum_amount: 500, preset_amount: 1000 },
      ],
    },
  });

describe("checkout form", () => {
  it("Enter in the discount field applies it without paying; the summary shows subtotal, discount, total and then the full price; Remove takes it off; focus follows", async () => {
    const checkout = await newCheckout();
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 }, locale: "en-US" });
    const confirms = confirmCalls(page);
    await page.goto(checkout.url);
    await page.waitForSelector("#discount");
    await page.fill("#discount", "NOPE");
    await page.press("#discount", "Enter");
    await page.waitForSelector("#discount-error");
    expect(await page.textContent("#discount-error")).toContain("not valid");
    // Said as it appears: focus stays in the field, so its description alone would go unheard.
    expect(await page.getAttribute("#discount-error", "role")).toBe("alert");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("discount");
    await page.fill("#discount", "LAUNCH20");
    await page.press("#discount", "Enter");
    await page.waitForSelector(".applied");
    // The field is gone: focus is on what replaced it, not back at the top of the page.
    const focused = () => page.evaluate(() => document.activeElement?.textContent);
    expect(await focused()).toBe("Remove discount LAUNCH20");
    const summary = await page.textContent(".summary");
    expect(summary).toContain("Subtotal$19.00");
    expect(summary).toContain("Discount (LAUNCH20)−$3.80");
    expect(summary).toContain("Due today$15.20");
    expect(summary).toContain("then $19.00 / month");
    expect(await page.textContent("button.pay")).toBe("Pay $15.20");
    expect(await page.textContent("[data-testid=total-announcement]")).toBe("Due today now $15.20");
    expect(confirms()).toBe(0);
    await page.keyboard.press("Enter");
    await page.waitForSelector("#discount");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("discount");
    expect(await page.textContent("[data-testid=total]")).toBe("$19.00");
    expect(await page.textContent("[data-testid=total-announcement]")).toBe("Due today now $19.00");
    expect(await page.textContent(".summary")).not.toContain("then");
    await page.close();
  });

  it("a discount the buyer has used up is refused beside it, not beside the card; removed, they pay", async () => {
    const product = await oneTimeProduct("Sticker pack", 2000);
    const welcome = await api(t.url, "/v1/discounts/", {
      token,
      body: {
        name: "Welcome",
        code: "WELCOME",
        type: "percentage",
        basis_points: 2000,
        duration: "once",
        max_redemptions_per_customer: 1,
      },
    });
    const sale = { products: [product.body.id], discount_id: welcome.body.id };
    const first = await api(t.url, "/v1/checkouts/", {
      token,
      body: { ...sale, customer_email: "loyal@example.com", customer_billing_address: US_ADDRESS },
    });
    const paid = await api(t.url, `/v1/checkouts/client/${first.body.client_secret}/confirm`, {
      body: { confirmation_token_id: "sandbox_token_success" },
    });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);

    // The seller offers it again to the same buyer, as Polar lets it.
    const again = await api(t.url, "/v1/checkouts/", {
      token,
      body: { ...sale, customer_email: "loyal@example.com" },
    });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, locale: "en-US" });
    await page.goto(again.body.url);
    await page.waitForSelector(".applied");
    await fillCheckout(page, { email: "loyal@example.com" });
    await page.click("button.pay");
    await page.waitForSelector("#discount-error");
    expect(await page.textContent("#discount-error")).toBe(
      "You have already redeemed this discount the maximum number of times allowed per customer.",
    );
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("discount-error");
    expect(await page.$("#payment-error")).toBeNull();

    await page.click(".applied button");
    await page.waitForSelector("#discount");
    expect(await page.$("#discount-error")).toBeNull();
    expect(await page.textContent("button.pay")).toBe("Pay $20.00");
    await page.click("button.pay");
    await page.waitForURL(/\/confirmation/, { timeout: 15_000 });
    await page.close();
  });

  it("a trial says so: free trial, nothing due today, then the price; the button starts the trial", async () => {
    const trialPlan = await api(t.url, "/v1/products/", {
      token,
      body: {
        name: "Trial plan",
        recurring_interval: "month",
        trial_interval: "day",
        trial_interval_count: 7,
        prices: [{ amount_type: "fixed", price_amount: 1900, price_currency: "usd" }],
      },
    });
    const res = await api(t.url, "/v1/checkouts/", {
      token,
      body: { products: [trialPlan.body.id] },
    });
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 }, locale: "en-US" });
    await page.goto(res.body.url);
    await page.waitForSelector("button.pay");
    const summary = await page.textContent(".summary");
    expect(summary).toContain("7-day free trial");
    expect(summary).toContain("Due today$0.00");
    expect(summary).toContain("then $19.00 / month");
    expect(await page.textContent("button.pay")).toBe("Start free trial");
    await page.close();
    // A once discount takes off the first charge, at the trial's end, then the full price follows.
    const once = await api(t.url, "/v1/discounts/", {
      token,
      body: { name: "Trial once", type: "percentage", basis_points: 2000, duration: "once" },
    });
    const discounted = await api(t.url, "/v1/checkouts/", {
      token,
      body: { products: [trialPlan.body.id], discount_id: once.body.id },
    });
    const second = await browser.newPage({
      viewport: { width: 1440, height: 900 },
      locale: "en-US",
    });
    await second.goto(discounted.body.url);
    await second.waitForSelector("button.pay");
    expect(await second.textContent(".summary")).toContain(
      "then $15.20 / month for the first month, then $19.00 / month",
    );
    await second.close();
  });

  it("the amount and country typed reprice the summary and the Pay button before paying, and that is what is charged", async () => {
    const pwyw = await payWhatYouWant("Tip jar");
    const res = await api(t.url, "/v1/checkouts/", { token, body: { products: [pwyw.body.id] } });
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 }, locale: "en-US" });
    await page.goto(res.body.url);
    await page.waitForSelector("button.pay:has-text('Pay $10.00')");
    await fillCheckout(page, { country: "FR" });
    await page.fill("#amount", "12.34");
    // 12.34 and 20 % French VAT (2.47).
    await page.waitForSelector("button.pay:has-text('Pay $14.81')", { timeout: 10_000 });
    expect(await page.textContent(".summary")).toContain("Tax$2.47");
    await page.click("button.pay");
    await page.waitForURL(/\/confirmation/, { timeout: 15_000 });
    const order = (await api(t.url, `/v1/orders/?checkout_id=${res.body.id}`, { token })).body
      .items[0];
    expect(order).toMatchObject({ subtotal_amount: 1234, tax_amount: 247, total_amount: 1481 });
    await page.close();
  });

  it("a total moved by the country or the amount typed is announced politely, once per change", async () => {
    const tip = await payWhatYouWant("Tip bowl");
    const res = await api(t.url, "/v1/checkouts/", { token, body: { products: [tip.body.id] } });
    const page = await browser.newPage({ locale: "en-US" });
    await page.goto(res.body.url);
    await page.waitForSelector("button.pay:has-text('Pay $10.00')");
    const live = page.getByTestId("total-announcement");
    expect(await live.getAttribute("aria-live")).toBe("polite");
    expect(await live.textContent()).toBe("");
    // Every text the region takes, as a screen reader would hear it change.
    await live.evaluate((el) => {
      const w = window as unknown as { said: string[] };
      w.said = [];
      new MutationObserver(() => w.said.push(el.textContent ?? "")).observe(el, {
        childList: true,
        characterData: true,
        subtree: true,
      });
    });
    await fillCheckout(page, { country: "FR" });
    await page.waitForSelector("button.pay:has-text('Pay $12.00')", { timeout: 10_000 });
    await page.fill("#amount", "");
    await page.locator("#amount").pressSequentially("12.34");
    await page.waitForSelector("button.pay:has-text('Pay $14.81')", { timeout: 10_000 });
    expect(await page.evaluate(() => (window as unknown as { said: string[] }).said)).toEqual([
      "Total now $12.00",
      "Total now $14.81",
    ]);
    await page.close();
  });

  it("usage billed later shows its unit price and asks for a card though nothing is due today", async () => {
    const meterId = await createCountMeter(t.url, token, "API calls", "call");
    const usagePlan = await api(t.url, "/v1/products/", {
      token,
      body: {
        name: "Usage plan",
        recurring_interval: "month",
        prices: [
          {
            amount_type: "metered_unit",
            meter_id: meterId,
            unit_amount: "0.5",
            price_currency: "usd",
          },
        ],
      },
    });
    const res = await api(t.url, "/v1/checkouts/", {
      token,
      body: { products: [usagePlan.body.id] },
    });
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 }, locale: "en-US" });
    await page.goto(res.body.url);
    await page.waitForSelector("button.pay");
    const summary = await page.textContent(".summary");
    expect(summary).toContain("Plus $0.005 per unit of API calls, billed each month");
    expect(summary).toContain("Due today$0.00");
    expect(await page.textContent("button.pay")).toBe("Subscribe");
    expect(await page.locator("input[autocomplete='cc-number']").count()).toBe(1);
    await page.close();
  });

  it("an offer the seller changed since the page opened: the page says so, nothing charged", async () => {
    const product = await oneTimeProduct("Field guide", 2500);
    const session = await api(t.url, "/v1/checkouts/", {
      token,
      body: { products: [product.body.id] },
    });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, locale: "en-US" });
    const confirms = confirmCalls(page);
    // The page's own first update (the country its locale suggests) is done before the change:
    // waited for itself, as a quiet network can come before its debounce on a busy machine.
    const firstUpdate = page.waitForResponse(
      (r) => r.request().method() === "PATCH" && r.url().includes("/v1/checkouts/client/"),
    );
    await page.goto(session.body.url);
    await page.waitForSelector("#email");
    expect((await firstUpdate).status()).toBe(200);
    const repriced = await api(t.url, `/v1/products/${product.body.id}`, {
      token,
      method: "PATCH",
      body: { prices: [{ amount_type: "fixed", price_amount: 3000, price_currency: "usd" }] },
    });
    expect(repriced.status).toBe(200);
    await page.fill("#email", "reader@example.com");
    await page.selectOption("#address-country", "DE");
    await page.waitForSelector("text=This offer has changed");
    expect(await page.textContent("body")).toContain("nothing was charged");
    expect(await page.$("form")).toBeNull();
    // Opened again, it says the same rather than offering what can no longer be paid.
    await page.reload();
    await page.waitForSelector("text=This offer has changed");
    expect(confirms()).toBe(0);
    const after = await api(t.url, `/v1/checkouts/${session.body.id}`, { token });
    expect(after.body.status).toBe("open");
    await page.close();
  });
});
