// The confirmation page in a real browser: a checkout created without a success URL (the API's
// default) ends on till's own confirmation page showing the order — what was bought, the amount
// paid, the order number, the license key with Copy, the custom benefit's note and a portal link —
// and never promises a receipt. A subscription's says what it renews at and when it charges next.
// A checkout that was not paid says so.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../test/helpers/auth.ts";
import { fillCheckout } from "../test/helpers/checkout-page.ts";
import { launchBrowser, screenshotPath } from "../test/helpers/chromium.ts";
import { startTestServer, type TestServer } from "../test/helpers/server.ts";

let t: TestServer;
let browser: Browser;
let token: string;
let productId: string;

beforeAll(async () => {
  [t, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  token = (
    await createSeller(t.url, [
      "products:write",
      "checkouts:write",
      "orders:read",
      "benefits:write",
      "license_keys:read",
      "discounts:write",
      "subscriptions:read",
    ])
  ).token;
  const key = await api(t.url, "/v1/benefits/", {
    token,
    body: { type: "license_keys", description: "License key", properties: { prefix: "ACME" } },
  });
  const custom = await api(t.url, "/v1/benefits/", {
    token,
    body: {
      type: "custom",
      description: "Priority support",
      properties: { note: "Write to support@example.com with your order number." },
    },
  });
  expect([key.status, custom.status]).toEqual([201, 201]);
  const product = await api(t.url, "/v1/products/", {
    token,
    body: {
      name: "Desktop app",
      prices: [{ amount_type: "fixed", price_amount: 4900, price_currency: "usd" }],
    },
  });
  productId = product.body.id;
  const linked = await api(t.url, `/v1/products/${productId}/benefits`, {
    token,
    method: "POST",
    body: { benefits: [key.body.id, custom.body.id] },
  });
  expect(linked.status).toBe(200);
});
afterAll(async () => {
  await browser?.close();
  await t?.stop();
});

async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(
    readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8"),
  );
  return page.evaluate(async () => {
    const result = await (
      window as unknown as {
        axe: { run(): Promise<{ violations: { id: string; impact: string }[] }> };
      }
    ).axe.run();
    return result.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => v.id);
  });
}

