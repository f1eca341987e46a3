// The admin plugin (roles admin and user), the username plugin, and the captcha plugin with a local
// server standing in for the provider's siteverify endpoint.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { api, signUp, type TestUser } from "../../../test/helpers/auth.ts";
import { serverWithAdmin } from "../../../test/helpers/admin.ts";
import { browser, uniqueEmail } from "../../../test/helpers/browser.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

const PASSWORD = "correct horse battery";

let t: TestServer;
let admin: TestUser;
beforeAll(async () => {
  // The first admin comes from TILL_ADMIN_EMAILS; later ones through set-role.
  ({ t, admin } = await serverWithAdmin());
});
afterAll(() => t?.stop());

const adminCall = (user: TestUser, path: string, body?: unknown) =>
  api(
    t.url,
    `/api/auth/admin/${path}`,
    body === undefined ? { token: user.token } : { token: user.token, body },
  );

describe("admin plugin", () => {
  it("new users get the role user; an admin lists users and a user may not", async () => {
    const user = await signUp(t.url);
    const me = await api(t.url, "/api/auth/get-session", { token: user.token });
    expect(me.body.user.role).toBe("user");
    const list = await adminCall(admin, "list-users?limit=100");
    expect(list.status).toBe(200);
    expect(list.body.users.map((u: { id: string }) => u.id)).toEqual(
      expect.arrayContaining([admin.id, user.id]),
    );
    const denied = await adminCall(user, "list-users");
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ code: "YOU_ARE_NOT_ALLOWED_TO_LIST_USERS" });
  });

  it("creates a user who can sign in, and sets a role", async () => {
    const email = uniqueEmail("made");
    const created = await adminCall(admin, "create-user", {
      email,
      password: PASSWORD,
      name: "Made",
      role: "user",
    });
    expect(created.status).toBe(200);
    expect(
      (await browser(t.url).client.signIn.email({ email, password: PASSWORD })).error,
    ).toBeNull();
    const promoted = await adminCall(admin, "set-role", {
      userId: created.body.user.id,
      role: "admin",
    });
    expect(promoted.body.user.role).toBe("admin");
    const bogus = await adminCall(admin, "set-role", {
      userId: created.body.user.id,
      role: "emperor",
    });
    expect(bogus.status).toBe(400);
    expect(bogus.body).toMatchObject({ code: "YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE" });
  });

  it('bans a user: their sessions end and sign-in says "You have been banned from this application"; unban restores it', async () => {
    const user = await signUp(t.url);
    expect(
      (await adminCall(admin, "ban-user", { userId: user.id, banReason: "spam" })).status,
    ).toBe(200);
    expect((await api(t.url, "/api/auth/get-session", { token: user.token })).body).toBeNull();
    const res = await browser(t.url).client.signIn.email({
      email: user.email,
      password: user.password,
    });
    expect(res.error).toMatchObject({ status: 403, code: "BANNED_USER" });
    expect(res.error!.message).toMatch(/^You have been banned from this application/);
    expect((await adminCall(admin, "unban-user", { userId: user.id })).status).toBe(200);
    expect(
      (await browser(t.url).client.signIn.email({ email: user.email, password: user.password }))
        .error,
    ).toBeNull();
  });

  it("an admin cannot ban or remove themselves", async () => {
    const ban = await adminCall(admin, "ban-user", { userId: admin.id });
    expect(ban.status).toBe(400);
    expect(ban.body).toMatchObject({
      code: "YOU_CANNOT_BAN_YOURSELF",
      message: "You cannot ban yourself",
    });
    const remove = await adminCall(admin, "remove-user", { userId: admin.id });
    expect(remove.status).toBe(400);
    expect(remove.body).toMatchObject({
      code: "YOU_CANNOT_REMOVE_YOURSELF",
      message: "You cannot remove yourself",
    });
  });

  it("impersonates a user and stops impersonating", async () => {
    const user = await signUp(t.url);
    const b = browser(t.url);
    await b.client.signIn.email({ email: admin.email, password: admin.password });
    const imp = await b.call("/api/auth/admin/impersonate-user", { body: { userId: user.id } });
    expect(imp.status).toBe(200);
    const as = await b.call("/api/auth/get-session?disableCookieCache=true");
    expect(as.body.user.id).toBe(user.id);
    expect(as.body.session.impersonatedBy).toBe(admin.id);
    expect((await b.call("/api/auth/admin/stop-impersonating", { body: {} })).status).toBe(200);
    expect((await b.call("/api/auth/get-session?disableCookieCache=true")).body.user.id).toBe(
      admin.id,
    );
    const denied = await adminCall(user, "impersonate-user", { userId: admin.id });
    expect(denied.status).toBe(403);
  });

  it("sets a user's password, lists and revokes their sessions, and removes them", async () => {
    const user = await signUp(t.url);
    expect(
      (
        await adminCall(admin, "set-user-password", {
          userId: user.id,
          newPassword: "admin chosen pw",
        })
      ).status,
    ).toBe(200);
    expect(
      (await browser(t.url).client.signIn.email({ email: user.email, password: "admin chosen pw" }))
        .error,
    ).toBeNull();
    const sessions = await adminCall(admin, "list-user-sessions", { userId: user.id });
    expect(sessions.body.sessions.length).toBe(2);
    const first = sessions.body.sessions[0].token;
    expect((await adminCall(admin, "revoke-user-session", { sessionToken: first })).status).toBe(
      200,
    );
    expect(
      (await adminCall(admin, "list-user-sessions", { userId: user.id })).body.sessions,
    ).toHaveLength(1);
    expect((await adminCall(admin, "revoke-user-sessions", { userId: user.id })).status).toBe(200);
    expect(
      (await adminCall(admin, "list-user-sessions", { userId: user.id })).body.sessions,
    ).toHaveLength(0);
    expect((await adminCall(admin, "remove-user", { userId: user.id })).status).toBe(200);
    expect(
      await t.server.database.rows(sql`select 1 from "user" where id = ${user.id}`),
    ).toHaveLength(0);
  });
});

