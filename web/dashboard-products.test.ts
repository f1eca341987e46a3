// Editing a product in a real browser against a real server: name, description and prices typed in
// dollars (sent as cents), a price below the minimum refused with a sentence beside the field,
// benefits attached and removed, archive and unarchive; every change read back through the API.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "../test/helpers/auth.ts";
import { launchBrowser, snapshot } from "../test/helpers/chromium.ts";
import {
  axeViolations,
  PHONE,
  DESKTOP,
  signedInDashboard,
  type DashboardSession,
} from "../test/helpers/dashboard.ts";
import { startTestServer, type TestServer } from "../test/helpers/server.ts";

let t: TestServer;
let browser: Browser;
let s: DashboardSession;
let page: Page;
let productId: string;
const benefitIds: Record<string, string> = {};

interface PriceJson {
  id: string;
  amount_type: string;
  price_amount?: number;
  price_currency: string;
  is_archived: boolean;
}

beforeAll(async () => {
  [t, browser] = await Promise.all([startTestServer({ worker: false }), launchBrowser()]);
  s = await signedInDashboard(t.url, browser);
  page = s.page;
  const product = await api(t.url, "/v1/products/", {
    token: s.token,
    body: {
      name: "Pro",
      description: "Everything",
      recurring_interval: "month",
      prices: [{ amount_type: "fixed", price_amount: 1500, price_currency: "usd" }],
    },
  });
  expect(product.status).toBe(201);
  productId = product.body.id;
  for (const [description, type, properties] of [
    ["Priority support", "custom", { note: null }],
    ["License key", "license_keys", {}],
  ] as const) {
    const b = await api(t.url, "/v1/benefits/", {
      token: s.token,
      body: { type, description, properties },
    });
    expect(b.status).toBe(201);
    benefitIds[description] = b.body.id;
  }
  await page.goto(`${t.url}/products/${productId}`);
  await page.locator("h1", { hasText: /^Pro$/ }).waitFor();
});
afterAll(async () => {
  await browser?.close();
  await t?.stop();
});

const field = (label: string) => page.getByLabel(label, { exact: true });
const select = (label: string) => page.getByRole("combobox", { name: new RegExp(`^${label}\\b`) });

async function product() {
  const res = await api(t.url, `/v1/products/${productId}`, { token: s.token });
  expect(res.status).toBe(200);
  return res.body as {
    name: string;
    description: string | null;
    is_archived: boolean;
    prices: PriceJson[];
    benefits: { id: string }[];
  };
}
const active = (prices: PriceJson[]) =>
  prices
    .filter((p) => !p.is_archived)
    .map((p) => [p.amount_type, p.price_amount, p.price_currency]);

describe("product editing", () => {
  it("shows the product's values in the edit form; no axe violations at desktop and phone widths", async () => {
    await page.click("button:has-text('Edit')");
    expect(await field("Name").inputValue()).toBe("Pro");
    expect(await field("Description").inputValue()).toBe("Everything");
    expect(await field("Price").inputValue()).toBe("15.00");
    expect(await axeViolations(page)).toEqual([]);
    await page.setViewportSize(PHONE);
    expect(await axeViolations(page)).toEqual([]);
    await snapshot(page, "dashboard-product-edit-phone", { fullPage: true });
    await page.setViewportSize(DESKTOP);
  });

  it("a price under the currency's minimum is refused with a sentence beside the price; nothing changes", async () => {
    await field("Price").fill("0.20");
    await page.click("button:has-text('Save product')");
    const price = field("Price");
    await expect.poll(() => price.getAttribute("aria-invalid")).toBe("true");
    const describedBy = (await price.getAttribute("aria-describedby"))!;
    expect(await page.locator(`[id='${describedBy}']`).textContent()).toBe(
      "Price must be free or at least $0.50.",
    );
    expect(await page.textContent("form")).not.toContain("price_amount");
    expect(await axeViolations(page)).toEqual([]);
    expect(active((await product()).prices)).toEqual([["fixed", 1500, "usd"]]);
  });

  it("saves a new name, description and a price typed in dollars, sent in cents", async () => {
    await field("Name").fill("Pro Plus");
    await field("Description").fill("Everything, and more");
    await field("Price").fill("19.99");
    await page.click("button:has-text('Add price')");
    await field("Price 2").fill("18");
    await select("Currency 2").selectOption("eur");
    await page.click("button:has-text('Save product')");
    await page.locator("h1", { hasText: /^Pro Plus$/ }).waitFor();
    expect(await page.locator("form[aria-label='Edit product']").count()).toBe(0);
    const p = await product();
    expect(p.name).toBe("Pro Plus");
    expect(p.description).toBe("Everything, and more");
    expect(active(p.prices)).toEqual([
      ["fixed", 1999, "usd"],
      ["fixed", 1800, "eur"],
    ]);
    // A changed price is a new price row; the old one is no longer offered.
    expect(p.prices.some((x) => x.price_amount === 1500 && !x.is_archived)).toBe(false);
  });

  it("keeps an unchanged price as it is and removes one", async () => {
    const before = (await product()).prices.find(
      (x) => !x.is_archived && x.price_currency === "usd",
    )!;
    await page.click("button:has-text('Edit')");
    await page.click("button[aria-label='Remove price 2']");
    await page.click("button:has-text('Save product')");
    await expect.poll(() => page.locator("form[aria-label='Edit product']").count()).toBe(0);
    const p = await product();
    expect(p.prices.filter((x) => !x.is_archived).map((x) => x.id)).toEqual([before.id]);
  });

  it("attaches and removes benefits", async () => {
    const attach = select("Attach an existing benefit");
    await attach.selectOption(benefitIds["Priority support"]!);
    await page.waitForSelector(".list li:has-text('Priority support')");
    await select("Attach an existing benefit").selectOption(benefitIds["License key"]!);
    await page.waitForSelector(".list li:has-text('License key')");
    expect((await product()).benefits.map((b) => b.id).sort()).toEqual(
      Object.values(benefitIds).sort(),
    );
    await page.locator(".list li", { hasText: "Priority support" }).locator("button").click();
    await expect
      .poll(async () => (await product()).benefits.map((b) => b.id))
      .toEqual([benefitIds["License key"]]);
    expect(await axeViolations(page)).toEqual([]);
  });

  it("archives and unarchives", async () => {
    await page.click("button:has-text('Archive')");
    await page.waitForSelector("button:has-text('Unarchive')");
    expect((await product()).is_archived).toBe(true);
    await page.click("button:has-text('Unarchive')");
    // has-text matches substrings, so "Archive" would find the Unarchive button still shown.
    await page.waitForSelector("button:text-is('Archive')");
    await expect.poll(async () => (await product()).is_archived).toBe(false);
  });
});
