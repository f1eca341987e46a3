// The checkout form in a real browser: errors beside their fields, the address by the country, a
// lost connection and a second subscription said above the form, the keyboard, and screenshots.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { api } from "../test/helpers/auth.ts";
import { screenshotPath } from "../test/helpers/chromium.ts";
import {
  browser,
  confirmCalls,
  newCheckout,
  t,
  token,
  withCheckoutForm,
} from "../test/helpers/checkout-form.ts";
import { fillAddress, fillCard } from "../test/helpers/checkout-page.ts";
import { US_ADDRESS } from "../test/helpers/addresses.ts";

withCheckoutForm();

/** The ids of the inputs the page marks invalid, in the form's order. */
const invalidIds = (page: Page) =>
  page.$$eval('[aria-invalid="true"]', (els) => els.map((e) => e.id));

describe("checkout form", () => {
  it("an empty submit shows every required field's error at once, tied to its input, with focus on the first", async () => {
    const checkout = await newCheckout();
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const confirms = confirmCalls(page);
    await page.goto(checkout.url);
    await page.waitForSelector("#email");
    await page.selectOption("#address-country", "");
    await page.click("button.pay");
    const invalid = await invalidIds(page);
    expect(invalid).toEqual([
      "email",
      "address-country",
      "address-line1",
      "address-city",
      "address-postal_code",
      "custom-terms",
      "card-number",
      "card-expiry",
      "card-cvc",
    ]);
    // Each message is the input's description.
    for (const id of invalid) {
      const described = await page.getAttribute(`#${id}`, "aria-describedby");
      expect(described).toContain(`${id}-error`);
      expect((await page.textContent(`#${id}-error`))?.length).toBeGreaterThan(3);
    }
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("email");
    await page.screenshot({ path: screenshotPath("checkout-errors"), fullPage: true });
    // Fixing a field removes only its message.
    await page.fill("#email", "ada@example.com");
    expect(await page.$("#email-error")).toBeNull();
    expect(await page.$("#address-city-error")).not.toBeNull();
    expect(confirms()).toBe(0);
    await page.close();
  });

  it("the country defaults to the browser's region and the address words follow the country; amounts use the buyer's locale", async () => {
    const checkout = await newCheckout();
    const context = await browser.newContext({ locale: "de-DE" });
    const page = await context.newPage();
    await page.goto(checkout.url);
    await page.waitForSelector("#address-country");
    expect(await page.inputValue("#address-country")).toBe("DE");
    expect(await page.$("#address-state")).toBeNull();
    expect(await page.textContent("[data-testid=total]")).toMatch(/^19,00\s\$$/);
    await page.selectOption("#address-country", "US");
    expect(await page.textContent("label[for=address-postal_code]")).toBe("ZIP code");
    expect(await page.textContent("label[for=address-state]")).toBe("State");
    // The US's states are chosen from the list the API checks, stored as ISO 3166-2 codes.
    expect(await page.textContent("#address-state option[value='US-NY']")).toBe("New York");
    await page.selectOption("#address-state", "US-NY");
    await page.selectOption("#address-country", "CA");
    expect(await page.inputValue("#address-state")).toBe("");
    expect(await page.textContent("label[for=address-state]")).toBe("Province");
    expect(await page.textContent("#address-state option[value='CA-QC']")).toBe("Quebec");
    await page.selectOption("#address-country", "GB");
    expect(await page.textContent("label[for=address-postal_code]")).toBe("Postcode");
    await context.close();
  });

  it("picking the US shows and requires its state, street, city and ZIP code, Canada its province; a complete address pays", async () => {
    const checkout = await newCheckout({ require_billing_address: false });
    const context = await browser.newContext({ locale: "de-DE" });
    const page = await context.newPage();
    const confirms = confirmCalls(page);
    const shown = () =>
      page.$$eval(".address input, .address select", (els) => els.map((e) => e.id));
    await page.goto(checkout.url);
    await page.waitForSelector("#address-country");
    // Germany, no full address asked for: the country alone.
    expect(await shown()).toEqual(["address-country"]);
    await page.selectOption("#address-country", "CA");
    expect(await shown()).toEqual(["address-country", "address-state"]);
    expect(await page.textContent("label[for=address-state]")).toBe("Province");
    await page.selectOption("#address-country", "US");
    expect(await shown()).toEqual([
      "address-country",
      "address-line1",
      "address-line2",
      "address-city",
      "address-state",
      "address-postal_code",
    ]);
    await page.fill("#email", "us-buyer@example.com");
    await page.check("#custom-terms");
    await fillCard(page);
    await page.click("button.pay");
    // Only what the US adds is missing; nothing was sent.
    expect(await invalidIds(page)).toEqual([
      "address-line1",
      "address-city",
      "address-state",
      "address-postal_code",
    ]);
    expect(await page.textContent("#address-state-error")).toBe("Choose your state.");
    expect(confirms()).toBe(0);
    await fillAddress(page, US_ADDRESS);
    await page.click("button.pay");
    await page.waitForURL(/\/confirmation/, { timeout: 15_000 });
    expect(confirms()).toBe(1);
    const order = (await api(t.url, `/v1/orders/?checkout_id=${checkout.id}`, { token })).body
      .items[0];
    expect(order.billing_address).toMatchObject(US_ADDRESS);
    await context.close();
  });

  it("a lost connection while paying is said plainly and the form keeps what was typed", async () => {
    const checkout = await newCheckout({ require_billing_address: false });
    const page = await browser.newPage();
    await page.goto(checkout.url);
    await page.waitForSelector("#email");
    await page.fill("#email", "ada@example.com");
    await fillAddress(page, US_ADDRESS);
    await page.check("#custom-terms");
    await fillCard(page);
    await page.route("**/v1/sandbox/confirmation-tokens", (route) =>
      route.abort("internetdisconnected"),
    );
    await page.click("button.pay");
    await page.waitForSelector("#general-error");
    expect(await page.textContent("#general-error")).toContain("connection was lost");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("general-error");
    expect(await page.inputValue("#email")).toBe("ada@example.com");
    await page.close();
  });

  it("a buyer who already subscribes is told so above the form, not beside the card", async () => {
    const first = await newCheckout({ require_billing_address: false });
    const bought = await api(t.url, `/v1/checkouts/client/${first.client_secret}/confirm`, {
      body: {
        customer_email: "held@example.com",
        customer_billing_address: US_ADDRESS,
        custom_field_data: { terms: true },
        confirmation_token_id: "sandbox_token_success",
      },
    });
    expect(bought.status, JSON.stringify(bought.body)).toBe(200);
    const checkout = await newCheckout({ require_billing_address: false });
    const page = await browser.newPage();
    await page.goto(checkout.url);
    await page.waitForSelector("#email");
    await page.fill("#email", "held@example.com");
    await fillAddress(page, US_ADDRESS);
    await page.check("#custom-terms");
    await fillCard(page);
    await page.click("button.pay");
    await page.waitForSelector("#general-error");
    expect(await page.textContent("#general-error")).toContain(
      "You already have an active subscription.",
    );
    expect(await page.$("#payment-error")).toBeNull();
    await page.close();
  });

  it("a buyer completes the hosted checkout with the keyboard only and lands on the confirmation", async () => {
    const checkout = await newCheckout({ require_billing_address: false });
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 }, locale: "en-US" });
    await page.goto(checkout.url);
    await page.waitForSelector("#email");
    await page.focus("body");
    // Tab to the email field, then type and Tab through the form in document order.
    for (
      let i = 0;
      i < 10 && (await page.evaluate(() => document.activeElement?.id)) !== "email";
      i++
    )
      await page.keyboard.press("Tab");
    await page.keyboard.type("keys@example.com");
    await page.keyboard.press("Tab"); // name
    await page.keyboard.press("Tab"); // "I'm purchasing as a business", left unticked
    await page.keyboard.press("Tab"); // country (already the locale's)
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("address-country");
    // A US buyer gives the street, city, state and ZIP code, in the form's order.
    await page.keyboard.press("Tab");
    await page.keyboard.type(US_ADDRESS.line1);
    await page.keyboard.press("Tab"); // apartment (optional)
    await page.keyboard.press("Tab");
    await page.keyboard.type(US_ADDRESS.city);
    await page.keyboard.press("Tab"); // state, picked by typing its name
    await page.keyboard.type("New York");
    await page.keyboard.press("Tab");
    await page.keyboard.type(US_ADDRESS.postal_code);
    await page.keyboard.press("Tab"); // terms
    await page.keyboard.press("Space");
    await page.keyboard.press("Tab"); // discount
    await page.keyboard.press("Tab"); // card number (Apply is disabled while empty)
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("card-number");
    await page.keyboard.type("4242424242424242");
    await page.keyboard.press("Tab");
    await page.keyboard.type("12/34");
    await page.keyboard.press("Tab");
    await page.keyboard.type("123");
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/confirmation/, { timeout: 15_000 });
    await page.waitForSelector("[data-testid=order-number]");
    await page.close();
  });

  it("looks right on desktop, phone (summary folded under the product's name, opens on demand) and dark, with no serious axe violations", async () => {
    const axe = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
    const checkout = await newCheckout();
    await api(t.url, `/v1/checkouts/client/${checkout.client_secret}`, {
      method: "PATCH",
      body: { discount_code: "LAUNCH20" },
    });
    const shots = [
      { name: "checkout-desktop", viewport: { width: 1440, height: 900 }, theme: "light" },
      { name: "checkout-phone", viewport: { width: 390, height: 844 }, theme: "light" },
      { name: "checkout-dark", viewport: { width: 1440, height: 900 }, theme: "dark" },
      { name: "checkout-phone-dark", viewport: { width: 390, height: 844 }, theme: "dark" },
    ];
    for (const shot of shots) {
      const page = await browser.newPage({ viewport: shot.viewport, locale: "en-US" });
      await page.goto(`${checkout.url}?theme=${shot.theme}`);
      await page.waitForSelector("#email");
      const phone = shot.viewport.width < 600;
      expect(await page.isVisible(".summary-body")).toBe(!phone);
      // Folded or not, the page is headed by what is bought.
      expect(await page.isVisible("h1")).toBe(true);
      expect(await page.textContent("h1")).toBe("Pro plan");
      await page.screenshot({ path: screenshotPath(shot.name) });
      if (phone) {
        await page.click(".summary-toggle");
        expect(await page.isVisible(".summary-body")).toBe(true);
        await page.screenshot({ path: screenshotPath(`${shot.name}-summary`) });
      }
      await page.evaluate(axe);
      const violations = await page.evaluate(async () => {
        const result = await (
          window as unknown as {
            axe: { run(): Promise<{ violations: { id: string; impact: string }[] }> };
          }
        ).axe.run();
        return result.violations
          .filter((v) => v.impact === "serious" || v.impact === "critical")
          .map((v) => v.id);
      });
      expect(violations, shot.name).toEqual([]);
      await page.close();
    }
  });
});
