// Email/password sign-up and sign-in through better-auth's own client, password length limits from
// config, and sandbox vs production verification.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { loadConfig } from "../../config.ts";
import { browser, lastLink, mailsTo, uniqueEmail } from "../../../test/helpers/browser.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PASSWORD = "long enough pw";

let sandbox: TestServer;
let verified: TestServer;
beforeAll(async () => {
  sandbox = await startTestServer({
    env: { AUTH_MIN_PASSWORD_LENGTH: "10", AUTH_MAX_PASSWORD_LENGTH: "20" },
  });
  verified = await startTestServer({ env: { AUTH_REQUIRE_EMAIL_VERIFICATION: "true" } });
});
afterAll(async () => {
  await sandbox?.stop();
  await verified?.stop();
});

async function userCount(t: TestServer, email: string): Promise<number> {
  const [row] = await t.server.database.rows<{ n: number }>(
    sql`select count(*)::int as n from "user" where email = ${email}`,
  );
  return row!.n;
}

describe("sign-up and sign-in (better-auth/client)", () => {
  it("sign-up creates a user with a UUID id and a session that get-session returns", async () => {
    const { client } = browser(sandbox.url);
    const email = uniqueEmail();
    const { data, error } = await client.signUp.email({ email, password: PASSWORD, name: "Ada" });
    expect(error).toBeNull();
    expect(data!.user.id).toMatch(UUID);
    expect(data!.user.emailVerified).toBe(false);
    const session = await client.getSession();
    expect(session.data!.user.email).toBe(email);
    expect(session.data!.session.id).toMatch(UUID);
  });

  it("a JSON body of null, or none, on sign-up and update-user is a 400 VALIDATION_ERROR, not a 500", async () => {
    const b = browser(sandbox.url);
    const { error } = await b.client.signUp.email({
      email: uniqueEmail(),
      password: PASSWORD,
      name: "Ada",
    });
    expect(error).toBeNull();
    const json = { "content-type": "application/json" };
    for (const path of ["/api/auth/sign-up/email", "/api/auth/update-user"])
      for (const body of ["null", ""]) {
        const res = await b.call(path, { method: "POST", body, headers: json });
        expect(res.status, `${path} ${JSON.stringify(body)}: ${res.text}`).toBe(400);
        expect(res.body).toMatchObject({
          code: "VALIDATION_ERROR",
          message: expect.stringMatching(/^\[body\] Invalid input: expected object/),
        });
      }
  });

  it("INVALID_EMAIL: sign-in with a malformed address is 400 INVALID_EMAIL; sign-up's body check rejects it first", async () => {
    const { client } = browser(sandbox.url);
    const inn = await client.signIn.email({ email: "not-an-email", password: PASSWORD });
    expect(inn.error).toMatchObject({
      status: 400,
      code: "INVALID_EMAIL",
      message: "Invalid email",
    });
    // Sign-up validates `email` in its body schema before the INVALID_EMAIL check can run.
    const up = await client.signUp.email({ email: "not-an-email", password: PASSWORD, name: "X" });
    expect(up.error).toMatchObject({
      status: 400,
      code: "VALIDATION_ERROR",
      message: "[body.email] Invalid email address",
    });
    expect(await userCount(sandbox, "not-an-email")).toBe(0);
  });

  it("USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL: signing up twice is a 422 and keeps one user", async () => {
    const { client } = browser(sandbox.url);
    const email = uniqueEmail();
    await client.signUp.email({ email, password: PASSWORD, name: "One" });
    const again = await browser(sandbox.url).client.signUp.email({
      email,
      password: PASSWORD,
      name: "Two",
    });
    expect(again.error).toMatchObject({
      status: 422,
      code: "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL",
      message: "User already exists. Use another email.",
    });
    expect(await userCount(sandbox, email)).toBe(1);
  });

  it("INVALID_EMAIL_OR_PASSWORD: an unknown user and a wrong password get the same 401 answer", async () => {
    const email = uniqueEmail();
    await browser(sandbox.url).client.signUp.email({ email, password: PASSWORD, name: "Ada" });
    const wrong = await browser(sandbox.url).client.signIn.email({
      email,
      password: "wrong password",
    });
    const unknown = await browser(sandbox.url).client.signIn.email({
      email: uniqueEmail("nobody"),
      password: PASSWORD,
    });
    expect(wrong.error).toMatchObject({
      status: 401,
      code: "INVALID_EMAIL_OR_PASSWORD",
      message: "Invalid email or password",
    });
    expect(unknown.error).toEqual(wrong.error);
  });

  it("signs in with the right password and signs out", async () => {
    const email = uniqueEmail();
    await browser(sandbox.url).client.signUp.email({ email, password: PASSWORD, name: "Ada" });
    const { client } = browser(sandbox.url);
    const res = await client.signIn.email({ email, password: PASSWORD });
    expect(res.error).toBeNull();
    expect((await client.getSession()).data!.user.email).toBe(email);
    await client.signOut();
    expect((await client.getSession()).data).toBeNull();
  });
});

