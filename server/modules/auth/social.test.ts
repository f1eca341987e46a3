// Social sign-in with the OAuth code flow against a local provider (GitHub and Google shaped),
// configured only through AUTH_<NAME>_* variables: sign-up, disabled sign-up, linking and
// unlinking, list-accounts, account-info, get-access-token and refresh-token.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { browser, uniqueEmail } from "../../../test/helpers/browser.ts";
import {
  oauthFlow,
  providerEnv,
  startOAuthProvider,
  type FakeProvider,
} from "../../../test/helpers/oauth-provider.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

const CREDS = { clientId: "gh-client", clientSecret: "gh-secret" };
const GOOGLE = { clientId: "g-client", clientSecret: "g-secret" };
const PASSWORD = "correct horse battery";

let github: FakeProvider;
let google: FakeProvider;
let t: TestServer;
let closed: TestServer;
let unlinkAll: TestServer;
let nextId = 1000;

beforeAll(async () => {
  github = await startOAuthProvider(CREDS);
  google = await startOAuthProvider(GOOGLE);
  const env = { ...providerEnv("github", github, CREDS), ...providerEnv("google", google, GOOGLE) };
  t = await startTestServer({ env });
  closed = await startTestServer({ env: { ...env, AUTH_DISABLE_SIGNUP: "true" } });
  unlinkAll = await startTestServer({ env: { ...env, AUTH_ALLOW_UNLINKING_ALL: "true" } });
});
afterAll(async () => {
  await Promise.all([t?.stop(), closed?.stop(), unlinkAll?.stop()]);
  await Promise.all([github?.stop(), google?.stop()]);
});

function githubProfile(email: string) {
  nextId += 1;
  return {
    id: nextId,
    login: `octo${nextId}`,
    name: null,
    email,
    avatar_url: `https://avatars.example/${nextId}.png`,
    email_verified: true,
  };
}

describe("sign-in with a provider configured by environment", () => {
  it("the first GitHub sign-in creates the user and a github account, with PKCE, and lands on callbackURL signed in", async () => {
    const b = browser(t.url);
    const email = uniqueEmail("octo");
    github.nextProfile = githubProfile(email);
    const { start, callback } = await oauthFlow(b, "/api/auth/sign-in/social", {
      provider: "github",
      newUserCallbackURL: "/welcome",
    });
    const authorizeUrl = new URL(start.body.url);
    expect(authorizeUrl.origin + authorizeUrl.pathname).toBe(`${github.url}/authorize`);
    expect(authorizeUrl.searchParams.get("redirect_uri")).toBe(`${t.url}/api/auth/callback/github`);
    expect(authorizeUrl.searchParams.get("code_challenge_method")).toBe("S256");
    expect(callback!.status).toBe(302);
    expect(callback!.headers.get("location")).toBe("/welcome");
    const session = await b.client.getSession();
    expect(session.data!.user).toMatchObject({
      email,
      name: github.nextProfile.login,
      image: github.nextProfile.avatar_url,
    });
    const accounts = await b.client.listAccounts();
    expect(accounts.data!.map((a) => [a.providerId, a.accountId])).toEqual([
      ["github", String(github.nextProfile.id)],
    ]);
  });

  it("signing in again with the same GitHub account finds the same user and goes to callbackURL", async () => {
    const email = uniqueEmail("octo");
    const profile = githubProfile(email);
    github.nextProfile = profile;
    await oauthFlow(browser(t.url), "/api/auth/sign-in/social", { provider: "github" });
    const b = browser(t.url);
    github.nextProfile = profile;
    const { callback } = await oauthFlow(b, "/api/auth/sign-in/social", {
      provider: "github",
      newUserCallbackURL: "/welcome",
    });
    expect(callback!.headers.get("location")).toBe("/dashboard");
    const rows = await t.server.database.rows(sql`select 1 from "user" where email = ${email}`);
    expect(rows).toHaveLength(1);
  });

  it("a Google-shaped provider (OIDC userinfo with `sub`) keys the account on sub", async () => {
    const b = browser(t.url);
    const email = uniqueEmail("g");
    google.nextProfile = {
      sub: "google-sub-42",
      email,
      email_verified: true,
      name: "Grace",
      picture: "https://pics.example/g.png",
    };
    const { callback } = await oauthFlow(b, "/api/auth/sign-in/social", { provider: "google" });
    expect(callback!.status).toBe(302);
    const accounts = await b.client.listAccounts();
    expect(accounts.data!.map((a) => [a.providerId, a.accountId])).toEqual([
      ["google", "google-sub-42"],
    ]);
    expect((await b.client.getSession()).data!.user).toMatchObject({
      name: "Grace",
      emailVerified: true,
    });
  });

  it("AUTH_DISABLE_SIGNUP: an unknown social user is sent back with ?error=signup_disabled and no user is made", async () => {
    const b = browser(closed.url);
    const email = uniqueEmail("closed");
    github.nextProfile = githubProfile(email);
    const { callback } = await oauthFlow(b, "/api/auth/sign-in/social", {
      provider: "github",
      errorCallbackURL: "/oops",
    });
    expect(callback!.status).toBe(302);
    expect(callback!.headers.get("location")).toMatch(/\/oops\?error=signup_disabled/);
    expect(
      await closed.server.database.rows(sql`select 1 from "user" where email = ${email}`),
    ).toHaveLength(0);
  });

  it("an unknown provider id is a 404 PROVIDER_NOT_FOUND", async () => {
    const res = await browser(t.url).call("/api/auth/sign-in/social", {
      body: { provider: "discord", callbackURL: "/" },
    });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: "PROVIDER_NOT_FOUND" });
  });

  it("a provider that is neither built in nor given its endpoints fails at start with the variable to set", async () => {
    await expect(
      startTestServer({ env: { AUTH_ACME_CLIENT_ID: "x", AUTH_ACME_CLIENT_SECRET: "y" } }),
    ).rejects.toThrow(/AUTH_ACME_AUTHORIZATION_URL/);
  });
});

