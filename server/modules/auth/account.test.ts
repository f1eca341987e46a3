// Account maintenance over HTTP: password reset, change of email (verified and unverified users),
// change and set password with revokeOtherSessions, and deleting a user.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { browser, lastLink, mailsTo, uniqueEmail } from "../../../test/helpers/browser.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

/** How better-auth stores a verification identifier with storeIdentifier "hashed". */
const stored = (identifier: string) => createHash("sha256").update(identifier).digest("base64url");

const PASSWORD = "correct horse battery";
const RESET_MESSAGE = "If this email exists in our system, check your email for the reset link";

let t: TestServer;
let noEmailDelete: TestServer;
let deleteDisabled: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  noEmailDelete = await startTestServer({ env: { AUTH_DELETE_USER_EMAIL_CONFIRMATION: "false" } });
  deleteDisabled = await startTestServer({ env: { AUTH_ALLOW_DELETE_USER: "false" } });
});
afterAll(async () => {
  await Promise.all([t?.stop(), noEmailDelete?.stop(), deleteDisabled?.stop()]);
});

async function newUser(server: TestServer, email = uniqueEmail()) {
  const b = browser(server.url);
  const res = await b.client.signUp.email({ email, password: PASSWORD, name: "Ada" });
  if (res.error) throw new Error(JSON.stringify(res.error));
  return { b, email, id: res.data!.user.id };
}

async function verify(server: TestServer, b: ReturnType<typeof browser>, email: string) {
  await b.call(
    (await lastLink(server.server.database, email, "verify-email")).replace(server.url, ""),
  );
}

async function one<T>(server: TestServer, query: ReturnType<typeof sql>): Promise<T | undefined> {
  return (await server.server.database.rows<T>(query))[0];
}

