// A seller's first minutes in the dashboard, in a real browser against a real server: sign up,
// create an organization, create a product with a price, see it listed, create a checkout from the
// product page and open it. Also: wrong input shows an error and changes nothing, light and dark
// screenshots of three pages, and axe-core on the products page.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fillCheckout } from "../test/helpers/checkout-page.ts";
import { launchBrowser, screenshotPath } from "../test/helpers/chromium.ts";
import { startTestServer, type TestServer } from "../test/helpers/server.ts";

let t: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const email = `seller-${Date.now()}@example.com`;
const password = "correct horse battery";

beforeAll(async () => {
  [t, browser] = await Promise.all([startTestServer({ worker: false }), launchBrowser()]);
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
  page.setDefaultTimeout(10_000);
});
afterAll(async () => {
  await browser?.close();
  await t?.stop();
});

async function seriousViolations(p: Page): Promise<string[]> {
  await p.evaluate(
    readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8"),
  );
  return p.evaluate(async () => {
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

/** Light and dark, via prefers-color-scheme (the toggle is tested on its own). */
async function screenshotBoth(name: string): Promise<void> {
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: screenshotPath(`dashboard-${name}-${scheme}`), fullPage: true });
  }
  await page.emulateMedia({ colorScheme: "light" });
}

describe("dashboard: from sign-up to an open checkout", () => {
  it("signs up and creates an organization", async () => {
    await page.goto(`${t.url}/`);
    await page.click("text=Sign up");
    await page.getByLabel("Name", { exact: true }).fill("Sam Seller");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.click("button:has-text('Create account')");
    await page.waitForSelector("h1:has-text('Create your organization')");
    await page.getByLabel("Name", { exact: true }).fill("Acme Tools");
    expect(await page.getByLabel("Slug").inputValue()).toBe("acme-tools");
    await page.click("button:has-text('Create organization')");
    await page.waitForSelector("h1:has-text('Products')");
    await page.waitForSelector("text=No products yet");
    expect(await page.textContent(".empty")).toContain(
      "till products create --name Pro --price 1500 --recurring month",
    );
    expect(await page.locator(".org-switcher select").inputValue()).not.toBe("");
  });

  it("refuses a price that is not a number and creates nothing", async () => {
    await page.click("button:has-text('New product')");
    await page.getByLabel("Name", { exact: true }).fill("Broken");
    await page.getByLabel("Price").fill("abc");
    await page.click("button:has-text('Create product')");
    await expect
      .poll(() => page.textContent("[role=alert]"))
      .toContain("Enter the price as a number");
    await page.getByLabel("Price").fill("0.20");
    await page.click("button:has-text('Create product')");
    await expect
      .poll(() => page.textContent("[role=alert]"))
      .toContain("A price is either free (0) or at least $0.50.");
    const listed = await page.evaluate(() =>
      fetch("/v1/products/").then((r) => r.json() as Promise<{ items: unknown[] }>),
    );
    expect(listed.items).toEqual([]);
  });

  it("creates a product with a monthly price and lands on its page", async () => {
    await page.getByLabel("Name", { exact: true }).fill("Pro");
    await page.getByLabel("Description").fill("Everything in one plan");
    await page.getByLabel("Price").fill("15.00");
    await page.getByLabel("Billing").selectOption("month");
    await page.click("button:has-text('Create product')");
    // "Products" contains "Pro": wait for the product's own page, not the list's heading.
    await page.waitForURL(/\/products\/[0-9a-f-]{36}$/);
    await page.locator("h1", { hasText: /^Pro$/ }).waitFor();
    expect(await page.textContent(".big-number")).toBe("$15.00 / month");
  });

  it("lists the product; the products page has no serious accessibility violations in either theme", async () => {
    await page.click("nav >> text=Products");
    await page.waitForSelector("table >> text=Pro");
    const row = page.locator("tbody tr", { hasText: "Pro" });
    expect(await row.textContent()).toContain("$15.00 / month");
    expect(await row.textContent()).toContain("subscription");
    expect(await seriousViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: "dark" });
    expect(await seriousViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: "light" });
    await screenshotBoth("products");
  });

  it("creates a checkout from the product page and opens it: the hosted checkout shows the product", async () => {
    await page.click("table >> text=Pro");
    await page.click("button:has-text('Create checkout')");
    const link = page.locator("a.checkout-url");
    await link.waitFor();
    const url = await link.getAttribute("href");
    expect(url).toMatch(new RegExp(`^${t.url}/checkout/`));
    await page.click("button:has-text('Create checkout link')");
    await page.waitForSelector("text=Paste this on your site");
    const snippet = await page.locator(".result .command code").textContent();
    expect(snippet).toMatch(
      new RegExp(
        `^<a href="${t.url}/[^"]+" data-till-checkout>Buy</a><script src="${t.url}/embed.js"></script>$`,
      ),
    );
    await screenshotBoth("product");

    const checkout = await context.newPage();
    await checkout.goto(url!);
    await checkout.waitForSelector("#email");
    expect(await checkout.textContent("h1")).toBe("Pro");
    await checkout.close();

    await page.click("nav >> text=Checkouts");
    await page.waitForSelector("tbody >> text=open");
    expect(await page.locator("tbody").first().textContent()).toContain("Pro");
  });

  it("the overview charts revenue, MRR, orders and subscriptions over the chosen period and lists sales by product", async () => {
    // A buyer pays a checkout for Pro ($15.00 / month).
    const checkoutUrl = await page.evaluate(async () => {
      const products = await (await fetch("/v1/products/", { credentials: "include" })).json();
      const res = await fetch("/v1/checkouts/", {
        method: "POST",
        credentials: "include",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ products: [products.items[0].id] }),
      });
      return (await res.json()).url as string;
    });
    const buyer = await context.newPage();
    await buyer.goto(checkoutUrl);
    await buyer.waitForSelector("#email");
    await fillCheckout(buyer, { email: "first-buyer@example.com" });
    await buyer.click("button.pay");
    await buyer.waitForURL(/\/confirmation/, { timeout: 15_000 });
    await buyer.close();

    await page.click("nav >> text=Overview");
    await page.waitForSelector(".stat >> text=$15.00");
    await page.waitForFunction(
      () => document.querySelectorAll(".chart .recharts-surface").length === 4,
    );
    const stats = await page.locator(".stat").allTextContents();
    expect(stats).toEqual(["Revenue$15.00", "MRR$15.00", "Orders1", "Active subscriptions1"]);
    // The sales table fills after the charts: wait for its figures, not its placeholders.
    await expect
      .poll(() => page.locator("#product-sales + table tbody tr", { hasText: "Pro" }).textContent())
      .toContain("$15.00");
    await page.click(".period-picker >> text=12 months");
    await page.waitForSelector(".period-picker button[aria-pressed=true] >> text=12 months");
    await page.waitForSelector(".stat >> text=$15.00");
    expect(await seriousViolations(page)).toEqual([]);
    await screenshotBoth("overview");
  });

  it("refunds part of an order from the orders page, in dollars, with a reason", async () => {
    await page.click("nav >> text=Orders");
    await page.click("button:has-text('Refund')");
    const amount = page.getByLabel("Amount (USD)");
    expect(await amount.inputValue()).toBe("15.00");
    expect(await page.evaluate(() => document.activeElement?.getAttribute("name"))).toBe("amount");
    await amount.fill("20");
    await page.click("form.refund-form button[type=submit]");
    await page.waitForSelector("text=At most $15.00 can be refunded on this order.");
    await amount.fill("5.50");
    await page.getByLabel("Reason").selectOption("duplicate");
    await page.click("form.refund-form button[type=submit]");
    await page.waitForSelector("tbody >> text=partially refunded");
    expect(await page.locator("form.refund-form").count()).toBe(0);
    const refunds = await page.evaluate(async () =>
      (await fetch("/v1/refunds/", { credentials: "include" })).json(),
    );
    expect(refunds.items[0]).toMatchObject({ amount: 550, reason: "duplicate" });
    expect(await seriousViolations(page)).toEqual([]);
  });

  it("on a phone the content starts on the first screen and the sections fold behind a Menu button", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.click("nav >> text=Overview").catch(() => page.goto(`${t.url}/`));
    await page.goto(`${t.url}/`);
    await page.waitForSelector(".stat >> text=Revenue");
    const heading = await page.locator(".content h1").boundingBox();
    expect(heading!.y).toBeLessThan(200);
    expect(await page.isVisible("nav[aria-label=Sections]")).toBe(false);
    await page.screenshot({ path: screenshotPath("dashboard-phone"), fullPage: false });
    await page.click("button.menu-toggle");
    expect(await page.getAttribute("button.menu-toggle", "aria-expanded")).toBe("true");
    await page.screenshot({ path: screenshotPath("dashboard-phone-menu") });
    await page.click("nav >> text=Orders");
    await page.waitForSelector(".content h1:has-text('Orders')");
    expect(await page.isVisible("nav[aria-label=Sections]")).toBe(false);
    expect(await seriousViolations(page)).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it("charts a meter's quantities from ingested events", async () => {
    const ingested = await page.evaluate(async () => {
      const post = (path: string, body: unknown) =>
        fetch(path, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        }).then((r) => r.json());
      const customer = (await post("/v1/customers/", {
        email: "buyer@example.com",
        name: "Bea Buyer",
      })) as { id: string };
      // A few weeks of traffic that grows and dips, so the chart has a shape: 3..15 calls a day.
      const day = 86_400_000;
      const events = Array.from({ length: 21 }, (_, d) =>
        Array.from({ length: 3 + ((d * 5) % 7) + Math.floor(d / 4) }, (_, i) => ({
          name: "api_call",
          customer_id: customer.id,
          timestamp: new Date(Date.now() - (20 - d) * day - (i + 1) * 600_000).toISOString(),
        })),
      ).flat();
      await post("/v1/events/ingest", { events });
      return events.length;
    });
    await page.click("nav >> text=Meters");
    await page.click("button:has-text('New meter')");
    await page.getByLabel("Name", { exact: true }).fill("API calls");
    await page.getByLabel("Event name").fill("api_call");
    await page.click("button:has-text('Create meter')");
    await page.click("table >> text=API calls");
    await page.waitForSelector("svg.chart");
    expect(await page.textContent(".card .big-number")).toBe(String(ingested));
    expect(await page.locator("svg.chart rect.bar").count()).toBeGreaterThan(20);
    await screenshotBoth("meter");
  });

  it("the theme toggle switches to dark and is remembered", async () => {
    await page.click("button[aria-label^='Theme']");
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe("dark");
    await page.reload();
    await page.waitForSelector("svg.chart");
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe("dark");
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(bg).toBe("rgb(14, 16, 20)");
    await page.evaluate(() => localStorage.removeItem("till-theme"));
  });

  it("every section opens without an error, webhooks included", async () => {
    const links = await page
      .locator("nav a")
      .evaluateAll((as) => as.map((a) => [a.getAttribute("href")!, a.textContent!] as const));
    expect(links.length).toBeGreaterThanOrEqual(15);
    // axe on every section, light and dark: no serious or critical violations.
    const found: string[] = [];
    for (const [href, label] of links) {
      await page.click(`nav a[href="${href}"]`);
      await page.waitForSelector(`nav a[href="${href}"][aria-current=page]`);
      await expect
        .poll(() => page.locator("[role=status].loading").count(), { message: label })
        .toBe(0);
      expect(await page.locator("[role=alert]").allTextContents(), label).toEqual([]);
      for (const scheme of ["light", "dark"] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        found.push(...(await seriousViolations(page)).map((v) => `${label} (${scheme}): ${v}`));
      }
      await page.emulateMedia({ colorScheme: "light" });
    }
    expect(found).toEqual([]);
    await page.click("nav a[href='/webhooks']");
    await page.waitForSelector("text=No webhook endpoints yet");
  });

  it("creates an access token, shows it once, and it works against the API", async () => {
    await page.click("nav a[href='/tokens']");
    await page.click("button:has-text('New token')");
    await page.getByLabel("Name", { exact: true }).fill("CI deploys");
    await page.click("button:has-text('Create token')");
    const token = (await page.locator("code.token").textContent())!;
    expect(token).toMatch(/^till_oat_/);
    const res = await fetch(`${t.url}/v1/products/`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { items: { name: string }[] }).items.map((p) => p.name)).toEqual([
      "Pro",
    ]);
    await page.click("button:has-text('I have stored it')");
    expect(await page.locator("code.token").count()).toBe(0);
    await page.waitForSelector("tbody >> text=CI deploys");
  });

  it("invites a teammate, whose invitation appears in the sandbox outbox; creates a team and a role", async () => {
    await page.click("nav a[href='/settings/members']");
    await page.getByLabel("Invite by email").fill("mate@example.com");
    await page.click("button:has-text('Send invitation')");
    await page.waitForSelector("li:has-text('mate@example.com')");
    await page.click("nav a[href='/emails']");
    await page.click("button:has-text('invited you to Acme Tools')");
    expect(await page.locator("a:has-text('Open the link')").getAttribute("href")).toMatch(
      new RegExp(`^${t.url}/accept-invitation/`),
    );
    expect(await page.locator(".mail-head").allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining("Verify your email")]),
    );

    await page.click("nav a[href='/settings/teams']");
    await page.getByLabel("New team").fill("Support");
    await page.click("button:has-text('Create team')");
    await page.waitForSelector("li:has-text('Support')");
    await page.getByLabel("Role name").fill("support");
    await page.getByLabel("member: update").check();
    await page.click("button:has-text('Create role')");
    await page.waitForSelector("li:has-text('member: update')");
  });

  it("the sandbox clock moves the organization's time ahead and back", async () => {
    await page.click("nav a[href='/clock']");
    await page.waitForSelector("[data-testid=clock-offset]");
    expect(await page.textContent("[data-testid=clock-offset]")).toBe("Real time");
    await page.click("button:has-text('Advance 1 week')");
    await page.waitForSelector("[data-testid=clock-offset] >> text=7 days ahead of real time");
    await page.click("button:has-text('Reset to real time')");
    await page.waitForSelector("[data-testid=clock-offset] >> text=Real time");
  });

  it("signing in again with a wrong password shows the error; the right one opens the dashboard", async () => {
    await page.click("button:has-text('Sign out')");
    await page.waitForSelector("h1:has-text('Sign in')");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("wrong password!");
    await page.click("button[type=submit]");
    await expect.poll(() => page.textContent("[role=alert]")).toMatch(/invalid/i);
    await page.getByLabel("Password").fill(password);
    await page.click("button[type=submit]");
    await page.waitForSelector("h1:has-text('Acme Tools')");
  });
});
