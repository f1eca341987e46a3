// The dashboard shell in a real browser against a real server: signed-out visitors land on sign-in,
// client routes are served the app, API routes keep Polar's error body.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { launchBrowser, screenshotPath } from "../test/helpers/chromium.ts";
import { startTestServer, type TestServer } from "../test/helpers/server.ts";

let t: TestServer;
let browser: Browser;
beforeAll(async () => {
  [t, browser] = await Promise.all([startTestServer({ worker: false }), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await t?.stop();
});

describe("dashboard shell", () => {
  it("serves the built dashboard at / and client routes; a signed-out visitor is sent to sign in", async () => {
    const page = await browser.newPage();
    await page.goto(`${t.url}/products`);
    await page.waitForSelector("h1:has-text('Sign in')");
    expect(new URL(page.url()).pathname).toBe("/sign-in");
    expect(new URL(page.url()).searchParams.get("next")).toBe("/products");
    await page.screenshot({ path: screenshotPath("dashboard-sign-in") });
    const deep = await fetch(`${t.url}/products/123`, { headers: { accept: "text/html" } });
    expect(deep.status).toBe(200);
    expect(deep.headers.get("cache-control")).toBe("no-cache");
    expect(await deep.text()).toContain('<div id="root">');
    await page.close();
  });

  it("the device-approval page matches the dashboard in light and dark", async () => {
    const page = await browser.newPage({ viewport: { width: 900, height: 640 } });
    await page.goto(`${t.url}/device?user_code=ABCD2345`);
    await page.waitForSelector("#sign-in-form");
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: screenshotPath(`device-page-${scheme}`) });
    }
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe(
      "rgb(14, 16, 20)",
    );
    await page.close();
  });

  it("API routes keep Polar's 404 body instead of the dashboard", async () => {
    const res = await fetch(`${t.url}/v1/nope`, { headers: { accept: "text/html" } });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: "ResourceNotFound" });
  });
});