describe("password reset", () => {
  it("/request-password-reset answers the same fixed message for a known and an unknown address; only the known one gets mail", async () => {
    const { email } = await newUser(t);
    const b = browser(t.url);
    const known = await b.call("/api/auth/request-password-reset", {
      body: { email, redirectTo: "/reset" },
    });
    const unknown = await b.call("/api/auth/request-password-reset", {
      body: { email: uniqueEmail("ghost"), redirectTo: "/reset" },
    });
    expect(known.status).toBe(200);
    expect(known.body).toEqual({ status: true, message: RESET_MESSAGE });
    expect(unknown.body).toEqual(known.body);
    expect(await mailsTo(t.server.database, email, "reset-password")).toHaveLength(1);
  });

  it("the token is 24 characters, valid for one hour, and consumed (deleted) by /reset-password", async () => {
    const { email, b: owner } = await newUser(t);
    const b = browser(t.url);
    await b.call("/api/auth/request-password-reset", { body: { email, redirectTo: "/reset" } });
    const link = new URL(await lastLink(t.server.database, email, "reset-password"));
    const token = link.pathname.split("/").at(-1)!;
    expect(token).toMatch(/^[A-Za-z0-9]{24}$/);
    const row = await one<{ seconds: number }>(
      t,
      sql`select extract(epoch from (expires_at - created_at))::int as seconds from verification where identifier = ${stored(`reset-password:${token}`)}`,
    );
    expect(row!.seconds).toBeGreaterThanOrEqual(3599);
    expect(row!.seconds).toBeLessThanOrEqual(3601);
    // Only the hash is kept: the table holds nothing a reader could use as the link.
    expect(
      await one(t, sql`select 1 from verification where identifier like ${`%${token}%`}`),
    ).toBeUndefined();

    // The emailed link checks the token and redirects to the app's page with it.
    const open = await b.call(`${link.pathname}${link.search}`);
    expect(open.status).toBe(302);
    expect(open.headers.get("location")).toBe(`${t.url}/reset?token=${token}`);

    expect(
      (
        await b.call("/api/auth/reset-password", {
          body: { token, newPassword: "brand new password" },
        })
      ).status,
    ).toBe(200);
    expect(
      await one(
        t,
        sql`select 1 from verification where identifier = ${stored(`reset-password:${token}`)}`,
      ),
    ).toBeUndefined();
    const reuse = await b.call("/api/auth/reset-password", {
      body: { token, newPassword: "another password" },
    });
    expect(reuse.status).toBe(400);
    expect(reuse.body).toMatchObject({ code: "INVALID_TOKEN", message: "Invalid token" });
    // The old password no longer works, the new one does, and existing sessions were revoked.
    expect(
      (await browser(t.url).client.signIn.email({ email, password: PASSWORD })).error?.status,
    ).toBe(401);
    expect(
      (await browser(t.url).client.signIn.email({ email, password: "brand new password" })).error,
    ).toBeNull();
    expect(
      (await owner.client.getSession({ query: { disableCookieCache: true } })).data,
    ).toBeNull();
  });

  it("an expired token is rejected with INVALID_TOKEN", async () => {
    const { email } = await newUser(t);
    const b = browser(t.url);
    await b.call("/api/auth/request-password-reset", { body: { email, redirectTo: "/reset" } });
    const token = new URL(await lastLink(t.server.database, email, "reset-password")).pathname
      .split("/")
      .at(-1)!;
    await t.server.database.rows(
      sql`update verification set expires_at = now() - interval '1 second' where identifier = ${stored(`reset-password:${token}`)}`,
    );
    const res = await b.call("/api/auth/reset-password", {
      body: { token, newPassword: "brand new password" },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("INVALID_TOKEN");
  });
});

describe("change email", () => {
  it("an unverified user's email switches at once and a verification mail goes to the new address", async () => {
    const { b, id } = await newUser(t);
    const next = uniqueEmail("next");
    const res = await b.call("/api/auth/change-email", { body: { newEmail: next } });
    expect(res.status).toBe(200);
    const row = await one<{ email: string; email_verified: boolean }>(
      t,
      sql`select email, email_verified from "user" where id = ${id}`,
    );
    expect(row).toEqual({ email: next, email_verified: false });
    expect(await mailsTo(t.server.database, next, "verify-email")).toHaveLength(1);
  });

  it("a verified user confirms from the current address first; the switch happens when the new address's link is followed", async () => {
    const { b, email, id } = await newUser(t);
    await verify(t, b, email);
    const next = uniqueEmail("next");
    expect(
      (
        await b.call("/api/auth/change-email", {
          body: { newEmail: next, callbackURL: "/settings" },
        })
      ).status,
    ).toBe(200);
    expect(
      (await one<{ email: string }>(t, sql`select email from "user" where id = ${id}`))!.email,
    ).toBe(email);
    const confirm = await mailsTo(t.server.database, email, "change-email");
    expect(confirm).toHaveLength(1);
    expect(confirm[0]!.text).toContain(next);

    const approve = await b.call(confirm[0]!.link!.replace(t.url, ""));
    expect(approve.status).toBe(302);
    expect(
      (await one<{ email: string }>(t, sql`select email from "user" where id = ${id}`))!.email,
    ).toBe(email);

    const switchLink = await lastLink(t.server.database, next, "verify-email");
    expect((await b.call(switchLink.replace(t.url, ""))).status).toBe(302);
    // better-auth 1.7 switches only after the new address proved it receives mail, so it stays verified.
    const row = await one<{ email: string; email_verified: boolean }>(
      t,
      sql`select email, email_verified from "user" where id = ${id}`,
    );
    expect(row).toEqual({ email: next, email_verified: true });
  });

  it('"Email is the same" is a 400', async () => {
    const { b, email } = await newUser(t);
    const res = await b.call("/api/auth/change-email", { body: { newEmail: email } });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe("Email is the same");
  });

  it("changing to another user's address answers 200 without revealing it, and changes and sends nothing", async () => {
    const { email: taken } = await newUser(t);
    const { b, id, email } = await newUser(t);
    const before = (await mailsTo(t.server.database, taken)).length;
    const res = await b.call("/api/auth/change-email", { body: { newEmail: taken } });
    expect(res.status).toBe(200);
    expect(
      (await one<{ email: string }>(t, sql`select email from "user" where id = ${id}`))!.email,
    ).toBe(email);
    expect(await mailsTo(t.server.database, taken)).toHaveLength(before);
  });
});

describe("change and set password", () => {
  it("change-password with revokeOtherSessions ends the other sessions and returns a new token", async () => {
    const { b, email } = await newUser(t);
    const other = browser(t.url);
    await other.client.signIn.email({ email, password: PASSWORD });
    const wrong = await b.client.changePassword({
      currentPassword: "not it at all",
      newPassword: "a new password",
    });
    expect(wrong.error).toMatchObject({
      status: 400,
      code: "INVALID_PASSWORD",
      message: "Invalid password",
    });
    const res = await b.client.changePassword({
      currentPassword: PASSWORD,
      newPassword: "a new password",
      revokeOtherSessions: true,
    });
    expect(res.error).toBeNull();
    expect(res.data!.token).toEqual(expect.any(String));
    expect(
      (await other.client.getSession({ query: { disableCookieCache: true } })).data,
    ).toBeNull();
    expect(
      (await b.client.getSession({ query: { disableCookieCache: true } })).data!.user.email,
    ).toBe(email);
  });

  it("change-password without revokeOtherSessions keeps the other sessions", async () => {
    const { b, email } = await newUser(t);
    const other = browser(t.url);
    await other.client.signIn.email({ email, password: PASSWORD });
    const res = await b.client.changePassword({
      currentPassword: PASSWORD,
      newPassword: "a new password",
    });
    expect(res.data!.token).toBeNull();
    expect(
      (await other.client.getSession({ query: { disableCookieCache: true } })).data!.user.email,
    ).toBe(email);
  });

  it("/api/account/set-password needs a session (401), refuses a user who already has one, and sets one for a password-less user", async () => {
    const anon = await browser(t.url).call("/api/account/set-password", {
      body: { newPassword: "some password" },
    });
    expect(anon.status).toBe(401);
    const { b, id, email } = await newUser(t);
    const taken = await b.call("/api/account/set-password", {
      body: { newPassword: "some password" },
    });
    expect(taken.status).toBe(400);
    expect(taken.body).toMatchObject({
      code: "PASSWORD_ALREADY_SET",
      message: "User already has a password set",
    });
    // A user who signed up through a social provider has no password: remove the credential's hash.
    await t.server.database.rows(
      sql`update account set password = null where user_id = ${id} and provider_id = 'credential'`,
    );
    const set = await b.call("/api/account/set-password", {
      body: { newPassword: "the set password" },
    });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ status: true });
    expect(
      (await browser(t.url).client.signIn.email({ email, password: "the set password" })).error,
    ).toBeNull();
  });

  it("/api/account/set-password with a cookie from another origin is a 403 and sets nothing", async () => {
    const { b, id } = await newUser(t);
    await t.server.database.rows(sql`update account set password = null where user_id = ${id}`);
    const res = await b.call("/api/account/set-password", {
      body: { newPassword: "attacker password" },
      headers: { origin: "https://evil.example" },
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ code: "INVALID_ORIGIN", message: "Invalid origin" });
    const missing = await b.call("/api/account/set-password", {
      body: { newPassword: "attacker password" },
      noOrigin: true,
    });
    expect(missing.body).toEqual({
      code: "MISSING_OR_NULL_ORIGIN",
      message: "Missing or null Origin",
    });
    expect(
      (await one<{ password: string | null }>(
        t,
        sql`select password from account where user_id = ${id}`,
      ))!.password,
    ).toBeNull();
  });
});

