// `till login` for someone without an account: the /device page it prints offers sign-up, then
// "create an organization", then approval, in a real browser; the CLI ends up logged in with the new
// organization selected.
import { execa } from "execa";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "../../../test/helpers/chromium.ts";
import { cliEnv } from "../../../test/helpers/cli.ts";
import { tillBin } from "../../../test/helpers/process.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { waitFor } from "../../../test/helpers/webhook-receiver.ts";

let t: TestServer;
let browser: Browser;
beforeAll(async () => {
  [t, browser] = await Promise.all([startTestServer({ worker: false }), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await t?.stop();
});

describe("/device for a new user", { timeout: 90_000 }, () => {
  it("signs up, creates an organization and approves: till login finishes with that organization", async () => {
    const env = cliEnv();
    const login = execa(process.execPath, [tillBin, "login", "--server", t.url, "--json"], {
      env,
      extendEnv: false,
      reject: false,
      stdin: "ignore",
    });
    let stderr = "";
    login.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    await waitFor(() => /device\?user_code=\S+/.test(stderr), 20_000, `login URL\n${stderr}`);
    const url = /(http:\/\/\S+\/device\?user_code=\S+)/.exec(stderr)![1]!;

    const page = await browser.newPage();
    await page.goto(url);
    await page.click("#show-sign-up");
    await page.fill("#new_name", "New Seller");
    await page.fill("#new_email", `new-${Date.now()}@example.com`);
    await page.fill("#new_password", "a long enough password");
    await page.click("#sign-up-form button[type=submit]");
    // Signed in now: the code is claimed and the organization form offered.
    await page.waitForSelector("#new-org:not([hidden])");
    await page.waitForSelector("#confirm:not([hidden])");
    await page.fill("#org_name", "New Shop");
    await page.click("#org-form button[type=submit]");
    await page.waitForSelector("#message:has-text('Created New Shop')");
    await page.click("#approve");
    await page.waitForSelector("#message:has-text('Approved')");
    await page.close();

    const result = await login;
    expect(result.exitCode, result.stderr).toBe(0);
    const out = JSON.parse(result.stdout);
    expect(out.user.name).toBe("New Seller");
    expect(out.organization).toMatchObject({ name: "New Shop", slug: "new-shop" });
  });
});