describe("username plugin", () => {
  it("signs up with a username and signs in with it; a taken username is refused", async () => {
    const b = browser(t.url);
    const email = uniqueEmail();
    const up = await b.call("/api/auth/sign-up/email", {
      body: { email, password: PASSWORD, name: "U", username: "ada_lovelace" },
    });
    expect(up.status).toBe(200);
    const inn = await browser(t.url).call("/api/auth/sign-in/username", {
      body: { username: "Ada_Lovelace", password: PASSWORD },
    });
    expect(inn.status).toBe(200);
    expect(inn.body.user.email).toBe(email);
    const taken = await browser(t.url).call("/api/auth/sign-up/email", {
      body: { email: uniqueEmail(), password: PASSWORD, name: "U", username: "ada_lovelace" },
    });
    expect(taken.status).toBe(400);
    expect(taken.body).toMatchObject({ code: "USERNAME_IS_ALREADY_TAKEN" });
    const wrong = await browser(t.url).call("/api/auth/sign-in/username", {
      body: { username: "ada_lovelace", password: "wrong password" },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({ code: "INVALID_USERNAME_OR_PASSWORD" });
    const short = await browser(t.url).call("/api/auth/sign-up/email", {
      body: { email: uniqueEmail(), password: PASSWORD, name: "U", username: "ab" },
    });
    expect(short.body).toMatchObject({ code: "USERNAME_TOO_SHORT" });
  });
});

describe("captcha plugin", () => {
  let verifier: http.Server;
  let verifyUrl = "";
  const seen: Record<string, string>[] = [];
  let captcha: TestServer;
  beforeAll(async () => {
    // Cloudflare Turnstile's siteverify protocol: JSON {secret, response} → {success}.
    verifier = http.createServer(async (req, res) => {
      let raw = "";
      for await (const c of req) raw += String(c);
      const body = JSON.parse(raw) as Record<string, string>;
      seen.push(body);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          success: body.secret === "turnstile-secret" && body.response === "good-token",
        }),
      );
    });
    await new Promise<void>((r) => verifier.listen(0, "127.0.0.1", r));
    verifyUrl = `http://127.0.0.1:${(verifier.address() as AddressInfo).port}/siteverify`;
    captcha = await startTestServer({
      env: {
        CAPTCHA_PROVIDER: "cloudflare-turnstile",
        CAPTCHA_SECRET_KEY: "turnstile-secret",
        CAPTCHA_SITE_VERIFY_URL: verifyUrl,
      },
    });
  });
  afterAll(async () => {
    await captcha?.stop();
    await new Promise((r) => verifier.close(r));
  });

  it("is off by default: sign-up needs no captcha header", async () => {
    expect(
      (
        await browser(t.url).call("/api/auth/sign-up/email", {
          body: { email: uniqueEmail(), password: PASSWORD, name: "X" },
        })
      ).status,
    ).toBe(200);
  });

  it('with CAPTCHA_PROVIDER set: no x-captcha-response is "Missing CAPTCHA response"; a rejected one fails; a good one passes', async () => {
    const email = uniqueEmail("captcha");
    const missing = await browser(captcha.url).call("/api/auth/sign-up/email", {
      body: { email, password: PASSWORD, name: "X" },
    });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({
      code: "MISSING_RESPONSE",
      message: "Missing CAPTCHA response",
    });
    const bad = await browser(captcha.url).call("/api/auth/sign-up/email", {
      body: { email, password: PASSWORD, name: "X" },
      headers: { "x-captcha-response": "bad-token" },
    });
    expect(bad.status).toBe(403);
    expect(bad.body).toMatchObject({
      code: "VERIFICATION_FAILED",
      message: "Captcha verification failed",
    });
    expect(
      await captcha.server.database.rows(sql`select 1 from "user" where email = ${email}`),
    ).toHaveLength(0);
    const good = await browser(captcha.url).call("/api/auth/sign-up/email", {
      body: { email, password: PASSWORD, name: "X" },
      headers: { "x-captcha-response": "good-token" },
    });
    expect(good.status).toBe(200);
    expect(seen.at(-1)).toMatchObject({ secret: "turnstile-secret", response: "good-token" });
  });
});
