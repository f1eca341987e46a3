// The hosted checkout paying with Stripe in a real browser: the page loads Stripe.js from the URL
// the session names (here the local Stripe server's stand-in), mounts the Payment Element, pays
// with a ConfirmationToken as Polar's page does, finishes 3-D Secure with handleNextAction, and
// shows a decline or a failed challenge beside the card, leaving the session open. The customer
// portal adds a card through the same element, as a SetupIntent.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSeller } from "../test/helpers/auth.ts";
import { launchBrowser, screenshotPath } from "../test/helpers/chromium.ts";
import { US_ADDRESS } from "../test/helpers/addresses.ts";
import { fillAddress } from "../test/helpers/checkout-page.ts";
import { startTestServer, type TestServer } from "../test/helpers/server.ts";
import { stripeEnv, WEBHOOK_SECRET } from "../test/helpers/stripe-till.ts";
import { type StripeServer, startStripeServer } from "../test/helpers/stripe-server/index.ts";
import { sql } from "drizzle-orm";
import { Polar } from "@polar-sh/sdk";

let stripe: StripeServer;
let t: TestServer;
let browser: Browser;
let polar: Polar;
let productId: string;

beforeAll(async () => {
  stripe = await startStripeServer();
  [t, browser] = await Promise.all([
    startTestServer({
      env: stripeEnv(stripe),
      worker: false,
    }),
    launchBrowser(),
  ]);
  stripe.deliverTo({ url: `${t.url}/v1/integrations/stripe/webhook`, secret: WEBHOOK_SECRET });
  const seller = await createSeller(t.url, [
    "products:write",
    "checkouts:write",
    "orders:read",
    "customers:write",
    "customer_sessions:write",
  ]);
  polar = new Polar({ accessToken: seller.token, serverURL: t.url });
  productId = (
    await polar.products.create({
      name: "Lifetime licence",
      prices: [{ amountType: "fixed", priceAmount: 4900, priceCurrency: "usd" }],
    })
  ).id;
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.stop();
  await stripe?.close();
});

async function openCheckout(): Promise<{ page: Page; id: string }> {
  const checkout = await polar.checkouts.create({ products: [productId] });
  const page = await browser.newPage();
  await page.goto(checkout.url);
  await page.fill("#email", "stripe-buyer@example.com");
  await fillAddress(page, US_ADDRESS);
  return { page, id: checkout.id };
}

const ordersOf = (checkoutId: string) =>
  t.server.database.rows<{ processor_payment_id: string | null }>(
    sql`select processor_payment_id from orders where checkout_id = ${checkoutId}`,
  );
const statusOf = async (id: string) => (await polar.checkouts.get({ id })).status;

describe("checkout paid with Stripe", { timeout: 90_000 }, () => {
  it("mounts the Payment Element from the session's Stripe.js and pays with a ConfirmationToken", async () => {
    const { page, id } = await openCheckout();
    try {
      // No sandbox card form: the card is Stripe's element.
      await page.waitForSelector("#card-element #stripe-card-number");
      expect(await page.locator("#card-number").count()).toBe(0);
      await page.screenshot({ path: screenshotPath("checkout-stripe") });
      await page.fill("#stripe-card-number", "4242 4242 4242 4242");
      await page.click("button[type=submit]");
      await page.waitForURL(/\/confirmation/, { timeout: 30_000 });
      expect(await statusOf(id)).toBe("succeeded");
      const [order] = await ordersOf(id);
      expect(order?.processor_payment_id).toMatch(/^pi_/);
      expect(stripe.requests.some((r) => r.path === "/v1/confirmation_tokens")).toBe(true);
    } finally {
      await page.close();
    }
  });

  it("finishes 3-D Secure with the bank's challenge, then the webhook fulfils it", async () => {
    const { page, id } = await openCheckout();
    try {
      await page.fill("#stripe-card-number", "4000 0000 0000 3220");
      await page.click("button[type=submit]");
      const challenge = page.getByRole("dialog", { name: "3D Secure test challenge" });
      await challenge.waitFor();
      expect(await statusOf(id)).toBe("confirmed");
      await challenge.getByRole("button", { name: "Complete" }).click();
      await page.waitForURL(/\/confirmation/, { timeout: 30_000 });
      expect(await statusOf(id)).toBe("succeeded");
      expect(await ordersOf(id)).toHaveLength(1);
    } finally {
      await page.close();
    }
  });

  it("a failed challenge or a decline is said beside the card, and the checkout stays open", async () => {
    const { page, id } = await openCheckout();
    try {
      await page.fill("#stripe-card-number", "4000 0000 0000 3220");
      await page.click("button[type=submit]");
      const challenge = page.getByRole("dialog", { name: "3D Secure test challenge" });
      await challenge.getByRole("button", { name: "Fail" }).click();
      await page.waitForSelector("#payment-error");
      expect(await page.textContent("#payment-error")).toContain("unable to authenticate");
      expect(await statusOf(id)).toBe("open");

      await page.fill("#stripe-card-number", "4000 0000 0000 0002");
      await page.click("button[type=submit]");
      await page.waitForFunction(() =>
        document.querySelector("#payment-error")?.textContent?.includes("declined"),
      );
      expect(await statusOf(id)).toBe("open");
      expect(await ordersOf(id)).toHaveLength(0);

      // The same checkout is then paid with a good card.
      await page.fill("#stripe-card-number", "4242 4242 4242 4242");
      await page.click("button[type=submit]");
      await page.waitForURL(/\/confirmation/, { timeout: 30_000 });
      expect(await ordersOf(id)).toHaveLength(1);
    } finally {
      await page.close();
    }
  });
});

describe("a card added in the customer portal with Stripe", { timeout: 90_000 }, () => {
  it("mounts the Payment Element, passes the bank's challenge and saves the card as the default", async () => {
    const customer = await polar.customers.create({ email: "portal-card@example.com" });
    const session = await polar.customerSessions.create({ customerId: customer.id });
    const page = await browser.newPage();
    try {
      await page.goto(session.customerPortalUrl);
      await page.click("button.add-card-open");
      await page.waitForSelector("#card-element #stripe-card-number");
      expect(await page.locator("#card-number").count()).toBe(0);
      await page.fill("#stripe-card-number", "4000 0000 0000 3220");
      await page.click("button.save-card");
      const challenge = page.getByRole("dialog", { name: "3D Secure test challenge" });
      await challenge.getByRole("button", { name: "Complete" }).click();
      await page.waitForSelector("text=Card saved as your default.");
      const saved = page.locator("[data-payment-method]");
      expect(await saved.count()).toBe(1);
      expect(await saved.textContent()).toContain("•••• 3220");
      expect(await saved.textContent()).toContain("Default");
      expect(stripe.requests.some((r) => r.path === "/v1/setup_intents")).toBe(true);
    } finally {
      await page.close();
    }
  });
});