describe("confirmation page", () => {
  it("a checkout without a success URL ends on the confirmation page showing the order, its benefits and a portal link", async () => {
    const checkout = await api(t.url, "/v1/checkouts/", { token, body: { products: [productId] } });
    expect(checkout.body.success_url).toBe(
      `${t.url}/checkout/${checkout.body.client_secret}/confirmation`,
    );
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: t.url });
    const page = await context.newPage();
    await page.goto(checkout.body.url);
    await fillCheckout(page, { email: "buyer@example.com" });
    await page.click("button.pay");
    await page.waitForURL(/\/confirmation/, { timeout: 15_000 });
    await page.waitForSelector("h1:has-text('Thanks for your order')");
    // The session token is taken out of the address bar.
    expect(new URL(page.url()).pathname).toBe(
      `/checkout/${checkout.body.client_secret}/confirmation`,
    );
    expect(new URL(page.url()).searchParams.has("customer_session_token")).toBe(false);

    const orders = await api(t.url, `/v1/orders/?checkout_id=${checkout.body.id}`, { token });
    const order = orders.body.items[0];
    await page.waitForSelector("[data-testid=license-key]", { timeout: 15_000 });
    expect(await page.textContent("main")).toContain("Desktop app");
    expect(await page.textContent("[data-testid=order-number]")).toBe(order.invoice_number);
    expect(await page.textContent("[data-testid=amount-paid]")).toBe("$49.00");
    const keys = await api(
      t.url,
      `/v1/license-keys/?organization_id=${order.product.organization_id}`,
      {
        token,
      },
    );
    const issued = keys.body.items.find(
      (k: { customer_id: string }) => k.customer_id === order.customer_id,
    );
    expect(await page.textContent("[data-testid=license-key]")).toBe(issued.key);
    await page.click(".license button");
    await page.waitForSelector(".license button:has-text('Copied')");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(issued.key);
    await page.waitForSelector("text=Write to support@example.com", { timeout: 15_000 });
    expect(await page.textContent("main")).not.toMatch(/receipt/i);
    // The portal link opens this buyer's portal.
    const portal = await page.getAttribute("a:has-text('Manage your purchase')", "href");
    await page.screenshot({ path: screenshotPath("confirmation"), fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
    await page.evaluate(() => {
      document.documentElement.dataset.theme = "dark";
    });
    await page.screenshot({ path: screenshotPath("confirmation-dark"), fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
    await page.goto(new URL(portal!, t.url).toString());
    await page.waitForSelector(`text=${order.invoice_number}`, { timeout: 10_000 }).catch(() => {});
    expect(await page.textContent("body")).toContain("Desktop app");
    await context.close();
  });

  it("a subscription's confirmation says what it renews at while its discount lasts and after", async () => {
    const plan = await api(t.url, "/v1/products/", {
      token,
      body: {
        name: "Team plan",
        recurring_interval: "month",
        prices: [{ amount_type: "fixed", price_amount: 2000, price_currency: "usd" }],
      },
    });
    const renewsAt = async (discount: Record<string, unknown>) => {
      const created = await api(t.url, "/v1/discounts/", {
        token,
        body: {
          name: `d ${discount.duration}`,
          type: "percentage",
          basis_points: 2500,
          ...discount,
        },
      });
      expect(created.status).toBe(201);
      const checkout = await api(t.url, "/v1/checkouts/", {
        token,
        body: { products: [plan.body.id], discount_id: created.body.id },
      });
      expect(checkout.body.total_amount).toBe(1500);
      const page = await browser.newPage();
      await page.goto(checkout.body.url);
      await fillCheckout(page, { email: `renews-${discount.duration}@example.com` });
      await page.click("button.pay");
      await page.waitForSelector("[data-testid=renews-at]", { timeout: 15_000 });
      expect(await page.textContent("[data-testid=amount-paid]")).toBe("$15.00");
      const text = await page.textContent("[data-testid=renews-at]");
      await page.close();
      return text;
    };
    expect(await renewsAt({ duration: "once" })).toBe("$20.00 / month");
    expect(await renewsAt({ duration: "forever" })).toBe("$15.00 / month");
    expect(await renewsAt({ duration: "repeating", duration_in_months: 3 })).toBe(
      "$15.00 / month for the first 3 months, then $20.00 / month",
    );
  });

  it("a subscription's confirmation gives the date it charges next, for a trial its first charge", async () => {
    const charges = async (plan: Record<string, unknown>, locale: string) => {
      const product = await api(t.url, "/v1/products/", {
        token,
        body: {
          name: "Studio plan",
          recurring_interval: "month",
          prices: [{ amount_type: "fixed", price_amount: 2000, price_currency: "usd" }],
          ...plan,
        },
      });
      const checkout = await api(t.url, "/v1/checkouts/", {
        token,
        body: { products: [product.body.id] },
      });
      const page = await browser.newPage({ locale, timezoneId: "UTC" });
      await page.goto(checkout.body.url);
      await fillCheckout(page);
      await page.click("button.pay");
      const date = page.getByTestId("renews-on");
      await date.waitFor({ timeout: 15_000 });
      const shown = {
        paid: await page.getByTestId("amount-paid").textContent(),
        price: await page.getByTestId("renews-at").textContent(),
        label: await page.locator("dt:has(+ [data-testid=renews-on])").textContent(),
        date: await date.textContent(),
      };
      expect(await seriousViolations(page)).toEqual([]);
      await page.close();
      const order = await api(t.url, `/v1/orders/?checkout_id=${checkout.body.id}`, { token });
      const sub = await api(t.url, `/v1/subscriptions/${order.body.items[0].subscription_id}`, {
        token,
      });
      const end = new Date(sub.body.current_period_end).toLocaleDateString(locale, {
        timeZone: "UTC",
        year: "numeric",
        month: "short",
        day: "numeric",
      });
      return { shown, end, trialEnd: sub.body.trial_end };
    };
    const monthly = await charges({}, "en-US");
    expect(monthly.shown).toEqual({
      paid: "$20.00",
      price: "$20.00 / month",
      label: "Next charge",
      date: monthly.end,
    });
    expect(monthly.end).toMatch(/^[A-Z][a-z]{2} \d{1,2}, \d{4}$/);
    const trial = await charges({ trial_interval: "day", trial_interval_count: 7 }, "en-GB");
    // Nothing paid yet, for a product that is not free.
    expect(trial.shown).toEqual({
      paid: "US$0.00",
      price: "US$20.00 / month",
      label: "First charge",
      date: trial.end,
    });
    expect(trial.end).toMatch(/^\d{1,2} [A-Z][a-z]{2} \d{4}$/);
    expect(trial.trialEnd).not.toBeNull();
  });

  it("the confirmation page of an unpaid checkout says nothing was charged and links back", async () => {
    const checkout = await api(t.url, "/v1/checkouts/", { token, body: { products: [productId] } });
    const page = await browser.newPage();
    await page.goto(`${checkout.body.url}/confirmation`);
    await page.waitForSelector("h1:has-text('This checkout was not paid')");
    await page.click("a:has-text('Back to checkout')");
    await page.waitForSelector("#email");
    expect(new URL(page.url()).pathname).toBe(`/checkout/${checkout.body.client_secret}`);
    await page.close();
  });
});
