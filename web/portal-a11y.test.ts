// axe-core on the customer portal, at any impact, on a desktop (1440×900) and a phone (390×844)
// viewport, in the light and the dark theme: a customer with a subscription, a one-time order, a
// license key and a meter credit, so every section of the page has content to check. And the
// license key, shown masked, reaches the buyer whether or not the browser lets the page copy; its
// Copy button names the benefit whose key it copies, and a revoked key is said so, with no Copy.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../test/helpers/auth.ts";
import { launchBrowser, snapshot } from "../test/helpers/chromium.ts";
import { axeViolations, DESKTOP, PHONE } from "../test/helpers/dashboard.ts";
import { eventually } from "../test/helpers/grants.ts";
import { startTestServer, type TestServer } from "../test/helpers/server.ts";
import { US_ADDRESS } from "../test/helpers/addresses.ts";

let t: TestServer;
let browser: Browser;
let token: string;
let customerId: string;
let organizationId: string;
let planId: string;

async function call(path: string, body?: unknown) {
  const res = await api(t.url, path, { token, ...(body === undefined ? {} : { body }) });
  expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body;
}

async function buy(productId: string, email: string) {
  const checkout = await call("/v1/checkouts/", { products: [productId] });
  const secret = checkout.client_secret as string;
  await api(t.url, `/v1/checkouts/client/${secret}`, {
    method: "PATCH",
    body: { customer_email: email, customer_billing_address: US_ADDRESS },
  });
  const confirmed = await api(t.url, `/v1/checkouts/client/${secret}/confirm`, {
    body: { confirmation_token_id: "sandbox_token_success" },
  });
  expect(confirmed.status).toBe(200);
  return (await call(`/v1/orders/?checkout_id=${checkout.id}`)).items[0];
}

/** Waits until the customer holds `count` granted benefits. */
async function grantsOf(customer: string, count: number) {
  await eventually(
    async () =>
      (await call(`/v1/benefit-grants/?customer_id=${customer}&is_granted=true`)).items.length ===
        count || undefined,
    20_000,
    `${count} grants`,
  );
}

beforeAll(async () => {
  [t, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  const seller = await createSeller(t.url, [
    "products:write",
    "benefits:write",
    "meters:write",
    "events:write",
    "checkouts:write",
    "orders:read",
    "subscriptions:read",
    "customer_sessions:write",
    "license_keys:read",
    "license_keys:write",
  ]);
  token = seller.token;
  organizationId = seller.organization.id;
  const meter = await call("/v1/meters/", {
    name: "API calls",
    filter: { conjunction: "and", clauses: [] },
    aggregation: { func: "count" },
  });
  const key = await call("/v1/benefits/", {
    type: "license_keys",
    description: "License key",
    properties: { activations: { limit: 2, enable_customer_admin: true } },
  });
  const credits = await call("/v1/benefits/", {
    type: "meter_credit",
    description: "1,000 API calls",
    properties: { meter_id: meter.id, units: 1000, rollover: false },
  });
  const plan = await call("/v1/products/", {
    name: "Pro plan",
    recurring_interval: "month",
    prices: [{ amount_type: "fixed", price_amount: 1500, price_currency: "usd" }],
  });
  planId = plan.id;
  await call(`/v1/products/${plan.id}/benefits`, { benefits: [credits.id] });
  const app = await call("/v1/products/", {
    name: "Desktop app",
    prices: [{ amount_type: "fixed", price_amount: 4900, price_currency: "usd" }],
  });
  await call(`/v1/products/${app.id}/benefits`, { benefits: [key.id] });
  const email = "a11y@example.com";
  customerId = (await buy(plan.id, email)).customer_id;
  await buy(app.id, email);
  await grantsOf(customerId, 2);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.stop();
});

describe("customer portal accessibility", () => {
  for (const [name, viewport] of [
    ["desktop", DESKTOP],
    ["phone", PHONE],
  ] as const) {
    it(`has no axe violations at any impact on a ${name}, light and dark`, async () => {
      const found: string[] = [];
      for (const theme of ["light", "dark"] as const) {
        const session = await call("/v1/customer-sessions/", { customer_id: customerId });
        const page = await browser.newPage({ viewport });
        await page.goto(`${session.customer_portal_url}&theme=${theme}`);
        await page.locator("[data-subscription]").first().waitFor();
        await page.getByText("License key").first().waitFor();
        await snapshot(page, `portal-${name}-${theme}`);
        for (const v of await axeViolations(page)) found.push(`${theme}: ${v}`);
        await page.close();
      }
      expect(found).toEqual([]);
    });
  }
});

describe("the benefits in the portal", () => {
  it("name each benefit's type as Polar's portal does", async () => {
    const session = await call("/v1/customer-sessions/", { customer_id: customerId });
    const page = await browser.newPage();
    await page.goto(session.customer_portal_url);
    const rows = page.locator("[aria-labelledby=benefits-h] > .card.row:not(.download)");
    await rows.first().waitFor();
    expect((await rows.allTextContents()).sort()).toEqual([
      "1,000 API callsMeter credits",
      "License keyLicense keys",
    ]);
    await page.close();
  });
});

describe("the meter credit in the portal", () => {
  /** The customer's meter credit line, as an en-US browser shows it. */
  async function creditLine(customer: string): Promise<string | null> {
    const session = await call("/v1/customer-sessions/", { customer_id: customer });
    const page = await browser.newPage({ locale: "en-US" });
    await page.goto(session.customer_portal_url);
    const credit = page.locator("#usage-h ~ .meter");
    await credit.waitFor();
    const text = await credit.textContent();
    await page.close();
    return text;
  }

  it("writes its units as the buyer's locale does, as the benefit's own name does", async () => {
    expect(await creditLine(customerId)).toBe("API calls0 used of 1,000 (1,000 left)");
  });

  it("says how far usage went past the credit, not a negative number left", async () => {
    const buyer = (await buy(planId, "overdrawn@example.com")).customer_id as string;
    await grantsOf(buyer, 1);
    // A batch holds at most 1,000 events.
    for (const count of [1000, 1000, 500]) {
      const events = Array.from({ length: count }, () => ({ name: "call", customer_id: buyer }));
      await call("/v1/events/ingest", { events });
    }
    expect(await creditLine(buyer)).toBe("API calls2,500 used of 1,000 (1,500 over)");
  });
});

describe("the license key in the portal", () => {
  const key = async () =>
    (await call(`/v1/license-keys/?organization_id=${organizationId}`)).items[0].key as string;

  it("Copy key puts the whole key on the clipboard", async () => {
    const context = await browser.newContext();
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: t.url });
    const page = await context.newPage();
    const session = await call("/v1/customer-sessions/", { customer_id: customerId });
    await page.goto(session.customer_portal_url);
    await page.click("button:has-text('Copy key')");
    await page.waitForSelector("button:has-text('Copied')");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await key());
    await context.close();
  });

  it("where the browser gives no clipboard, the whole key is shown selected to copy by hand", async () => {
    const page = await browser.newPage();
    // As on a plain-http address, where browsers give pages no clipboard.
    await page.addInitScript(() =>
      Object.defineProperty(navigator, "clipboard", { value: undefined }),
    );
    const session = await call("/v1/customer-sessions/", { customer_id: customerId });
    await page.goto(session.customer_portal_url);
    await page.click("button:has-text('Copy key')");
    const field = page.getByLabel("This browser would not copy it: select the key and copy it");
    await field.waitFor();
    expect(await field.inputValue()).toBe(await key());
    expect(
      await field.evaluate((el: HTMLInputElement) =>
        el.value.slice(el.selectionStart ?? 0, el.selectionEnd ?? 0),
      ),
    ).toBe(await key());
    await snapshot(page, "portal-license-key-by-hand");
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });
});

