// The consent page in a real browser: an app sends the user to /oauth2/authorize signed out; they
// sign in on the page, pick the organization, allow, and land on the app's redirect URI with a code
// that the app exchanges for a token.
import { createHash, randomBytes } from "node:crypto";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { launchBrowser } from "../../../test/helpers/chromium.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

let t: TestServer;
let browser: Browser;
const REDIRECT = "https://app.example.com/callback";
beforeAll(async () => {
  [t, browser] = await Promise.all([startTestServer({ worker: false }), launchBrowser()]);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await t?.stop();
});

describe("/oauth2/authorize in a browser", { timeout: 90_000 }, () => {
  it("signs in, consents for an organization and returns to the app with a usable code", async () => {
    const seller = await createSeller(t.url, ["products:read"]);
    const reg = await api(t.url, "/v1/oauth2/register", {
      token: seller.user.token,
      body: {
        client_name: "Browser App",
        redirect_uris: [REDIRECT],
        scope: "openid products:read",
        default_sub_type: "organization",
      },
    });
    const verifier = randomBytes(32).toString("base64url");
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    const query = new URLSearchParams({
      response_type: "code",
      client_id: reg.body.client_id,
      redirect_uri: REDIRECT,
      scope: "openid products:read",
      state: "s1",
      code_challenge: challenge,
      code_challenge_method: "S256",
    });

    const page = await browser.newPage();
    let landed = "";
    await page.route("https://app.example.com/**", (route) => {
      landed = route.request().url();
      return route.fulfill({ status: 200, contentType: "text/plain", body: "app" });
    });
    await page.goto(`${t.url}/oauth2/authorize?${query}`);
    await page.fill("#email", seller.user.email);
    await page.fill("#password", seller.user.password);
    await page.click("#sign-in-form button[type=submit]");
    await page.waitForSelector("text=Browser App");
    await page.selectOption("#organization_id", seller.organization.id);
    await page.click("button[value=allow]");
    // By host: the authorize page's own URL names the app in its redirect_uri.
    await page.waitForURL((u) => u.hostname === "app.example.com");
    await page.close();

    const back = new URL(landed);
    expect(back.searchParams.get("state")).toBe("s1");
    const res = await fetch(`${t.url}/v1/oauth2/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code: back.searchParams.get("code")!,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
        client_id: reg.body.client_id,
        client_secret: reg.body.client_secret,
      }),
    });
    expect(res.status).toBe(200);
    const { access_token } = (await res.json()) as { access_token: string };
    expect((await api(t.url, "/v1/products/", { token: access_token })).status).toBe(200);
  });
});
