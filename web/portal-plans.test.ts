// Changing plan from the customer portal in a real browser: the seller's other public recurring
// plans are offered with their prices, the change is confirmed by keyboard and made, and the page
// says what it charged; a declined card is said in place, with where to fix it, the choice kept
// and nothing changed; the control is not offered on an ending subscription nor where the seller
// switched it off; focus stays in the card as its forms close.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../test/helpers/auth.ts";
import { setOrganizationSettings } from "../test/helpers/billing.ts";
import { launchBrowser, snapshot } from "../test/helpers/chromium.ts";
import { axeViolations, PHONE } from "../test/helpers/dashboard.ts";
import { startTestServer, type TestServer } from "../test/helpers/server.ts";
import { portalSeller } from "../test/helpers/portal-browser.ts";

let t: TestServer;
let browser: Browser;
let seller: { token: string; organizationId: string };
let shop: ReturnType<typeof portalSeller>;
const plans: Record<string, string> = {};
const call: ReturnType<typeof portalSeller>["call"] = (path, init) => shop.call(path, init);

async function product(name: string, body: Record<string, unknown>) {
  plans[name] = (await call("/v1/products/", { body: { name, ...body } })).id;
}

/** A subscription to Pro bought with the given sandbox card token. */
const subscribe = (email: string, card: string) => shop.purchase(plans.Pro!, email, card);
const openPortal = (customerId: string, viewport?: { width: number; height: number }) =>
  shop.openPortal(browser, customerId, viewport);

const card = (page: Page, id: string) => page.locator(`[data-subscription="${id}"]`);

beforeAll(async () => {
  [t, browser] = await Promise.all([startTestServer({ worker: false }), launchBrowser()]);
  const s = await createSeller(t.url, [
    "products:write",
    "checkouts:write",
    "orders:read",
    "subscriptions:write",
    "customer_sessions:write",
    "organizations:write",
  ]);
  seller = { token: s.token, organizationId: s.organization.id };
  shop = portalSeller(t.url, s.token);
  const monthly = (amount: number) => ({
    recurring_interval: "month",
    prices: [{ amount_type: "fixed", price_amount: amount, price_currency: "usd" }],
  });
  await product("Pro", monthly(1500));
  await product("Team", monthly(3000));
  await product("Business", {
    recurring_interval: "year",
    prices: [{ amount_type: "fixed", price_amount: 30000, price_currency: "usd" }],
  });
  // Neither is offered: a one-time product and a private plan.
  await product("Ebook", {
    prices: [{ amount_type: "fixed", price_amount: 900, price_currency: "usd" }],
  });
  await product("Partner", { ...monthly(500), visibility: "private" });
  await setOrganizationSettings(t.url, seller, "subscription_settings", {
    proration_behavior: "invoice",
  });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.stop();
});

