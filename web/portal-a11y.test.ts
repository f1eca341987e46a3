// axe-core on the customer portal, at any impact, on a desktop (1440×900) and a phone (390×844)
// viewport, in the light and the dark theme: a customer with a subscription, a one-time order, a
// license key and a meter credit, so every section of the page has content to check.
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

beforeAll(async () => {
  [t, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  token = (
    await createSeller(t.url, [
      "products:write",
      "benefits:write",
      "meters:write",
      "checkouts:write",
      "orders:read",
      "subscriptions:read",
      "customer_sessions:write",
    ])
  ).token;
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
  await call(`/v1/products/${plan.id}/benefits`, { benefits: [credits.id] });
  const app = await call("/v1/products/", {
    name: "Desktop app",
    prices: [{ amount_type: "fixed", price_amount: 4900, price_currency: "usd" }],
  });
  await call(`/v1/products/${app.id}/benefits`, { benefits: [key.id] });
  const email = "a11y@example.com";
  customerId = (await buy(plan.id, email)).customer_id;
  await buy(app.id, email);
  await eventually(
    async () =>
      (await call(`/v1/benefit-grants/?customer_id=${customerId}&is_granted=true`)).items.length ===
        2 || undefined,
    20_000,
    "both grants",
  );
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