describe("linked accounts", () => {
  async function passwordUser() {
    const b = browser(t.url);
    const email = uniqueEmail("linker");
    await b.client.signUp.email({ email, password: PASSWORD, name: "Linker" });
    return { b, email };
  }

  it("an email/password user links GitHub; list-accounts, account-info, get-access-token and refresh-token use it", async () => {
    const { b, email } = await passwordUser();
    github.nextProfile = githubProfile(email);
    const { callback } = await oauthFlow(b, "/api/auth/link-social", { provider: "github" });
    expect(callback!.status).toBe(302);
    const accounts = (await b.client.listAccounts()).data!;
    expect(accounts.map((a) => a.providerId).sort()).toEqual(["credential", "github"]);
    const gh = accounts.find((a) => a.providerId === "github")!;

    const info = await b.call(`/api/auth/account-info?accountId=${gh.id}`);
    expect(info.status).toBe(200);
    expect(info.body.user).toMatchObject({ email });
    expect(info.body.data).toMatchObject({ login: github.nextProfile.login });

    const access = await b.call("/api/auth/get-access-token", { body: { accountId: gh.id } });
    expect(access.status).toBe(200);
    expect(access.body.accessToken).toMatch(/^at_/);

    const refreshed = await b.call("/api/auth/refresh-token", { body: { accountId: gh.id } });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.accessToken).toMatch(/^at_/);
    expect(refreshed.body.accessToken).not.toBe(access.body.accessToken);
    expect(
      github.log.some((l) => l.path === "/token" && l.params.grant_type === "refresh_token"),
    ).toBe(true);
  });

  it('unlinking: one of two accounts may go; the last one may not ("You can\'t unlink your last account")', async () => {
    const { b, email } = await passwordUser();
    github.nextProfile = githubProfile(email);
    await oauthFlow(b, "/api/auth/link-social", { provider: "github" });
    const gh = (await b.client.listAccounts()).data!.find((a) => a.providerId === "github")!;
    expect((await b.call("/api/auth/unlink-account", { body: { accountId: gh.id } })).status).toBe(
      200,
    );
    const cred = (await b.client.listAccounts()).data!.find((a) => a.providerId === "credential")!;
    const last = await b.call("/api/auth/unlink-account", { body: { accountId: cred.id } });
    expect(last.status).toBe(400);
    expect(last.body).toMatchObject({
      code: "FAILED_TO_UNLINK_LAST_ACCOUNT",
      message: "You can't unlink your last account",
    });
    const missing = await b.call("/api/auth/unlink-account", {
      body: { accountId: "00000000-0000-4000-8000-000000000000" },
    });
    expect(missing.status).toBe(400);
  });

  it("AUTH_ALLOW_UNLINKING_ALL=true lets the last account go", async () => {
    const b = browser(unlinkAll.url);
    await b.client.signUp.email({ email: uniqueEmail(), password: PASSWORD, name: "All" });
    const cred = (await b.client.listAccounts()).data![0]!;
    expect(
      (await b.call("/api/auth/unlink-account", { body: { accountId: cred.id } })).status,
    ).toBe(200);
  });
});
