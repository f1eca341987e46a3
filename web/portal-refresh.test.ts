// The customer portal when the server answers an action but not the reload after it, in a real
// browser: the page stays as it was and says the change was made but could not be shown, with a
// Refresh that takes the focus; Refresh failing again says so again; once it works the page shows
// the change. At 320 px the message and its button stay on the screen.
import type { Browser, Page, Route } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  billingSeller,
  monthlyProduct,
  subscribe,
  subscriptionOf,
  type BillingSeller,
} from "../test/helpers/billing.ts";
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

async function openPortal(customerId: string, viewport: { width: number; height: number }) {
  const session = await s.call("/v1/customer-sessions/", { body: { customer_id: customerId } });
  expect(session.status, JSON.stringify(session.body)).toBe(201);
  const page = await browser.newPage({ viewport, locale: "en-US" });
  await page.goto(session.body.customer_portal_url);
  return page;
}

const PORTAL_API = "**/v1/customer-portal/**";
/** The server briefly unavailable for reads: every GET of the portal's API answers 503. */
const readsDown = (route: Route) =>
  route.request().method() === "GET"
    ? route.fulfill({
        status: 503,
        contentType: "application/json",
        body: JSON.stringify({ error: "ServiceUnavailable", detail: "Try again shortly." }),
      })
    : route.fallback();

const focusedText = (page: Page) => page.evaluate(() => document.activeElement?.textContent);

describe("a reload that fails after an action in the portal", () => {
  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 320, height: 640 },
  ])
    it(`keeps the page and offers Refresh at ${viewport.width} px`, async () => {
      const product = await monthlyProduct(s, `Steady plan ${viewport.width}`, 1800);
      const { subscriptionId, customerId } = await subscribe(s, product.id);
      const page = await openPortal(customerId, viewport);
      const card = page.locator(`[data-subscription="${subscriptionId}"]`);
      await card.locator(".status").waitFor();
      const heading = await page.textContent("h1");

      await card.getByRole("button", { name: "Cancel subscription" }).click();
      await card.locator("select").selectOption("unused");
      await page.route(PORTAL_API, readsDown);
      await card.getByRole("button", { name: "Cancel at period end" }).click();
      const alert = page.getByRole("alert");
      await expect
        .poll(() => alert.textContent())
        .toBe(
          "Your change was made, but this page could not be refreshed to show it. Refresh to see your account as it is now.",
        );
      // The change went through; the page is still the account as it was, not an error page.
      expect((await subscriptionOf(s, subscriptionId)).cancel_at_period_end).toBe(true);
      expect(await page.textContent("h1")).toBe(heading);
      expect(await card.locator(".status").textContent()).toMatch(/^Renews on /);
      expect(await page.locator("table.orders tbody tr").count()).toBe(1);
      expect(await focusedText(page)).toBe("Refresh");
      expect(await page.evaluate(() => document.documentElement.scrollWidth - innerWidth)).toBe(0);
      await snapshot(page, `portal-refresh-failed-${viewport.width}`, { fullPage: true });

      // Still down: said again, in other words, so it is announced again.
      await page.getByRole("button", { name: "Refresh" }).click();
      await expect
        .poll(() => alert.textContent())
        .toBe("This page still could not be refreshed. Check your connection, then refresh again.");

      await page.unroute(PORTAL_API, readsDown);
      await page.getByRole("button", { name: "Refresh" }).click();
      await expect.poll(() => card.locator(".status").textContent()).toMatch(/^Cancels on /);
      expect(await page.getByRole("status").first().textContent()).toBe("The page is up to date.");
      expect(await alert.count()).toBe(0);
      expect(await focusedText(page)).toBe(heading);
      await page.close();
    });
});