describe("password length limits from config (min 10, max 20)", () => {
  it("PASSWORD_TOO_SHORT and PASSWORD_TOO_LONG on sign-up create no user", async () => {
    const { client } = browser(sandbox.url);
    const email = uniqueEmail();
    const short = await client.signUp.email({ email, password: "123456789", name: "X" });
    expect(short.error).toMatchObject({
      status: 400,
      code: "PASSWORD_TOO_SHORT",
      message: "Password too short: use at least 10 characters.",
    });
    const long = await client.signUp.email({ email, password: "x".repeat(21), name: "X" });
    expect(long.error).toMatchObject({
      status: 400,
      code: "PASSWORD_TOO_LONG",
      message: "Password too long: use at most 20 characters.",
    });
    expect(await userCount(sandbox, email)).toBe(0);
    expect(
      (await client.signUp.email({ email, password: "x".repeat(20), name: "X" })).error,
    ).toBeNull();
  });

  it("on reset-password: a too short or too long new password leaves the token usable", async () => {
    const email = uniqueEmail();
    await browser(sandbox.url).client.signUp.email({ email, password: PASSWORD, name: "X" });
    const b = browser(sandbox.url);
    await b.call("/api/auth/request-password-reset", { body: { email, redirectTo: "/reset" } });
    const token = new URL(await lastLink(sandbox.server.database, email, "reset-password")).pathname
      .split("/")
      .at(-1)!;
    const short = await b.call("/api/auth/reset-password", {
      body: { token, newPassword: "short" },
    });
    expect(short.status).toBe(400);
    expect(short.body).toMatchObject({
      code: "PASSWORD_TOO_SHORT",
      message: "Password too short: use at least 10 characters.",
    });
    const long = await b.call("/api/auth/reset-password", {
      body: { token, newPassword: "y".repeat(21) },
    });
    expect(long.body.code).toBe("PASSWORD_TOO_LONG");
    expect(
      (await b.call("/api/auth/reset-password", { body: { token, newPassword: "new password 1" } }))
        .status,
    ).toBe(200);
  });

  it("on change-password: too short or too long is a 400 and the old password still works", async () => {
    const email = uniqueEmail();
    const { client } = browser(sandbox.url);
    await client.signUp.email({ email, password: PASSWORD, name: "X" });
    const short = await client.changePassword({ currentPassword: PASSWORD, newPassword: "short" });
    expect(short.error).toMatchObject({
      status: 400,
      code: "PASSWORD_TOO_SHORT",
      message: "Password too short: use at least 10 characters.",
    });
    const long = await client.changePassword({
      currentPassword: PASSWORD,
      newPassword: "z".repeat(21),
    });
    expect(long.error).toMatchObject({ status: 400, code: "PASSWORD_TOO_LONG" });
    expect(
      (await browser(sandbox.url).client.signIn.email({ email, password: PASSWORD })).error,
    ).toBeNull();
  });

  it("on set-password (till's /api/account/set-password): too short or too long is a 400", async () => {
    const b = browser(sandbox.url);
    await b.client.signUp.email({ email: uniqueEmail(), password: PASSWORD, name: "X" });
    const short = await b.call("/api/account/set-password", { body: { newPassword: "short" } });
    expect(short.status).toBe(400);
    expect(short.body.code).toBe("PASSWORD_TOO_SHORT");
    const long = await b.call("/api/account/set-password", {
      body: { newPassword: "w".repeat(21) },
    });
    expect(long.body.code).toBe("PASSWORD_TOO_LONG");
  });
});

