// The signed-in dashboard in Chromium for browser tests: a seller made over the API (user,
// organization, access token for checking results through the API), signed in through the real
// sign-in page; and axe-core run the way the dashboard tests run it.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { createAccessToken, createOrganization, signUp } from "./auth.ts";

export const DESKTOP = { width: 1440, height: 900 };
export const PHONE = { width: 390, height: 844 };

export interface DashboardSession {
  context: BrowserContext;
  page: Page;
  organization: { id: string; name: string };
  /** An organization access token with every scope the dashboard tests check through. */
  token: string;
}

const SCOPES = [
  "benefits:read",
  "benefits:write",
  "products:read",
  "products:write",
  "files:read",
  "files:write",
  "meters:read",
  "meters:write",
  "webhooks:read",
  "webhooks:write",
  "customers:write",
  "events:write",
  "checkouts:write",
  "discounts:write",
];

export async function signedInDashboard(
  base: string,
  browser: Browser,
  viewport = DESKTOP,
): Promise<DashboardSession> {
  const user = await signUp(base);
  const organization = await createOrganization(base, user, "Acme Tools");
  const token = await createAccessToken(base, user, organization.id, SCOPES);
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  // Deleting asks for confirmation; the tests mean it.
  page.on("dialog", (d) => void d.accept());
  await page.goto(`${base}/sign-in`);
  await page.getByLabel("Email").fill(user.email);
  await page.getByLabel("Password").fill(user.password);
  await page.click("button[type=submit]");
  await page.waitForSelector(".content h1");
  return { context, page, organization, token };
}

/** Every axe violation, at any impact, as "rule: target" lines (empty when the page is clean). */
export async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => "axe" in window)))
    await page.evaluate(
      readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8"),
    );
  return page.evaluate(async () => {
    const result = await (
      window as unknown as {
        axe: {
          run(): Promise<{
            violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
          }>;
        };
      }
    ).axe.run();
    return result.violations.flatMap((v) =>
      v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(" ")}`),
    );
  });
}

/** Waits until the page has no spinner left. */
export async function settled(page: Page): Promise<void> {
  await page.waitForFunction(() => document.querySelectorAll("[role=status].loading").length === 0);
}
