// The demo store, end to end as a newcomer meets it: `till dev` (the real executable, on a fresh
// data directory) prints the /demo URL; in Chromium a customer signs up in the store, subscribes to
// Pro through till's overlay with the sandbox card, comes back thanked, and opens the customer
// portal, which shows the subscription, the license key it granted and a link back to the store.
// Restarting `till dev` seeds nothing new, and the store's user is still signed in.
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, screenshotPath } from "../../test/helpers/chromium.ts";
import { US_ADDRESS } from "../../test/helpers/addresses.ts";
import { fillAddress } from "../../test/helpers/checkout-page.ts";
import { spawnTillServer, tempDir, type SpawnedServer } from "../../test/helpers/process.ts";
import { freePort } from "../../test/helpers/server.ts";
import { demoAccessToken } from "./seed.ts";

const cwd = tempDir("till-demo-");
let env: Record<string, string>;
let server: SpawnedServer;
let browser: Browser;
let context: BrowserContext;
const pageErrors: string[] = [];

async function stopServer(s: SpawnedServer): Promise<void> {
  s.child.kill("SIGTERM");
  await s.child;
}

beforeAll(async () => {
  const port = await freePort();
  env = {
    PORT: String(port),
    BASE_URL: `http://localhost:${port}`,
    TILL_DATA_DIR: path.join(cwd, ".till"),
    GRANT_RETRY_DELAY_SECONDS: "1",
  };
  [server, browser] = await Promise.all([spawnTillServer("dev", env, cwd), launchBrowser()]);
  context = await browser.newContext();
});
afterAll(async () => {
  await browser?.close();
  if (server) await stopServer(server);
});

/** Runs a step of the page and keeps a screenshot of where it stopped when it fails. */
async function step<T>(page: Page, name: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    await page
      .screenshot({ path: screenshotPath(`demo-failed-${name}`), fullPage: true })
      .catch(() => {});
    throw err;
  }
}

async function demoProducts(url: string) {
  const secret = readFileSync(path.join(cwd, ".till", "auth-secret"), "utf8").trim();
  const res = await fetch(`${url}/v1/products/?limit=100`, {
    headers: { authorization: `Bearer ${demoAccessToken(secret)}` },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { items: { name: string; metadata: Record<string, string> }[] })
    .items;
}

describe("the demo store served by till dev", () => {
  it("is announced with the other URLs", () => {
    expect(server.output()).toContain(`Demo store ${server.url}/demo`);
  });

  it("signs a customer up, sells a subscription through the overlay, and shows it in the portal", async () => {
    const page = await context.newPage();
    page.on("pageerror", (e) => pageErrors.push(e.message));
    await step(page, "sign-up", async () => {
      await page.goto(`${server.url}/demo`);
      await page.locator("[data-product=pro]").waitFor();
      expect(await page.locator("[data-product=pro] .price").textContent()).toBe("$12.00 / month");
      expect(await page.locator("[data-product=pro] button.buy").isDisabled()).toBe(true);
      await page.fill("#name", "Ada Lovelace");
      await page.fill("#email", "ada@demo.example");
      await page.fill("#password", "correct horse battery");
      await page.click("button[type=submit]");
      await page.getByText("No active subscriptions.").waitFor();
    });

    await step(page, "overlay", async () => {
      await page.click("[data-product=pro] button.buy");
      await page.waitForSelector("iframe[title=Checkout]");
      const checkoutFrame = () => page.frames().find((f) => f.url().includes("/checkout/"));
      await expect.poll(checkoutFrame, { timeout: 15_000 }).toBeTruthy();
      const frame = checkoutFrame()!;
      await frame.waitForSelector("#card-number");
      // The store's signed-in user is the checkout's customer.
      expect(await frame.inputValue("#email")).toBe("ada@demo.example");
      await fillAddress(frame, US_ADDRESS);
      await frame.fill("#card-number", "4242 4242 4242 4242");
      await frame.fill("#card-expiry", "12/34");
      await frame.fill("#card-cvc", "123");
      await page.screenshot({ path: screenshotPath("demo-overlay") });
      await frame.click("button.pay");
      await page.waitForURL(new RegExp(`^${server.url}/demo\\?checkout_id=`), { timeout: 20_000 });
    });

    await step(page, "thanks", async () => {
      expect(await page.locator(".notice").textContent()).toBe(
        "Thanks! Your purchase went through.",
      );
      const subscription = page.locator(".subscription");
      await subscription.waitFor();
      expect(await subscription.textContent()).toContain("Pro");
      expect(await subscription.textContent()).toContain("active");
      await page.screenshot({ path: screenshotPath("demo-store"), fullPage: true });
    });

    await step(page, "portal", async () => {
      await page.click("button.portal");
      await page.waitForURL(`${server.url}/portal`, { timeout: 15_000 });
      const card = page.locator("[data-subscription]");
      await card.waitFor();
      expect(await card.textContent()).toContain("Pro");
      expect(await card.locator(".status").textContent()).toMatch(/^Renews on /);
      expect(await page.getAttribute("a.back", "href")).toBe(`${server.url}/demo`);
      // The worker grants the license key shortly after the purchase; the page shows it once granted.
      await expect
        .poll(
          async () => {
            await page.reload();
            await card.waitFor();
            return page.locator("[data-license-key] code").count();
          },
          { timeout: 20_000, interval: 500 },
        )
        .toBe(1);
      expect(await page.locator("[data-license-key] code").textContent()).toMatch(
        /^\*\*\*\*-[0-9A-F]{6}$/,
      );
      await page.screenshot({ path: screenshotPath("demo-portal"), fullPage: true });
      await page.click("a.back");
      await page.waitForURL(`${server.url}/demo`);
      await page.locator(".subscription").waitFor();
    });
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it("seeds nothing new when till dev starts again, and the store's user stays signed in", async () => {
    expect((await demoProducts(server.url)).map((p) => p.metadata.demo_slug).sort()).toEqual([
      "icons",
      "pro",
    ]);
    await stopServer(server);
    server = await spawnTillServer("dev", env, cwd);
    expect(server.output()).toContain(`Demo store ${server.url}/demo`);
    expect((await demoProducts(server.url)).map((p) => p.metadata.demo_slug).sort()).toEqual([
      "icons",
      "pro",
    ]);
    const page = await context.newPage();
    await step(page, "restart", async () => {
      await page.goto(`${server.url}/demo`);
      expect(await page.locator(".subscription").textContent()).toContain("Pro");
      expect(await page.textContent(".who")).toContain("ada@demo.example");
    });
    await page.close();
  });
});
