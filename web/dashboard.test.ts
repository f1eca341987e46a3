// The dashboard in a real browser against a real server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { launchBrowser, screenshotPath } from "../test/helpers/chromium.ts";
import { startTestServer, type TestServer } from "../test/helpers/server.ts";

let t: TestServer;
let browser: Browser;
beforeAll(async () => {
  [t, browser] = await Promise.all([startTestServer(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await t?.stop();
});

describe("dashboard shell", () => {
  it("serves the built dashboard at / and client routes, and it reports the server ready", async () => {
    const page = await browser.newPage();
    await page.goto(`${t.url}/`);
    await expect.poll(() => page.textContent("section[aria-live]")).toContain("Server ready");
    await page.screenshot({ path: screenshotPath("dashboard-home") });
    const deep = await fetch(`${t.url}/products/123`, { headers: { accept: "text/html" } });
    expect(deep.status).toBe(200);
    expect(deep.headers.get("cache-control")).toBe("no-cache");
    expect(await deep.text()).toContain('<div id="root">');
    await page.close();
  });

  it("API routes keep Polar's 404 body instead of the dashboard", async () => {
    const res = await fetch(`${t.url}/v1/nope`, { headers: { accept: "text/html" } });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: "ResourceNotFound" });
  });
});
