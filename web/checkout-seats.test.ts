// The hosted checkout's seats in a real browser: a seat-based price shows a stepper within its
// tiers and the session's bounds, each step (or a typed number) updates the session and the total
// through the public checkout update, a number out of range is not sent, and the buyer pays for the
// seats picked.
import type { Page } from "playwright-core";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../test/helpers/auth.ts";
import { launchBrowser } from "../test/helpers/chromium.ts";
import { US_ADDRESS } from "../test/helpers/addresses.ts";
import { fillAddress } from "../test/helpers/checkout-page.ts";
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
      name: "Team plan",
      recurring_interval: "month",
      prices: [
        {
          amount_type: "seat_based",
          price_currency: "usd",
          seat_tiers: {
            seat_tier_type: "volume",
            tiers: [
              { min_seats: 2, max_seats: 4, price_per_seat: 1000 },
              { min_seats: 5, price_per_seat: 800 },
            ],
          },
        },
      ],
    },
  });
  expect(product.status, JSON.stringify(product.body)).toBe(201);
  productId = product.body.id;
});
afterAll(async () => {
  await browser?.close();
  await t?.stop();
});

/** Counts the page's updates of the session's seats (the billing country has its own). */
function updateCalls(page: Page): () => number {
  let n = 0;
  page.on("request", (r) => {
    if (
      r.method() === "PATCH" &&
      r.url().includes("/v1/checkouts/client/") &&
      "seats" in (r.postDataJSON() ?? {})
    )
      n++;
  });
  return () => n;
}

const total = (page: Page) => page.textContent("[data-testid=total]");
async function waitForTotal(page: Page, text: string) {
  await page.waitForFunction(
    (want) => document.querySelector("[data-testid=total]")?.textContent === want,
    text,
  );
}

describe("checkout seats", () => {
  it("steps the seats within the bounds, updating the total, and sells the seats picked", async () => {
    const created = await api(t.url, "/v1/checkouts/", {
      token,
      body: { products: [productId], seats: 2, max_seats: 6 },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 }, locale: "en-US" });
    const updates = updateCalls(page);
    await page.goto(created.body.url);
    await page.waitForSelector("#seats");
    expect(await page.inputValue("#seats")).toBe("2");
    expect(await page.textContent("#seats-help")).toBe("From 2 to 6.");
    expect(await page.isDisabled("button[aria-label='Remove a seat']")).toBe(true);
    expect(await total(page)).toBe("$20.00");

    await page.click("button[aria-label='Add a seat']");
    await waitForTotal(page, "$30.00");
    expect(await page.inputValue("#seats")).toBe("3");
    // A typed number goes with Enter, which never pays: 5 seats at the 8.00 tier.
    await page.fill("#seats", "5");
    await page.press("#seats", "Enter");
    await waitForTotal(page, "$40.00");
    await page.click("button[aria-label='Add a seat']");
    await waitForTotal(page, "$48.00");
    expect(await page.isDisabled("button[aria-label='Add a seat']")).toBe(true);
    expect(updates()).toBe(3);
    // Beyond the session's maximum: not sent, the field shows the seats again.
    await page.fill("#seats", "9");
    await page.press("#seats", "Enter");
    expect(await page.inputValue("#seats")).toBe("6");
    expect(updates()).toBe(3);
    const session = await api(t.url, `/v1/checkouts/${created.body.id}`, { token });
    expect([session.body.seats, session.body.amount]).toEqual([6, 4800]);

    await page.fill("#email", "team@example.com");
    await fillAddress(page, US_ADDRESS);
    await page.fill("#card-number", "4242424242424242");
    await page.fill("#card-expiry", "12/34");
    await page.fill("#card-cvc", "123");
    await page.click("button.pay");
    await page.waitForURL(/\/confirmation/, { timeout: 15_000 });
    const orders = await api(t.url, `/v1/orders/?checkout_id=${created.body.id}`, { token });
    expect(
      orders.body.items.map((o: { seats: number; total_amount: number }) => [
        o.seats,
        o.total_amount,
      ]),
    ).toEqual([[6, 4800]]);
    await page.close();
  });

  it("steps by keyboard: focus stays on the stepper's button through each step and at the bound", async () => {
    const created = await api(t.url, "/v1/checkouts/", {
      token,
      body: { products: [productId], seats: 2, max_seats: 4 },
    });
    const page = await browser.newPage({ locale: "en-US" });
    await page.goto(created.body.url);
    await page.waitForSelector("#seats");
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute("aria-label"));
    await page.focus("button[aria-label='Add a seat']");
    await page.keyboard.press("Enter");
    await waitForTotal(page, "$30.00");
    expect(await focused()).toBe("Add a seat");
    await page.keyboard.press("Enter");
    await waitForTotal(page, "$40.00");
    // At the session's maximum the button is dimmed, still where the buyer is.
    expect(await focused()).toBe("Add a seat");
    expect(await page.getAttribute("button[aria-label='Add a seat']", "aria-disabled")).toBe(
      "true",
    );
    await page.keyboard.press("Enter");
    expect(await page.inputValue("#seats")).toBe("4");
    await page.keyboard.press("Shift+Tab");
    await page.keyboard.press("Shift+Tab");
    expect(await focused()).toBe("Remove a seat");
    await page.keyboard.press("Enter");
    await waitForTotal(page, "$30.00");
    expect(await focused()).toBe("Remove a seat");
    await page.close();
  });

  it("shows no seats for a price that is not seat-based", async () => {
    const plan = await api(t.url, "/v1/products/", {
      token,
      body: {
        name: "Solo plan",
        recurring_interval: "month",
        prices: [{ amount_type: "fixed", price_amount: 900, price_currency: "usd" }],
      },
    });
    const created = await api(t.url, "/v1/checkouts/", {
      token,
      body: { products: [plan.body.id] },
    });
    const page = await browser.newPage({ locale: "en-US" });
    await page.goto(created.body.url);
    await page.waitForSelector("#email");
    expect(await page.$("#seats")).toBeNull();
    await page.close();
  });
});
