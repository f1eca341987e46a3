// axe-core on every dashboard section, at any impact, on a desktop (1440×900) and a phone (390×844)
// viewport, in light and dark; and on the phone the sections sit behind a Menu button instead of
// stacking above the content.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, snapshot } from "../test/helpers/chromium.ts";
import {
  axeViolations,
  DESKTOP,
  PHONE,
  settled,
  signedInDashboard,
} from "../test/helpers/dashboard.ts";
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

describe("dashboard accessibility", () => {
  for (const [name, viewport] of [
    ["desktop", DESKTOP],
    ["phone", PHONE],
  ] as const) {
    it(`every section has no axe violations at any impact on a ${name} (${viewport.width}×${viewport.height})`, async () => {
      const { page, context } = await signedInDashboard(t.url, browser, viewport);
      const hrefs = await page
        .locator("nav[aria-label=Sections] a")
        .evaluateAll((as) => as.map((a) => a.getAttribute("href")!));
      expect(hrefs).toContain("/benefits");
      const found: string[] = [];
      for (const href of hrefs) {
        await page.goto(`${t.url}${href}`);
        await page.waitForSelector(".content h1");
        await settled(page);
        for (const scheme of ["light", "dark"] as const) {
          await page.emulateMedia({ colorScheme: scheme });
          found.push(...(await axeViolations(page)).map((v) => `${href} (${scheme}): ${v}`));
        }
      }
      await context.close();
      expect(found).toEqual([]);
    });
  }

  it("on a phone the menu folds: content first, sections behind the Menu button", async () => {
    const { page, context } = await signedInDashboard(t.url, browser, PHONE);
    await page.goto(`${t.url}/benefits`);
    await page.waitForSelector(".content h1:has-text('Benefits')");
    await snapshot(page, "dashboard-benefits-phone");
    expect((await page.locator(".content h1").boundingBox())!.y).toBeLessThan(200);
    expect(await page.isVisible("nav[aria-label=Sections]")).toBe(false);
    await page.click("button.menu-toggle");
    expect(await page.isVisible("nav[aria-label=Sections]")).toBe(true);
    expect(await axeViolations(page)).toEqual([]);
    await page.click("nav >> text=Products");
    await page.waitForSelector(".content h1:has-text('Products')");
    expect(await page.isVisible("nav[aria-label=Sections]")).toBe(false);
    await context.close();
  });
});
