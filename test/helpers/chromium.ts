// Headless Chromium (Debian's package) driven by playwright-core. A missing browser is a failure,
// not a skip: .ci/run installs it.
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { chromium, type Browser } from "playwright-core";
import { repoRoot } from "./process.ts";

export const CHROMIUM_PATH = "/usr/bin/chromium";
export const screenshotDir = path.join(repoRoot, "test-artifacts", "screenshots");

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM_PATH}. Install it: apt-get install chromium (the CI script does).`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

export function screenshotPath(name: string): string {
  mkdirSync(screenshotDir, { recursive: true });
  return path.join(screenshotDir, `${name}.png`);
}

/**
 * Saves a screenshot for the artifacts. It is evidence, not a check: a capture that does not finish
 * in 10 s (headless Chromium can wait on a cross-origin frame's fonts indefinitely) is given up
 * and logged rather than stalling the test.
 */
export async function snapshot(
  page: import("playwright-core").Page,
  name: string,
  options: { fullPage?: boolean } = {},
): Promise<void> {
  await page
    .screenshot({ path: screenshotPath(name), timeout: 10_000, ...options })
    .catch((err: Error) =>
      console.warn(`screenshot ${name} skipped: ${err.message.split("\n")[0]}`),
    );
}
