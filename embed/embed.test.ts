// The overlay script in a real browser, on a host page served from a different origin than till.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { launchBrowser } from "../test/helpers/chromium.ts";
import { startHostPage, type HostPage } from "../test/helpers/host-page.ts";
import { startTestServer, type TestServer } from "../test/helpers/server.ts";

let t: TestServer;
let host: HostPage;
let browser: Browser;

beforeAll(async () => {
  [t, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  host = await startHostPage(`<!doctype html><html><head><title>Shop</title></head><body>
    <button id="other">other</button>
    <a id="buy" href="${t.url}/checkout/does-not-exist" data-polar-checkout data-polar-checkout-theme="dark">Buy</a>
    <script src="${t.url}/embed.js"></script></body></html>`);
});
afterAll(async () => {
  await browser?.close();
  await host?.close();
  await t?.stop();
});

async function open(): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(host.url);
  await page.waitForFunction(() => "TillCheckout" in window);
  return page;
}

describe("embed.js", () => {
  it("is served with the server's origin baked in and no runtime dependencies", async () => {
    const res = await fetch(`${t.url}/embed.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("javascript");
    const text = await res.text();
    expect(text).toContain(JSON.stringify(JSON.stringify([new URL(t.url).origin])).slice(1, -1));
    expect(text).not.toMatch(/\bimport\s*[({"']/);
  });

  it("a data-polar-checkout link opens a labelled modal iframe with a spinner, locks scroll, Escape closes it", async () => {
    const page = await open();
    // The overlay asks the API why a frame that loads says nothing; held here, the overlay stays
    // in its loading state for the checks below.
    await page.route("**/v1/checkouts/client/**", () => {});
    await page.click("#buy");
    const dialog = page.locator('[role="dialog"][aria-modal="true"]');
    await expect.poll(() => dialog.count()).toBe(1);
    const src = await page.locator("iframe[title=Checkout]").getAttribute("src");
    const url = new URL(src!);
    expect(url.searchParams.get("embed")).toBe("true");
    expect(url.searchParams.get("embed_origin")).toBe(host.url);
    expect(url.searchParams.get("theme")).toBe("dark");
    expect(await page.locator(".till-checkout-spinner").count()).toBe(1);
    expect(
      await page.evaluate(
        () => getComputedStyle(document.querySelector(".till-checkout-dialog")!).zIndex,
      ),
    ).toBe("2147483647");
    expect(await page.evaluate(() => document.body.style.overflow)).toBe("hidden");
    await page.keyboard.press("Escape");
    await expect.poll(() => dialog.count()).toBe(0);
    expect(await page.evaluate(() => document.body.style.overflow)).toBe("");
    expect(await page.evaluate(() => document.getElementById("till-checkout-style"))).toBeNull();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("buy");
    await page.close();
  });

  it("a checkout that cannot load raises error, rejects create() and says so in the overlay until closed", async () => {
    const page = await open();
    const outcome = await page.evaluate(async (base) => {
      const TC = (
        window as unknown as { TillCheckout: { create(u: string, o: object): Promise<unknown> } }
      ).TillCheckout;
      try {
        await TC.create(`${base}/checkout/broken`, {});
        return "resolved";
      } catch (e) {
        return (e as Error).message;
      }
    }, t.url);
    expect(outcome).toContain("Checkout not found");
    expect(await page.locator(".till-checkout-spinner").count()).toBe(0);
    expect(
      await page.textContent(".till-checkout-error [role=alert], .till-checkout-error"),
    ).toContain("Checkout not found");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Close");
    await page.click(".till-checkout-error button");
    expect(await page.locator(".till-checkout-dialog").count()).toBe(0);
    expect(await page.evaluate(() => document.body.style.overflow)).toBe("");
    await page.click("#other");
    await page.close();
  });

  it("a server that is down: the overlay raises error and shows a message instead of the browser's error page", async () => {
    const page = await open();
    const events = await page.evaluate(async () => {
      const TC = (
        window as unknown as {
          TillCheckout: { create(u: string, o: object): Promise<unknown> };
        }
      ).TillCheckout;
      const seen: string[] = [];
      const done = TC.create("http://127.0.0.1:9/checkout/x", {}).catch((e: Error) => {
        seen.push(`rejected: ${e.message}`);
      });
      await done;
      return seen;
    });
    expect(events[0]).toContain("could not be loaded");
    expect(await page.locator("iframe[title=Checkout]").count()).toBe(0);
    expect(await page.locator(".till-checkout-spinner").count()).toBe(0);
    expect(await page.isVisible("text=The checkout could not be loaded")).toBe(true);
    await page.keyboard.press("Escape");
    expect(await page.locator(".till-checkout-dialog").count()).toBe(0);
    await page.close();
  });

  it("ignores POLAR_CHECKOUT messages from the host page itself (not the overlay's frame)", async () => {
    const page = await open();
    await page.click("#buy");
    await page.evaluate(() => window.postMessage({ type: "POLAR_CHECKOUT", event: "close" }, "*"));
    await page.waitForTimeout(200);
    expect(await page.locator(".till-checkout-dialog").count()).toBe(1);
    await page.close();
  });
});
