// Origin and redirect protection: callback, redirect and error URLs must be trusted origins (from
// TRUSTED_ORIGINS and BASE_URL) or safe relative paths; cookie-carrying requests need a trusted
// Origin; cross-site form posts are refused.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browser, uniqueEmail } from "../../../test/helpers/browser.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

const PASSWORD = "correct horse battery";
const APP = "https://app.till.test";

let t: TestServer;
let email: string;
beforeAll(async () => {
  t = await startTestServer({ env: { TRUSTED_ORIGINS: APP } });
  email = uniqueEmail();
  await browser(t.url).client.signUp.email({ email, password: PASSWORD, name: "Ada" });
});
afterAll(() => t?.stop());

describe("callback and redirect URLs", () => {
  it('"Invalid callbackURL": an untrusted absolute or protocol-relative callbackURL is a 403', async () => {
    for (const callbackURL of ["https://evil.example/steal", "//evil.example/x"]) {
      const res = await browser(t.url).call("/api/auth/sign-in/email", {
        body: { email, password: PASSWORD, callbackURL },
      });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({
        code: "INVALID_CALLBACK_URL",
        message: "Invalid callbackURL",
      });
    }
  });

  it("a relative path, the base URL and a TRUSTED_ORIGINS origin are accepted as callbackURL", async () => {
    for (const callbackURL of ["/dashboard", `${t.url}/dashboard`, `${APP}/welcome`]) {
      const res = await browser(t.url).call("/api/auth/sign-in/email", {
        body: { email, password: PASSWORD, callbackURL },
      });
      expect(res.status).toBe(200);
    }
  });

  it('"Invalid redirectURL": /request-password-reset refuses an untrusted redirectTo and sends nothing', async () => {
    const res = await browser(t.url).call("/api/auth/request-password-reset", {
      body: { email, redirectTo: "https://evil.example/reset" },
    });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      code: "INVALID_REDIRECT_URL",
      message: "Invalid redirectURL",
    });
  });

  it('"Invalid errorCallbackURL" and "Invalid newUserCallbackURL" on social sign-in', async () => {
    const err = await browser(t.url).call("/api/auth/sign-in/social", {
      body: { provider: "github", callbackURL: "/", errorCallbackURL: "https://evil.example/e" },
    });
    expect(err.status).toBe(403);
    expect(err.body).toMatchObject({
      code: "INVALID_ERROR_CALLBACK_URL",
      message: "Invalid errorCallbackURL",
    });
    const nu = await browser(t.url).call("/api/auth/sign-in/social", {
      body: { provider: "github", callbackURL: "/", newUserCallbackURL: "https://evil.example/n" },
    });
    expect(nu.status).toBe(403);
    expect(nu.body).toMatchObject({
      code: "INVALID_NEW_USER_CALLBACK_URL",
      message: "Invalid newUserCallbackURL",
    });
  });

  it("an untrusted callbackURL on a GET link (verify-email) is refused too", async () => {
    const res = await browser(t.url).call(
      "/api/auth/verify-email?token=x&callbackURL=https://evil.example/",
    );
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: "INVALID_CALLBACK_URL" });
  });
});

describe("origins of cookie-carrying requests", () => {
  async function signedIn() {
    const b = browser(t.url);
    await b.client.signIn.email({ email, password: PASSWORD });
    return b;
  }

  it('"Missing or null Origin": a POST with the session cookie and no Origin (or Origin: null) is a 403', async () => {
    const b = await signedIn();
    const none = await b.call("/api/auth/update-user", {
      body: { name: "Changed" },
      noOrigin: true,
    });
    expect(none.status).toBe(403);
    expect(none.body).toMatchObject({
      code: "MISSING_OR_NULL_ORIGIN",
      message: "Missing or null Origin",
    });
    const nul = await b.call("/api/auth/update-user", {
      body: { name: "Changed" },
      headers: { origin: "null" },
    });
    expect(nul.body).toMatchObject({ code: "MISSING_OR_NULL_ORIGIN" });
    expect(
      (await b.client.getSession({ query: { disableCookieCache: true } })).data!.user.name,
    ).toBe("Ada");
  });

  it('"Invalid origin": a POST with the session cookie from an untrusted site is a 403; a TRUSTED_ORIGINS site is accepted', async () => {
    const b = await signedIn();
    const evil = await b.call("/api/auth/update-user", {
      body: { name: "Changed" },
      headers: { origin: "https://evil.example" },
    });
    expect(evil.status).toBe(403);
    expect(evil.body).toMatchObject({ code: "INVALID_ORIGIN", message: "Invalid origin" });
    const app = await b.call("/api/auth/update-user", {
      body: { name: "Ada" },
      headers: { origin: APP },
    });
    expect(app.status).toBe(200);
  });

  it("a bearer-only request (no cookie) needs no Origin: that is how the CLI calls", async () => {
    const b = browser(t.url);
    const res = await b.call("/api/auth/sign-in/email", { body: { email, password: PASSWORD } });
    const token = res.headers.get("set-auth-token")!;
    expect(token).toEqual(expect.any(String));
    const update = await fetch(`${t.url}/api/auth/update-user`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Ada" }),
    });
    expect(update.status).toBe(200);
  });
});

describe("cross-site forms", () => {
  it("a cross-site navigation that posts the sign-in form is refused before any session is made", async () => {
    // Node's fetch forces Sec-Fetch-Mode: cors, so this request is written with node:http.
    const res = await rawPost(
      `${t.url}/api/auth/sign-in/email`,
      JSON.stringify({ email, password: PASSWORD }),
      {
        "content-type": "application/json",
        origin: "https://evil.example",
        "sec-fetch-site": "cross-site",
        "sec-fetch-mode": "navigate",
        "sec-fetch-dest": "document",
      },
    );
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body)).toMatchObject({
      code: "CROSS_SITE_NAVIGATION_LOGIN_BLOCKED",
      message: "Cross-site navigation login blocked. This request appears to be a CSRF attack.",
    });
    expect(res.setCookie).toBeUndefined();
  });

  it("a simple form post (form-encoded body) from another site is refused", async () => {
    const res = await browser(t.url).call("/api/auth/sign-in/email", {
      body: new URLSearchParams({ email, password: PASSWORD }).toString(),
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        origin: "https://evil.example",
      },
    });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: "INVALID_ORIGIN", message: "Invalid origin" });
    expect(res.headers.getSetCookie()).toEqual([]);
  });
});

function rawPost(
  url: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string; setCookie: string[] | undefined }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: "POST", headers: { ...headers, "content-length": Buffer.byteLength(body) } },
      (res) => {
        let text = "";
        res.on("data", (c: Buffer) => (text += c.toString()));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            body: text,
            setCookie: res.headers["set-cookie"],
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}