describe("a customer's license keys of two benefits", () => {
  it("name the benefit each Copy is for; a revoked key shows as revoked, with nothing to copy", async () => {
    const benefit = (description: string) =>
      call("/v1/benefits/", {
        type: "license_keys",
        description,
        properties: { activations: { limit: 2, enable_customer_admin: true } },
      });
    const [editor, plugins] = await Promise.all([benefit("Editor Pro"), benefit("Plugin pack")]);
    const product = await call("/v1/products/", {
      name: "Editor bundle",
      prices: [{ amount_type: "fixed", price_amount: 2900, price_currency: "usd" }],
    });
    await call(`/v1/products/${product.id}/benefits`, { benefits: [editor.id, plugins.id] });
    const buyer = (await buy(product.id, "two-keys@example.com")).customer_id as string;
    const keys = await eventually(
      async () => {
        const items = (await call(`/v1/license-keys/?organization_id=${organizationId}`)).items;
        const mine = items.filter((k: { customer_id: string }) => k.customer_id === buyer);
        return mine.length === 2 ? mine : undefined;
      },
      20_000,
      "both keys",
    );
    const revoked = keys.find((k: { benefit_id: string }) => k.benefit_id === plugins.id);
    const res = await api(t.url, `/v1/license-keys/${revoked.id}`, {
      token,
      method: "PATCH",
      body: { status: "revoked" },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);

    const session = await call("/v1/customer-sessions/", { customer_id: buyer });
    const page = await browser.newPage();
    await page.goto(session.customer_portal_url);
    const live = page.locator(
      `[data-license-key="${keys.find((k: { id: string }) => k.id !== revoked.id).id}"]`,
    );
    const dead = page.locator(`[data-license-key="${revoked.id}"]`);
    await dead.waitFor();
    expect(await live.getByRole("button").count()).toBe(1);
    await live.getByRole("button", { name: "Copy key for Editor Pro", exact: true }).waitFor();
    expect(await dead.getByRole("button").count()).toBe(0);
    expect(await dead.locator(".key-status").textContent()).toBe("Revoked");
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });
});
