// A purchase through the overlay in a real browser: a seller's page on another origin opens the
// hosted checkout in till's overlay, the customer pays with the sandbox card inside the frame, and
// the overlay reports success and redirects. Also: close before paying, a decline shown in the page,
// the overlay refusing to close while a payment is in flight, and accessibility checks.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Browser, Frame, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../test/helpers/auth.ts";
import { fillCheckout } from "../test/helpers/checkout-page.ts";
import { US_ADDRESS } from "../test/helpers/addresses.ts";
import { launchBrowser, snapshot } from "../test/helpers/chromium.ts";
import { startHostPage, type HostPage } from "../test/helpers/host-page.ts";
import { startTestServer, type TestServer } from "../test/helpers/server.ts";

let t: TestServer;
let host: HostPage;
let browser: Browser;
let token: string;
let productId: string;

beforeAll(async () => {
  [t, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  token = (await createSeller(t.url, ["products:write", "checkouts:write", "orders:read"])).token;
  const product = await api(t.url, "/v1/products/", {
    token,
    body: {
      name: "Pro plan",
      recurring_interval: "month",
      prices: [{ amount_type: "fixed", price_amount: 1500, price_currency: "usd" }],
    },
  });
  productId = product.body.id;
  host = await startHostPage(`<!doctype html><html lang="en"><head><title>Shop</title></head><body>
    <h1>Shop</h1><button id="buy">Buy</button>
    <script src="${t.url}/embed.js"></script>
    <script>
      window.events = [];
      document.getElementById("buy").addEventListener("click", async () => {
        const checkout = await window.TillCheckout.create(window.checkoutUrl, { theme: window.theme || "light" });
        window.checkout = checkout;
        for (const e of ["loaded", "close", "confirmed", "success", "error"]) checkout.addEventListener(e, (ev) => {
          window.events.push(e);
          if (e === "success" && window.holdSuccess) ev.preventDefault();
        });
      });
    </script></body></html>`);
});
afterAll(async () => {
  await browser?.close();
  await host?.close();
  await t?.stop();
});

async function newCheckout(
  extra: Record<string, unknown> = {},
): Promise<{ id: string; url: string }> {
  const res = await api(t.url, "/v1/checkouts/", {
    token,
    body: {
      products: [productId],
      embed_origin: host.url,
      success_url: `${host.url}/thanks?checkout={CHECKOUT_ID}`,
      ...extra,
    },
  });
  expect(res.status).toBe(201);
  return res.body;
}

async function openOverlay(url: string, theme = "light"): Promise<{ page: Page; frame: Frame }> {
  const page = await browser.newPage();
  await page.goto(host.url);
  await page.evaluate(
    ([u, th]) => Object.assign(window, { checkoutUrl: u, theme: th }),
    [url, theme],
  );
  await page.click("#buy");
  await page.waitForSelector("iframe[title=Checkout]");
  await expect
    .poll(() => page.locator(".till-checkout-spinner").count(), { timeout: 15_000 })
    .toBe(0);
  const frame = page.frames().find((f) => f.url().includes("/checkout/"))!;
  await frame.waitForSelector("#email");
  return { page, frame };
}

async function fillAndPay(frame: Frame, card: string) {
  await fillCheckout(frame, { card });
  await frame.click("button.pay");
}

// Now and then one of these tests stalls in Chromium right after the overlay has loaded (seen as a
// 60 s timeout in a step that takes 3 s; cause not found, an open defect): a stalled test runs
// once more, and one that fails twice fails the suite.
describe("checkout overlay in a browser", { retry: 1 }, () => {
  it("buys with the sandbox card inside the overlay, fires loaded → confirmed → success and redirects to the success URL", async () => {
    const checkout = await newCheckout();
    const { page, frame } = await openOverlay(checkout.url);
    const requested: string[] = [];
    page.on("request", (r) => requested.push(new URL(r.url()).pathname));
    await snapshot(page, "overlay-light");
    await fillAndPay(frame, "4242 4242 4242 4242");
    await page.waitForURL(`${host.url}/thanks?checkout=${checkout.id}`, { timeout: 15_000 });
    expect(await page.textContent("h1")).toBe("Thanks for your order");
    // The page learned the outcome from the status stream, not by polling.
    expect(requested.filter((p) => p.endsWith("/stream"))).toHaveLength(1);
    const orders = await api(t.url, `/v1/orders/?checkout_id=${checkout.id}`, { token });
    expect(orders.body.items).toHaveLength(1);
    expect(orders.body.items[0]).toMatchObject({ status: "paid", total_amount: 1500 });
    await page.close();
  });

  it("without a success URL of the seller's, success stays in the overlay: the frame shows the confirmation and closes", async () => {
    const checkout = await newCheckout({ success_url: null });
    const { page, frame } = await openOverlay(checkout.url);
    await fillAndPay(frame, "4242 4242 4242 4242");
    await frame.waitForSelector("h1:has-text('Thanks for your order')", { timeout: 15_000 });
    expect(new URL(frame.url()).pathname).toMatch(/\/confirmation$/);
    expect(page.url()).toBe(`${host.url}/`);
    expect(await page.evaluate(() => (window as unknown as { events: string[] }).events)).toEqual([
      "confirmed",
      "success",
    ]);
    await frame.waitForSelector("[data-testid=order-number]");
    await frame.click("button.close");
    await expect.poll(() => page.locator(".till-checkout-dialog").count()).toBe(0);
    await page.close();
  });

  it("between confirmed and success the overlay cannot be closed; after a prevented success it can", async () => {
    const checkout = await newCheckout();
    const { page, frame } = await openOverlay(checkout.url, "dark");
    await snapshot(page, "overlay-dark");
    await page.evaluate(() => Object.assign(window, { holdSuccess: true }));
    // Hold the payment's outcome: no status stream, and the page's polls answer late.
    await page.route("**/stream", (route) => route.abort());
    await page.route("**/v1/checkouts/client/*", async (route) => {
      if (route.request().method() === "GET") await new Promise((r) => setTimeout(r, 2500));
      await route.continue();
    });
    await fillAndPay(frame, "4242424242424242");
    await page.waitForFunction(() =>
      (window as unknown as { events: string[] }).events.includes("confirmed"),
    );
    await page.keyboard.press("Escape");
    await frame.click("button.close", { force: true, timeout: 1000 }).catch(() => {});
    await page.waitForTimeout(300);
    expect(await page.locator(".till-checkout-dialog").count()).toBe(1);
    await page.waitForFunction(
      () => (window as unknown as { events: string[] }).events.includes("success"),
      undefined,
      { timeout: 15_000 },
    );
    expect(await page.evaluate(() => (window as unknown as { events: string[] }).events)).toEqual([
      "confirmed",
      "success",
    ]);
    // success was prevented (no redirect), but the payment is done: Escape closes the overlay.
    expect(page.url()).toBe(`${host.url}/`);
    await page.keyboard.press("Escape");
    await expect.poll(() => page.locator(".till-checkout-dialog").count()).toBe(0);
    await page.close();
  });

  // 30 key presses each checked in the page: slow on a loaded machine, hence the longer limit.
  it("the overlay is a modal: Tab never leaves it, Escape closes it after loading and focus returns to the opener", {
    timeout: 150_000,
  }, async () => {
    const checkout = await newCheckout();
    const { page, frame } = await openOverlay(checkout.url);
    for (let i = 0; i < 30; i++) {
      await page.keyboard.press("Tab");
      const inside = await page.evaluate(() => {
        const dialog = document.querySelector(".till-checkout-dialog");
        const active = document.activeElement;
        return active === document.body || Boolean(active && dialog?.contains(active));
      });
      expect(inside, `after ${i + 1} Tab presses`).toBe(true);
    }
    expect(await page.evaluate(() => document.getElementById("buy")?.matches(":focus"))).toBe(
      false,
    );
    // Escape from the checkout frame itself: a key sent to a field of the cross-origin frame was
    // now and then lost by headless Chromium, which then stopped answering (the keyboard-only
    // purchase below types into every field).
    await frame.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press("Escape");
    await expect.poll(() => page.locator(".till-checkout-dialog").count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("buy");
    expect(await page.evaluate(() => (window as unknown as { events: string[] }).events)).toEqual([
      "close",
    ]);
    await page.close();
  });

  it("a checkout whose embed_origin is not this site shows no form: error and a message in the overlay", async () => {
    const checkout = await newCheckout({ embed_origin: null });
    const page = await browser.newPage();
    await page.goto(host.url);
    const outcome = await page.evaluate(async (url) => {
      try {
        await (
          window as unknown as { TillCheckout: { create(u: string): Promise<unknown> } }
        ).TillCheckout.create(url);
        return "resolved";
      } catch (e) {
        return (e as Error).message;
      }
    }, checkout.url);
    expect(outcome).toContain("not allowed this site");
    expect(await page.isVisible(".till-checkout-error")).toBe(true);
    expect(await page.locator("iframe[title=Checkout]").count()).toBe(0);
    await page.click(".till-checkout-error button");
    expect(await page.locator(".till-checkout-dialog").count()).toBe(0);
    await page.close();
  });

  it("the close button closes the overlay before paying and a decline says the processor's reason and what to do", async () => {
    const checkout = await newCheckout();
    const { page, frame } = await openOverlay(checkout.url);
    await fillAndPay(frame, "4000 0000 0000 0002");
    await frame.waitForSelector("#payment-error", { timeout: 15_000 });
    expect(await frame.textContent("#payment-error")).toBe(
      "The payment failed: Your card was declined. Please try again with a different payment method.",
    );
    await snapshot(page, "checkout-declined");
    expect(await page.evaluate(() => (window as unknown as { events: string[] }).events)).toEqual(
      [],
    );
    await frame.click("button.close");
    await expect.poll(() => page.locator(".till-checkout-dialog").count()).toBe(0);
    expect(await page.evaluate(() => document.body.style.overflow)).toBe("");
    await page.close();
  });

  it("a buyer completes the embedded checkout with the keyboard only", async () => {
    const checkout = await newCheckout();
    const page = await browser.newPage({ locale: "en-US" });
    await page.goto(host.url);
    await page.evaluate((u) => Object.assign(window, { checkoutUrl: u }), checkout.url);
    await page.focus("#buy");
    await page.keyboard.press("Enter");
    await page.waitForSelector("iframe[title=Checkout]");
    await expect
      .poll(() => page.locator(".till-checkout-spinner").count(), { timeout: 15_000 })
      .toBe(0);
    const frame = page.frames().find((f) => f.url().includes("/checkout/"));
    if (!frame) throw new Error("no checkout frame");
    await frame.waitForSelector("#email");
    const focused = () => frame.evaluate(() => document.activeElement?.id ?? "");
    const tabTo = async (id: string) => {
      for (let i = 0; i < 10 && (await focused()) !== id; i++) await page.keyboard.press("Tab");
      expect(await focused()).toBe(id);
    };
    await tabTo("email");
    await page.keyboard.type("keyboard@example.com");
    // A US buyer gives the street, city, state (typed to pick it) and ZIP code.
    for (const [id, text] of [
      ["address-line1", US_ADDRESS.line1],
      ["address-city", US_ADDRESS.city],
      ["address-state", "New York"],
      ["address-postal_code", US_ADDRESS.postal_code],
    ] as const) {
      await tabTo(id);
      await page.keyboard.type(text);
    }
    await tabTo("card-number");
    await page.keyboard.type("4242424242424242");
    await page.keyboard.press("Tab");
    await page.keyboard.type("12/34");
    await page.keyboard.press("Tab");
    await page.keyboard.type("123");
    await page.keyboard.press("Enter");
    await page.waitForURL(`${host.url}/thanks?checkout=${checkout.id}`, { timeout: 15_000 });
    await page.close();
  });

  it("a message from another origin's frame changes nothing", async () => {
    const checkout = await newCheckout();
    const { page } = await openOverlay(checkout.url);
    // A frame from the host's own origin (not till's) posts a close message to the top page.
    await page.evaluate(() => {
      const f = document.createElement("iframe");
      f.srcdoc = `<script>parent.postMessage({ type: "POLAR_CHECKOUT", event: "close" }, "*")</script>`;
      document.body.appendChild(f);
    });
    await page.waitForTimeout(300);
    expect(await page.locator(".till-checkout-dialog").count()).toBe(1);
    await page.close();
  });

  it("the overlay and the checkout page have no serious or critical accessibility violations (axe-core)", async () => {
    const axe = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
    const checkout = await newCheckout();
    const { page, frame } = await openOverlay(checkout.url);
    for (const target of [page, frame]) {
      await target.evaluate(axe);
      const violations = await target.evaluate(async () => {
        const result = await (
          window as unknown as {
            axe: { run(): Promise<{ violations: { id: string; impact: string }[] }> };
          }
        ).axe.run();
        return result.violations
          .filter((v) => v.impact === "serious" || v.impact === "critical")
          .map((v) => v.id);
      });
      expect(violations).toEqual([]);
    }
    await page.close();
  });

  it("when the status stream cannot be opened the page polls and still reaches the success URL", async () => {
    const checkout = await newCheckout();
    const page = await browser.newPage();
    let refused = 0;
    await page.route("**/stream", (route) => {
      refused++;
      return route.abort();
    });
    await page.goto(checkout.url);
    await page.waitForSelector("#email");
    await fillAndPay(page.mainFrame(), "4242 4242 4242 4242");
    await page.waitForURL(`${host.url}/thanks?checkout=${checkout.id}`, { timeout: 15_000 });
    expect(refused).toBeGreaterThanOrEqual(1);
    await page.close();
  });

  it("the standalone checkout page renders and is screenshotted", async () => {
    const checkout = await newCheckout();
    const page = await browser.newPage();
    await page.goto(checkout.url);
    await page.waitForSelector("#email");
    await snapshot(page, "checkout-page", { fullPage: true });
    await page.close();
  });
});
