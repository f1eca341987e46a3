// A business purchase on the hosted checkout in a real browser: "I'm purchasing as a business"
// asks for the business's name (required), its tax ID (optional) and the full billing address, each
// refusal shown beside its field before any payment (a tax ID its billing country refutes too); the
// order is billed to the business, and unticking it drops the name and tax ID from the session.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../test/helpers/auth.ts";
import { launchBrowser, snapshot } from "../test/helpers/chromium.ts";
import { fillAddress, fillCard } from "../test/helpers/checkout-page.ts";
import { startTestServer, type TestServer } from "../test/helpers/server.ts";

let t: TestServer;
let browser: Browser;
let token: string;
let productId: string;

beforeAll(async () => {
  [t, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  token = (await createSeller(t.url, ["products:write", "checkouts:write", "orders:read"])).token;
  const product = await api(t.url, "/v1/products/", {
    token,
    body: {
      name: "Team license",
      prices: [{ amount_type: "fixed", price_amount: 4900, price_currency: "eur" }],
    },
  });
  expect(product.status, JSON.stringify(product.body)).toBe(201);
  productId = product.body.id;
});
afterAll(async () => {
  await browser?.close();
  await t?.stop();
});

async function openCheckout(extra: Record<string, unknown> = {}) {
  const res = await api(t.url, "/v1/checkouts/", {
    token,
    body: { products: [productId], ...extra },
  });
  expect(res.status).toBe(201);
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  let confirms = 0;
  page.on("request", (r) => {
    if (r.method() === "POST" && r.url().endsWith("/confirm")) confirms++;
  });
  await page.goto(res.body.url);
  await page.waitForSelector("#email");
  return { checkout: res.body as { id: string }, page, confirms: () => confirms };
}

const RIVOLI = { country: "FR", line1: "1 rue de Rivoli", city: "Paris", postal_code: "75001" };

const invalidIds = (page: Page) =>
  page.$$eval('[aria-invalid="true"]', (els) => els.map((e) => e.id));

describe("a business purchase", () => {
  it("asks for the business's name and full address, then bills the business", async () => {
    const { checkout, page, confirms } = await openCheckout();
    await page.fill("#email", "buyer@rivoli.example");
    await fillAddress(page, { country: "FR" });
    await fillCard(page);
    // A French buyer gives the country alone, until the purchase is a business's.
    expect(await page.$("#address-line1")).toBeNull();
    expect(await page.$("#billing-name")).toBeNull();
    await page.check("#business");
    await page.waitForSelector("#billing-name");
    await page.click("button.pay");
    expect(await invalidIds(page)).toEqual([
      "billing-name",
      "address-line1",
      "address-city",
      "address-postal_code",
    ]);
    expect(await page.textContent("#billing-name-error")).toBe("Enter the business's name.");
    // Side by side on a phone, where the message under one wraps, the two inputs stay level.
    await page.setViewportSize({ width: 390, height: 844 });
    const [nameBox, taxBox] = await Promise.all(
      ["#billing-name", "#tax-id"].map((id) => page.locator(id).boundingBox()),
    );
    expect(taxBox).toMatchObject({ y: nameBox!.y, height: nameBox!.height });
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(confirms()).toBe(0);
    await snapshot(page, "checkout-business", { fullPage: true });

    await page.fill("#billing-name", "Rivoli Books SARL");
    await page.fill("#tax-id", "FR40303265045");
    await fillAddress(page, RIVOLI);
    await page.click("button.pay");
    await page.waitForURL(/\/confirmation/, { timeout: 15_000 });
    const session = await api(t.url, `/v1/checkouts/${checkout.id}`, { token });
    expect(session.body).toMatchObject({
      status: "succeeded",
      is_business_customer: true,
      customer_billing_name: "Rivoli Books SARL",
      customer_tax_id: "FR40303265045",
    });
    const orders = await api(t.url, `/v1/orders/?checkout_id=${checkout.id}`, { token });
    expect(orders.body.items[0]).toMatchObject({
      billing_name: "Rivoli Books SARL",
      billing_address: { country: "FR", line1: "1 rue de Rivoli", city: "Paris" },
    });
    await page.close();
  });

  it("a session the seller opened as a business's shows it ticked; unticked, the name and tax ID go", async () => {
    const { checkout, page } = await openCheckout({
      is_business_customer: true,
      customer_billing_name: "Old Name GmbH",
      customer_tax_id: "DE136695976",
      customer_billing_address: { country: "DE" },
    });
    expect(await page.isChecked("#business")).toBe(true);
    expect(await page.inputValue("#billing-name")).toBe("Old Name GmbH");
    expect(await page.inputValue("#tax-id")).toBe("DE136695976");
    await page.uncheck("#business");
    expect(await page.$("#billing-name")).toBeNull();
    await page.fill("#email", "someone@example.com");
    await fillCard(page);
    await page.click("button.pay");
    await page.waitForURL(/\/confirmation/, { timeout: 15_000 });
    const session = await api(t.url, `/v1/checkouts/${checkout.id}`, { token });
    expect(session.body).toMatchObject({
      status: "succeeded",
      is_business_customer: false,
      customer_billing_name: null,
      customer_tax_id: null,
    });
    await page.close();
  });

  it("a tax ID the new country refutes is refused beside its field, and the right one pays", async () => {
    const { checkout, page, confirms } = await openCheckout({
      is_business_customer: true,
      customer_billing_name: "Rivoli Books SARL",
      customer_tax_id: "DE136695976",
      customer_billing_address: { country: "DE" },
    });
    await page.fill("#email", "buyer@rivoli.example");
    await fillAddress(page, RIVOLI);
    await fillCard(page);
    await page.click("button.pay");
    await page.waitForSelector("#tax-id-error");
    expect(await page.textContent("#tax-id-error")).toBe("Invalid tax ID.");
    expect(await invalidIds(page)).toEqual(["tax-id"]);
    expect(confirms()).toBe(0);
    await page.fill("#tax-id", "FR 403 032 650 45");
    await page.click("button.pay");
    await page.waitForURL(/\/confirmation/, { timeout: 15_000 });
    const session = await api(t.url, `/v1/checkouts/${checkout.id}`, { token });
    expect(session.body).toMatchObject({
      status: "succeeded",
      customer_tax_id: "FR40303265045",
      customer_billing_address: { country: "FR" },
    });
    await page.close();
  });
});
