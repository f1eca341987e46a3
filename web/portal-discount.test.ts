// A discounted subscription in the customer portal, in a real browser: the card shows what the
// customer pays each period with the full price struck beside it (said to a screen reader too),
// names the discount and how long it lasts, and says what the renewal charges when the discount
// ends with this period; a metered plan keeps "+ usage". At 320 px nothing leaves the screen, and
// axe finds nothing at either width.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  billingSeller,
  meteredPlan,
  monthlyProduct,
  subscribe,
  subscriptionOf,
  type BillingSeller,
} from "../test/helpers/billing.ts";
import { launchBrowser, snapshot } from "../test/helpers/chromium.ts";
import { axeViolations } from "../test/helpers/dashboard.ts";
import { startTestServer, type TestServer } from "../test/helpers/server.ts";

let t: TestServer;
let browser: Browser;
let s: BillingSeller;
const discounts: Record<string, string> = {};

beforeAll(async () => {
  [t, browser] = await Promise.all([startTestServer({ worker: false }), launchBrowser()]);
  s = await billingSeller(t);
  for (const [key, body] of Object.entries({
    forever: { name: "Quarter off", type: "percentage", basis_points: 2500, duration: "forever" },
    repeating: {
      name: "Five off",
      type: "fixed",
      amount: 500,
      currency: "usd",
      duration: "repeating",
      duration_in_months: 3,
    },
    once: { name: "Welcome", type: "percentage", basis_points: 1250, duration: "once" },
  })) {
    const res = await s.call("/v1/discounts/", { body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    discounts[key] = res.body.id;
  }
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.stop();
});

/** The subscription's card in the portal, opened at the viewport's width. */
async function card(
  customerId: string,
  subscriptionId: string,
  viewport = { width: 1280, height: 800 },
) {
  const session = await s.call("/v1/customer-sessions/", { body: { customer_id: customerId } });
  expect(session.status, JSON.stringify(session.body)).toBe(201);
  const page = await browser.newPage({ viewport, locale: "en-US" });
  await page.goto(session.body.customer_portal_url);
  const el = page.locator(`[data-subscription="${subscriptionId}"]`);
  await el.locator(".status").waitFor();
  return { page, el };
}

async function discounted(productId: string, discount: string) {
  const bought = await subscribe(s, productId, undefined, undefined, "US", discounts[discount]);
  return {
    ...bought,
    renewal: (await subscriptionOf(s, bought.subscriptionId)).current_period_end,
  };
}

const renewsOn = (at: string) =>
  `Renews on ${new Date(at).toLocaleDateString("en-US", { year: "numeric", month: "short", day: "numeric" })}`;

describe("a discounted subscription in the portal", () => {
  it("shows what is paid, the full price struck, and the discount by name, at desktop and 320 px", async () => {
    const product = await monthlyProduct(s, "Studio", 2000);
    const { subscriptionId, customerId, renewal } = await discounted(product.id, "forever");
    for (const viewport of [
      { width: 1280, height: 800 },
      { width: 320, height: 640 },
    ]) {
      const { page, el } = await card(customerId, subscriptionId, viewport);
      const price = el.locator(".price");
      // Seen: the full price struck before what is paid; the words for a screen reader take no room.
      const del = price.locator("del");
      expect(await del.textContent()).toBe("Full price $20.00");
      expect(await del.evaluate((e) => getComputedStyle(e).textDecorationLine)).toBe(
        "line-through",
      );
      for (const box of await price
        .locator(".sr-only")
        .evaluateAll((els) => els.map((e) => e.getBoundingClientRect().width)))
        expect(box).toBeLessThanOrEqual(1);
      // A screen reader hears which figure is which, not two bare amounts.
      expect(await price.textContent()).toBe("Full price $20.00, you pay $15.00 / month");
      expect(await el.locator(".discount").textContent()).toBe(
        "Quarter off: 25% off every payment",
      );
      expect(await el.locator(".status").textContent()).toBe(renewsOn(renewal));
      expect(await page.evaluate(() => document.documentElement.scrollWidth - innerWidth)).toBe(0);
      expect(await axeViolations(page)).toEqual([]);
      await snapshot(page, `portal-discount-${viewport.width}`, { fullPage: true });
      await page.close();
    }
  });

  it("names a fixed discount for some months; the renewal stays discounted while it lasts", async () => {
    const product = await monthlyProduct(s, "Atelier", 2000);
    const { subscriptionId, customerId, renewal } = await discounted(product.id, "repeating");
    const { page, el } = await card(customerId, subscriptionId);
    expect(await el.locator(".price").textContent()).toBe(
      "Full price $20.00, you pay $15.00 / month",
    );
    expect(await el.locator(".discount").textContent()).toBe(
      "Five off: $5.00 off for the first 3 months",
    );
    expect(await el.locator(".status").textContent()).toBe(renewsOn(renewal));
    await page.close();
  });

  it("says the renewal charges the full price once a discount for one payment is spent", async () => {
    const product = await monthlyProduct(s, "Gallery", 2000);
    const { subscriptionId, customerId, renewal } = await discounted(product.id, "once");
    const { page, el } = await card(customerId, subscriptionId);
    expect(await el.locator(".price").textContent()).toBe(
      "Full price $20.00, you pay $17.50 / month",
    );
    expect(await el.locator(".discount").textContent()).toBe(
      "Welcome: 12.5% off the first payment",
    );
    expect(await el.locator(".status").textContent()).toBe(`${renewsOn(renewal)} at $20.00`);
    await page.close();
  });

  it("keeps + usage on a metered plan, its fixed price discounted", async () => {
    const { product } = await meteredPlan(s, { name: "Render", interval: "month", credit: 0 });
    const { subscriptionId, customerId } = await discounted(product.id, "forever");
    const { page, el } = await card(customerId, subscriptionId);
    expect(await el.locator(".price").textContent()).toBe(
      "Full price $100.00, you pay $75.00 / month + usage",
    );
    expect(await el.locator(".discount").textContent()).toBe("Quarter off: 25% off every payment");
    await page.close();
  });

  it("shows the price alone without a discount", async () => {
    const product = await monthlyProduct(s, "Plain", 2000);
    const { subscriptionId, customerId } = await subscribe(s, product.id);
    const { page, el } = await card(customerId, subscriptionId);
    expect(await el.locator(".price").textContent()).toBe("$20.00 / month");
    expect(await el.locator(".discount").count()).toBe(0);
    await page.close();
  });
});
