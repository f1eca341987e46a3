// An order's invoice from the customer portal in a real browser: the first time, the page asks
// for the details it is made out to (prefilled from the order, the taxed country and state fixed,
// the state shown by its name), generates it and downloads the PDF; after that the button
// downloads it at once. A refusal is said in the form with what the buyer typed kept; focus
// goes back to the Invoice button as the form closes.
import { readFile } from "node:fs/promises";
import { sql } from "drizzle-orm";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSeller } from "../test/helpers/auth.ts";
import { launchBrowser, snapshot } from "../test/helpers/chromium.ts";
import { axeViolations, PHONE } from "../test/helpers/dashboard.ts";
import { pdfText } from "../test/helpers/pdf.ts";
import { startTestServer, type TestServer } from "../test/helpers/server.ts";
import { US_ADDRESS } from "../test/helpers/addresses.ts";
import { portalSeller } from "../test/helpers/portal-browser.ts";

let t: TestServer;
let browser: Browser;
let shop: ReturnType<typeof portalSeller>;
let productId: string;

const call: ReturnType<typeof portalSeller>["call"] = (path, init) => shop.call(path, init);
const buy = (email: string) => shop.purchase(productId, email);
const openPortal = (customerId: string, viewport?: { width: number; height: number }) =>
  shop.openPortal(browser, customerId, viewport);

/** Clicks and returns the bytes of the file the click downloads. */
async function downloaded(page: Page, click: () => Promise<void>): Promise<Buffer> {
  const [download] = await Promise.all([page.waitForEvent("download"), click()]);
  return readFile((await download.path())!);
}

beforeAll(async () => {
  [t, browser] = await Promise.all([startTestServer({ worker: false }), launchBrowser()]);
  const seller = await createSeller(t.url, [
    "products:write",
    "checkouts:write",
    "orders:write",
    "customer_sessions:write",
  ]);
  shop = portalSeller(t.url, seller.token);
  productId = (
    await call("/v1/products/", {
      body: {
        name: "Handbook",
        prices: [{ amount_type: "fixed", price_amount: 4900, price_currency: "usd" }],
      },
    })
  ).id;
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.stop();
});

describe("invoices in the customer portal", () => {
  it("asks for the billing details once, generates the invoice and downloads its PDF", async () => {
    const order = await buy("invoice@example.com");
    const page = await openPortal(order.customer_id);
    const button = page.getByRole("button", { name: /^Invoice for Handbook, / });
    await button.click();
    const form = page.getByRole("form", { name: "Invoice details for Handbook" });
    await form.waitFor();
    expect(await form.getByLabel("Billing name").inputValue()).toBe("Grace Hopper");
    expect(await form.getByLabel("Address", { exact: true }).inputValue()).toBe(US_ADDRESS.line1);
    expect(await form.getByLabel("City").inputValue()).toBe(US_ADDRESS.city);
    // The country and state decided the tax: shown, not editable.
    expect(await form.getByLabel("Country code").getAttribute("readonly")).not.toBeNull();
    expect(await form.getByLabel("State or region").getAttribute("readonly")).not.toBeNull();
    // The state by its name, not the code the order stores ("US-NY").
    expect(await form.getByLabel("State or region").inputValue()).toBe("New York");
    await form.getByLabel("Billing name").fill("Hopper Computing Ltd");
    await form.getByLabel("Address line 2 (optional)").fill("Suite 9");
    await snapshot(page, "portal-invoice-details");
    expect(await axeViolations(page)).toEqual([]);

    const pdf = await downloaded(page, () =>
      form.getByRole("button", { name: "Create invoice" }).click(),
    );
    expect(pdf.subarray(0, 4).toString("latin1")).toBe("%PDF");
    const text = pdfText(pdf);
    expect(text).toContain(order.invoice_number);
    expect(text).toContain("Hopper Computing Ltd");
    expect(await form.count()).toBe(0);
    const seller = await call(`/v1/orders/${order.id}`);
    expect(seller).toMatchObject({
      is_invoice_generated: true,
      billing_name: "Hopper Computing Ltd",
      billing_address: { line2: "Suite 9", country: "US", state: "US-NY" },
    });

    // Made once: later the button downloads the same invoice without asking again, also after a
    // reload (the order now says it is generated).
    const again = await downloaded(page, () => button.click());
    expect(pdfText(again)).toContain(order.invoice_number);
    await page.reload();
    const reloaded = await downloaded(page, () => button.click());
    expect(pdfText(reloaded)).toContain("Hopper Computing Ltd");
    expect(await form.count()).toBe(0);
    await page.close();
  });

  it("focus returns to the order's Invoice button when the form closes, by Back or once made", async () => {
    const order = await buy("keyboard-invoice@example.com");
    const page = await openPortal(order.customer_id);
    const button = page.getByRole("button", { name: /^Invoice for Handbook, / });
    const form = page.getByRole("form", { name: "Invoice details for Handbook" });
    const onInvoice = () =>
      page.evaluate(() => document.activeElement?.classList.contains("invoice") ?? false);
    await button.focus();
    await page.keyboard.press("Enter");
    await form.getByRole("button", { name: "Back" }).focus();
    await page.keyboard.press("Enter");
    expect(await form.count()).toBe(0);
    expect(await onInvoice()).toBe(true);
    await page.keyboard.press("Enter");
    await form.getByRole("button", { name: "Create invoice" }).focus();
    await downloaded(page, () => page.keyboard.press("Enter"));
    await expect.poll(onInvoice).toBe(true);
    // Made, it downloads at once: the button pressed keeps the focus through the download.
    await downloaded(page, () => page.keyboard.press("Enter"));
    await expect.poll(onInvoice).toBe(true);
    await page.close();
  });

  it("says a refusal in the form and keeps what was typed", async () => {
    const order = await buy("expiring@example.com");
    const page = await openPortal(order.customer_id, PHONE);
    await page.getByRole("button", { name: /^Invoice for Handbook, / }).click();
    const form = page.getByRole("form", { name: "Invoice details for Handbook" });
    await form.getByLabel("Billing name").fill("Expiring Ltd");
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      PHONE.width,
    );
    await t.server.database.rows(
      sql`update customer_sessions set expires_at = now() - interval '1 minute'
          where customer_id = ${order.customer_id}`,
    );
    await form.getByRole("button", { name: "Create invoice" }).click();
    await expect.poll(() => form.getByRole("alert").textContent()).toContain("expired");
    expect(await form.getByLabel("Billing name").inputValue()).toBe("Expiring Ltd");
    expect((await call(`/v1/orders/${order.id}`)).is_invoice_generated).toBe(false);
    await page.close();
  });
});
