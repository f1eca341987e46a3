// axe-core on every dashboard section, at any impact, on a desktop (1440×900) and a phone (390×844)
// viewport, in light and dark; and on the phone the sections sit behind a Menu button instead of
// stacking above the content.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, snapshot } from "../test/helpers/chromium.ts";
import {
  axeViolations,
  DESKTOP,
  PHONE,
  settled,
  signedInDashboard,
  type DashboardSession,
} from "../test/helpers/dashboard.ts";
import { api } from "../test/helpers/auth.ts";
import { seedSales } from "../test/helpers/sales.ts";
import { startTestServer, type TestServer } from "../test/helpers/server.ts";

let t: TestServer;
let browser: Browser;
let session: DashboardSession;
/** Sections whose tables the seed fills. */
const SEEDED = [
  "/products",
  "/benefits",
  "/discounts",
  "/meters",
  "/checkouts",
  "/orders",
  "/subscriptions",
  "/customers",
];
/** Detail pages of seeded rows, swept with the sections. */
const details: string[] = [];

// Rows in every list, so axe sees tables, badges and actions rather than only empty states.
async function seed(s: DashboardSession): Promise<void> {
  const post = async (path: string, body: unknown) => {
    const res = await api(t.url, path, { token: s.token, body });
    expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body as { id: string };
  };
  const product = await post("/v1/products/", {
    name: "Pro",
    recurring_interval: "month",
    prices: [{ amount_type: "fixed", price_amount: 1500 }],
  });
  const benefit = await post("/v1/benefits/", {
    type: "license_keys",
    description: "License key",
    properties: { prefix: "ACME" },
  });
  await api(t.url, `/v1/products/${product.id}/benefits`, {
    token: s.token,
    body: { benefits: [benefit.id] },
  });
  const meter = await post("/v1/meters/", {
    name: "API calls",
    filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "call" }] },
    aggregation: { func: "count" },
  });
  await post("/v1/checkouts/", { products: [product.id] });
  await post("/v1/discounts/", {
    name: "Launch",
    code: "LAUNCH",
    type: "percentage",
    basis_points: 1000,
    duration: "once",
  });
  await post("/v1/webhooks/endpoints", {
    url: "https://example.com/hooks",
    format: "raw",
    events: ["order.paid"],
  });
  const sales = await seedSales(t.server.database, s.organization.id, {
    customers: 3,
    orders: 6,
    subscriptions: 2,
  });
  details.push(
    `/products/${product.id}`,
    `/meters/${meter.id}`,
    `/customers/${sales.customerIds[0]}`,
  );
}

beforeAll(async () => {
  [t, browser] = await Promise.all([startTestServer({ worker: false }), launchBrowser()]);
  session = await signedInDashboard(t.url, browser);
  await seed(session);
});
afterAll(async () => {
  await browser?.close();
  await t?.stop();
});

describe("dashboard accessibility", () => {
  for (const [name, viewport] of [
    ["desktop", DESKTOP],
    ["phone", PHONE],
  ] as const) {
    it(`every section and detail page has no axe violations at any impact on a ${name} (${viewport.width}×${viewport.height})`, async () => {
      const { page } = session;
      await page.setViewportSize(viewport);
      const hrefs = await page
        .locator("nav[aria-label=Sections] a")
        .evaluateAll((as) => as.map((a) => a.getAttribute("href")!));
      expect(hrefs).toContain("/benefits");
      expect(hrefs.length).toBeGreaterThanOrEqual(17);
      const found: string[] = [];
      for (const href of [...hrefs, ...details]) {
        await page.goto(`${t.url}${href}`);
        await page.waitForSelector(".content h1");
        await settled(page);
        expect(await page.locator("[role=alert]").allTextContents(), href).toEqual([]);
        if (SEEDED.includes(href))
          expect(await page.locator("tbody tr").count(), href).toBeGreaterThan(0);
        for (const scheme of ["light", "dark"] as const) {
          await page.emulateMedia({ colorScheme: scheme });
          found.push(...(await axeViolations(page)).map((v) => `${href} (${scheme}): ${v}`));
        }
      }
      await page.emulateMedia({ colorScheme: "light" });
      expect(found).toEqual([]);
    });
  }

  it("the signed-out pages and the new-organization page have no axe violations at either width", async () => {
    const visitor = await browser.newContext();
    const page = await visitor.newPage();
    const found: string[] = [];
    for (const viewport of [DESKTOP, PHONE]) {
      await page.setViewportSize(viewport);
      for (const path of ["/sign-in", "/sign-up", "/forgot-password"]) {
        await page.goto(`${t.url}${path}`);
        await page.waitForSelector("h1");
        found.push(...(await axeViolations(page)).map((v) => `${path} ${viewport.width}: ${v}`));
      }
      await session.page.setViewportSize(viewport);
      await session.page.goto(`${t.url}/organizations/new`);
      await session.page.waitForSelector(".content h1");
      found.push(
        ...(await axeViolations(session.page)).map((v) => `new org ${viewport.width}: ${v}`),
      );
    }
    await visitor.close();
    expect(found).toEqual([]);
  });

  it("on a phone the menu folds: content first, sections behind the Menu button", async () => {
    const { page, context } = await signedInDashboard(t.url, browser, PHONE);
    await page.goto(`${t.url}/benefits`);
    await page.waitForSelector(".content h1:has-text('Benefits')");
    await snapshot(page, "dashboard-benefits-phone");
    expect((await page.locator(".content h1").boundingBox())!.y).toBeLessThan(200);
    expect(await page.isVisible("nav[aria-label=Sections]")).toBe(false);
    await page.click("button.menu-toggle");
    expect(await page.isVisible("nav[aria-label=Sections]")).toBe(true);
    expect(await axeViolations(page)).toEqual([]);
    await page.click("nav >> text=Products");
    await page.waitForSelector(".content h1:has-text('Products')");
    expect(await page.isVisible("nav[aria-label=Sections]")).toBe(false);
    await context.close();
  });
});