describe("delete user", () => {
  it("with email confirmation (default): a wrong password is refused; otherwise a 32-char lowercase token valid 24 h is mailed and deletes the user", async () => {
    const { b, id, email } = await newUser(t);
    const wrong = await b.call("/api/auth/delete-user", { body: { password: "not the password" } });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ code: "INVALID_PASSWORD" });
    const sent = await b.call("/api/auth/delete-user", {
      body: { password: PASSWORD, callbackURL: "/goodbye" },
    });
    expect(sent.body).toEqual({ success: true, message: "Verification email sent" });
    expect(await one(t, sql`select 1 from "user" where id = ${id}`)).toBeDefined();
    const link = new URL(await lastLink(t.server.database, email, "delete-account"));
    const token = link.searchParams.get("token")!;
    expect(token).toMatch(/^[a-z0-9]{32}$/);
    const ttl = await one<{ seconds: number }>(
      t,
      sql`select extract(epoch from (expires_at - created_at))::int as seconds from verification where identifier = ${stored(`delete-account-${token}`)}`,
    );
    expect(Math.abs(ttl!.seconds - 86_400)).toBeLessThanOrEqual(1);
    const done = await b.call(`${link.pathname}${link.search}`);
    expect(done.status).toBe(302);
    expect(done.headers.get("location")).toBe("/goodbye");
    expect(await one(t, sql`select 1 from "user" where id = ${id}`)).toBeUndefined();
  });

  it("the emailed token also works in the body of /delete-user; a wrong token is refused", async () => {
    const { b, id, email } = await newUser(t);
    await b.call("/api/auth/delete-user", { body: {} });
    const token = new URL(
      await lastLink(t.server.database, email, "delete-account"),
    ).searchParams.get("token")!;
    const bad = await b.call("/api/auth/delete-user", { body: { token: "0".repeat(32) } });
    expect(bad.status).toBe(404);
    expect(bad.body).toMatchObject({ code: "INVALID_TOKEN" });
    expect(await one(t, sql`select 1 from "user" where id = ${id}`)).toBeDefined();
    expect((await b.call("/api/auth/delete-user", { body: { token } })).body).toEqual({
      success: true,
      message: "User deleted",
    });
    expect(await one(t, sql`select 1 from "user" where id = ${id}`)).toBeUndefined();
  });

  it("without email confirmation: the correct password deletes at once; without one, a session older than a day gets SESSION_EXPIRED", async () => {
    const a = await newUser(noEmailDelete);
    expect(
      (await a.b.call("/api/auth/delete-user", { body: { password: PASSWORD } })).body,
    ).toEqual({ success: true, message: "User deleted" });
    expect(await one(noEmailDelete, sql`select 1 from "user" where id = ${a.id}`)).toBeUndefined();

    const stale = await newUser(noEmailDelete);
    await noEmailDelete.server.database.rows(
      sql`update session set created_at = now() - interval '2 days' where user_id = ${stale.id}`,
    );
    for (const k of [...stale.b.jar.cookies.keys()])
      if (k.endsWith("session_data")) stale.b.jar.cookies.delete(k);
    const res = await stale.b.call("/api/auth/delete-user", { body: {} });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: "SESSION_EXPIRED",
      message: "Session expired. Re-authenticate to perform this action.",
    });
    expect(
      await one(noEmailDelete, sql`select 1 from "user" where id = ${stale.id}`),
    ).toBeDefined();

    const fresh = await newUser(noEmailDelete);
    expect((await fresh.b.call("/api/auth/delete-user", { body: {} })).status).toBe(200);
  });

  it("AUTH_ALLOW_DELETE_USER=false turns the endpoint off (404)", async () => {
    const { b, id } = await newUser(deleteDisabled);
    const res = await b.call("/api/auth/delete-user", { body: { password: PASSWORD } });
    expect(res.status).toBe(404);
    expect(await one(deleteDisabled, sql`select 1 from "user" where id = ${id}`)).toBeDefined();
  });
});