describe("verification by mode", () => {
  it("sandbox (till dev, tests): a new user signs in before verifying, and the verification mail still goes to the outbox", async () => {
    const email = uniqueEmail();
    const up = await browser(sandbox.url).client.signUp.email({
      email,
      password: PASSWORD,
      name: "X",
    });
    expect(up.data!.token).toEqual(expect.any(String));
    const inn = await browser(sandbox.url).client.signIn.email({ email, password: PASSWORD });
    expect(inn.error).toBeNull();
    const mails = await mailsTo(sandbox.server.database, email, "verify-email");
    expect(mails).toHaveLength(1);
    expect(mails[0]!.link).toContain(`${sandbox.url}/api/auth/verify-email?token=`);
  });

  it("production defaults to required verification; sandbox does not; AUTH_REQUIRE_EMAIL_VERIFICATION overrides", () => {
    const secret = {
      AUTH_SECRET: "s".repeat(40),
      TILL_DATA_DIR: "/tmp/till-config-test",
      TILL_PAYMENTS: "none",
    };
    expect(loadConfig({ command: "serve", env: secret }).auth.requireEmailVerification).toBe(true);
    expect(loadConfig({ command: "dev", env: secret }).auth.requireEmailVerification).toBe(false);
    expect(
      loadConfig({ command: "serve", env: { ...secret, AUTH_REQUIRE_EMAIL_VERIFICATION: "false" } })
        .auth.requireEmailVerification,
    ).toBe(false);
  });

  it("EMAIL_NOT_VERIFIED: with verification required, sign-up gives no session and sign-in is a 403 until the link is followed", async () => {
    const email = uniqueEmail();
    const b = browser(verified.url);
    const up = await b.client.signUp.email({ email, password: PASSWORD, name: "X" });
    expect(up.data!.token).toBeNull();
    expect((await b.client.getSession()).data).toBeNull();
    const inn = await browser(verified.url).client.signIn.email({ email, password: PASSWORD });
    expect(inn.error).toMatchObject({
      status: 403,
      code: "EMAIL_NOT_VERIFIED",
      message: "Email not verified",
    });

    const link = await lastLink(verified.server.database, email, "verify-email");
    const v = await b.call(link.replace(verified.url, ""));
    expect(v.status).toBe(302);
    expect(v.headers.get("location")).toBe("/");
    // autoSignInAfterVerification: following the link signs the user in.
    expect((await b.client.getSession()).data!.user).toMatchObject({ email, emailVerified: true });
    expect(
      (await browser(verified.url).client.signIn.email({ email, password: PASSWORD })).error,
    ).toBeNull();
  });

  it("/verify-email without callbackURL answers {status: true}; a bad token with callbackURL redirects with ?error=INVALID_TOKEN", async () => {
    const email = uniqueEmail();
    const b = browser(verified.url);
    await b.client.signUp.email({ email, password: PASSWORD, name: "X" });
    const token = new URL(
      await lastLink(verified.server.database, email, "verify-email"),
    ).searchParams.get("token")!;
    const bad = await b.call("/api/auth/verify-email?token=not-a-jwt&callbackURL=/welcome");
    expect(bad.status).toBe(302);
    expect(bad.headers.get("location")).toBe("/welcome?error=INVALID_TOKEN");
    const ok = await b.call(`/api/auth/verify-email?token=${token}`);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ status: true });
    const [row] = await verified.server.database.rows<{ email_verified: boolean }>(
      sql`select email_verified from "user" where email = ${email}`,
    );
    expect(row!.email_verified).toBe(true);
  });

  it("/send-verification-email goes only to the signed-in user's own unverified address", async () => {
    const email = uniqueEmail();
    const b = browser(sandbox.url);
    await b.client.signUp.email({ email, password: PASSWORD, name: "X" });
    const other = await b.call("/api/auth/send-verification-email", {
      body: { email: uniqueEmail("someone-else") },
    });
    expect(other.status).toBe(400);
    expect(other.body).toMatchObject({ code: "EMAIL_MISMATCH", message: "Email mismatch" });
    const own = await b.call("/api/auth/send-verification-email", { body: { email } });
    expect(own.status).toBe(200);
    expect(await mailsTo(sandbox.server.database, email, "verify-email")).toHaveLength(2);
    await b.call(
      (await lastLink(sandbox.server.database, email, "verify-email")).replace(sandbox.url, ""),
    );
    const again = await b.call("/api/auth/send-verification-email", { body: { email } });
    expect(again.body).toMatchObject({
      code: "EMAIL_ALREADY_VERIFIED",
      message: "Email is already verified",
    });
    expect(await mailsTo(sandbox.server.database, email, "verify-email")).toHaveLength(2);
  });
});