describe("changing plan in the customer portal", () => {
  it("offers the other public recurring plans, confirms by keyboard, and shows the new plan and its proration order", async () => {
    const bought = await subscribe("switch@example.com", "sandbox_token_success");
    const page = await openPortal(bought.customer_id);
    const sub = card(page, bought.subscription_id);
    await sub.getByRole("button", { name: "Change plan" }).click();
    const group = sub.getByRole("group", { name: "Choose a new plan for Pro" });
    await group.getByRole("radio").first().waitFor();
    const options = await group.locator(".plan-option").allTextContents();
    expect(options).toEqual(["Business$300.00 / year", "Team$30.00 / month"]);
    expect(await group.textContent()).toContain("Current plan: Pro, $15.00 / month");
    // Focus is on the first plan: the arrow key picks the next, Tab reaches Continue.
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute("type")))
      .toBe("radio");
    await page.keyboard.press("ArrowDown");
    expect(await group.getByRole("radio", { name: /Team/ }).isChecked()).toBe(true);
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    const confirm = sub.getByRole("region", { name: "Switch to Team?" });
    await confirm.waitFor();
    expect(await confirm.textContent()).toContain("charged to your saved card");
    await snapshot(page, "portal-change-plan-confirm");
    await sub.getByRole("button", { name: "Change to Team" }).click();

    const notice = sub.locator(".plan-changed");
    await expect.poll(() => notice.textContent()).toMatch(/^You're now on Team\. \$.+ was charged/);
    expect(await sub.locator("strong").first().textContent()).toBe("Team");
    const after = await call(`/v1/subscriptions/${bought.subscription_id}`);
    expect(after.product_id).toBe(plans.Team);
    const orders = await call(
      `/v1/orders/?subscription_id=${bought.subscription_id}&sorting=-created_at`,
    );
    const proration = orders.items[0];
    expect(proration.billing_reason).toBe("subscription_update");
    expect(await notice.textContent()).toContain(`(order ${proration.invoice_number})`);
    await page.close();
  });

  it("focus stays in the card: closing a form goes back to its button, a change made to its notice", async () => {
    const bought = await subscribe("focus@example.com", "sandbox_token_success");
    const page = await openPortal(bought.customer_id);
    const sub = card(page, bought.subscription_id);
    const focused = () =>
      page.evaluate(() => {
        const el = document.activeElement as HTMLElement;
        return `${el.tagName.toLowerCase()}.${el.className.split(" ").join(".")}`;
      });
    await sub.getByRole("button", { name: "Cancel subscription" }).focus();
    await page.keyboard.press("Enter");
    await sub.getByRole("button", { name: "Back" }).focus();
    await page.keyboard.press("Enter");
    expect(await focused()).toBe("button.cancel");
    await sub.getByRole("button", { name: "Change plan" }).focus();
    await page.keyboard.press("Enter");
    await sub.getByRole("radio").first().waitFor();
    await sub.getByRole("button", { name: "Keep current plan" }).focus();
    await page.keyboard.press("Enter");
    expect(await focused()).toBe("button.change-plan-open");
    await page.keyboard.press("Enter");
    await sub.getByRole("radio", { name: /Team/ }).check();
    await sub.getByRole("button", { name: "Continue" }).click();
    await sub.getByRole("button", { name: "Change to Team" }).focus();
    await page.keyboard.press("Enter");
    await expect.poll(focused).toBe("p.notice.plan-changed");
    await page.close();
  });

  it("a declined card is said beside the confirmation, the choice kept and the plan unchanged", async () => {
    const bought = await subscribe("declined@example.com", "sandbox_token_renewal_declined");
    const page = await openPortal(bought.customer_id);
    const sub = card(page, bought.subscription_id);
    await sub.getByRole("button", { name: "Change plan" }).click();
    await sub.getByRole("radio", { name: /Team/ }).check();
    await sub.getByRole("button", { name: "Continue" }).click();
    await sub.getByRole("button", { name: "Change to Team" }).click();
    const alert = sub.getByRole("alert");
    await alert.waitFor();
    // What happened, and where to fix it.
    expect(await alert.textContent()).toBe(
      "Your card was declined. Add another card under Payment method, then try again.",
    );
    // Still on the confirmation, ready to try again or go back to the same choice.
    expect(await sub.getByRole("button", { name: "Change to Team" }).isEnabled()).toBe(true);
    // The button pressed keeps the focus, to try again or Tab back.
    expect(await page.evaluate(() => document.activeElement?.className)).toBe(
      "confirm-plan-change",
    );
    await sub.getByRole("button", { name: "Back" }).click();
    expect(await sub.getByRole("radio", { name: /Team/ }).isChecked()).toBe(true);
    expect((await call(`/v1/subscriptions/${bought.subscription_id}`)).product_id).toBe(plans.Pro);
    expect(await sub.locator("strong").first().textContent()).toBe("Pro");
    await page.close();
  });

  it("has no axe violations with the plans open on a phone", async () => {
    const bought = await subscribe("phone@example.com", "sandbox_token_success");
    const page = await openPortal(bought.customer_id, PHONE);
    const sub = card(page, bought.subscription_id);
    await sub.getByRole("button", { name: "Change plan" }).click();
    await sub.getByRole("radio", { name: /Business/ }).check();
    await snapshot(page, "portal-change-plan-phone");
    expect(await axeViolations(page)).toEqual([]);
    // Nothing wider than the phone's screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      PHONE.width,
    );
    await sub.getByRole("button", { name: "Continue" }).click();
    await sub.getByRole("button", { name: "Change to Business" }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });

  it("is not offered on an ending subscription, nor when the seller switches plan changes off", async () => {
    const bought = await subscribe("ending@example.com", "sandbox_token_success");
    const page = await openPortal(bought.customer_id);
    const sub = card(page, bought.subscription_id);
    const button = sub.getByRole("button", { name: "Change plan" });
    await button.waitFor();
    await setOrganizationSettings(t.url, seller, "customer_portal_settings", {
      subscription: { update_seats: true, update_plan: false, pause: false },
    });
    await page.reload();
    await sub.locator("button.cancel").waitFor();
    expect(await button.count()).toBe(0);
    await setOrganizationSettings(t.url, seller, "customer_portal_settings", {
      subscription: { update_seats: true, update_plan: true, pause: false },
    });
    await call(`/v1/subscriptions/${bought.subscription_id}`, {
      method: "PATCH",
      body: { cancel_at_period_end: true },
    });
    await page.reload();
    await sub.locator("button.uncancel").waitFor();
    expect(await button.count()).toBe(0);
    await page.close();
  });

  it("asks for a saved card before a paid plan, as Polar's portal does", async () => {
    // A free plan needs no card, so its customer may remove every card they have.
    await product("Starter", {
      recurring_interval: "month",
      prices: [{ amount_type: "free" }],
      visibility: "private",
    });
    const bought = await shop.purchase(plans.Starter!, "cardless@example.com");
    const session = await call("/v1/customer-sessions/", {
      body: { customer_id: bought.customer_id },
    });
    const mine = (path: string, method = "GET") =>
      api(t.url, `/v1/customer-portal/customers/me/payment-methods${path}`, {
        token: session.token,
        method,
      });
    for (const m of (await mine("")).body.items)
      expect((await mine(`/${m.id}`, "DELETE")).status).toBe(204);
    const page = await openPortal(bought.customer_id);
    const sub = card(page, bought.subscription_id);
    await sub.getByRole("button", { name: "Change plan" }).click();
    await sub.getByRole("radio", { name: /Team/ }).check();
    expect(await sub.locator(".needs-card").textContent()).toContain("Add a card");
    expect(await sub.getByRole("button", { name: "Continue" }).isDisabled()).toBe(true);
    await page.close();
  });
});

describe("a plan billed every few months in the portal", () => {
  it("says its price per its whole interval, not per month", async () => {
    await product("Quarterly", {
      recurring_interval: "month",
      recurring_interval_count: 3,
      prices: [{ amount_type: "fixed", price_amount: 4500, price_currency: "usd" }],
      visibility: "private",
    });
    const bought = await shop.purchase(plans.Quarterly!, "quarterly@example.com");
    const page = await openPortal(bought.customer_id);
    const sub = card(page, bought.subscription_id);
    expect(await sub.locator(".price").textContent()).toBe("$45.00 / 3 months");
    await sub.getByRole("button", { name: "Change plan" }).click();
    expect(await sub.locator(".current-plan").textContent()).toBe(
      "Current plan: Quarterly, $45.00 / 3 months",
    );
    await page.close();
  });
});
