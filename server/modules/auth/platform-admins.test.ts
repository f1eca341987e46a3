// TILL_ADMIN_EMAILS: the first platform admins. A listed email gets the admin role at sign-up where
// verification is not required, when its verification link is followed where it is, and at start
// for users who were there before; an unlisted one stays a user.
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { openDb, type Database } from "../../../db/client.ts";
import { loadConfig, type Env } from "../../config.ts";
import { start } from "../../main.ts";
import { api, signUp, type TestUser } from "../../../test/helpers/auth.ts";
import { browser, lastLink, uniqueEmail } from "../../../test/helpers/browser.ts";
import { openTestDatabase, usingPostgres, type TestDatabase } from "../../../test/helpers/db.ts";
import { freePort, startTestServer, type TestServer } from "../../../test/helpers/server.ts";

const PASSWORD = "correct horse battery";
const listUsers = (base: string, user: TestUser) =>
  api(base, "/api/auth/admin/list-users", { token: user.token });
const roleOf = async (database: Database, email: string) =>
  (await database.rows<{ role: string }>(sql`select role from "user" where email = ${email}`))[0]
    ?.role;

describe("sign-up without required verification (sandbox)", () => {
  const listed = uniqueEmail("boss");
  let t: TestServer;
  beforeAll(async () => {
    // Case and spaces in the variable do not matter.
    t = await startTestServer({
      env: { TILL_ADMIN_EMAILS: ` ${listed.toUpperCase()} , someone-else@example.com` },
    });
  });
  afterAll(() => t?.stop());

  it("a listed email signs up as admin and may call admin endpoints; an unlisted one may not", async () => {
    const boss = await signUp(t.url, { email: listed });
    expect((await api(t.url, "/api/auth/get-session", { token: boss.token })).body.user.role).toBe(
      "admin",
    );
    const list = await listUsers(t.url, boss);
    expect(list.status).toBe(200);
    expect(list.body.users.map((u: { email: string }) => u.email)).toContain(listed);

    const user = await signUp(t.url);
    expect((await api(t.url, "/api/auth/get-session", { token: user.token })).body.user.role).toBe(
      "user",
    );
    const denied = await listUsers(t.url, user);
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ code: "YOU_ARE_NOT_ALLOWED_TO_LIST_USERS" });
  });
});

describe("sign-up where verification is required (production)", () => {
  const listed = uniqueEmail("boss");
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ env: { TILL_MODE: "production", TILL_ADMIN_EMAILS: listed } });
  });
  afterAll(() => t?.stop());

  it("the listed user is a user until the address is verified, then an admin in the session the link signs in", async () => {
    const b = browser(t.url);
    expect(
      (await b.client.signUp.email({ email: listed, password: PASSWORD, name: "Boss" })).error,
    ).toBeNull();
    expect(await roleOf(t.server.database, listed)).toBe("user");

    const link = new URL(await lastLink(t.server.database, listed, "verify-email"));
    const verified = await b.call(`${link.pathname}${link.search}`);
    expect(verified.status).toBe(302);
    expect(await roleOf(t.server.database, listed)).toBe("admin");
    // The cookie set by the verification (with its cached copy of the user) already carries the role.
    const session = await b.call("/api/auth/get-session");
    expect(session.body.user).toMatchObject({ email: listed, role: "admin", emailVerified: true });
    expect((await b.call("/api/auth/admin/list-users")).status).toBe(200);
  });

  it("an unlisted user who verifies stays a user", async () => {
    const b = browser(t.url);
    const email = uniqueEmail("plain");
    await b.client.signUp.email({ email, password: PASSWORD, name: "Plain" });
    const link = new URL(await lastLink(t.server.database, email, "verify-email"));
    await b.call(`${link.pathname}${link.search}`);
    expect(await roleOf(t.server.database, email)).toBe("user");
    const denied = await b.call("/api/auth/admin/list-users");
    expect(denied.status).toBe(403);
  });
});

describe("users who existed before their email was listed", () => {
  // Two runs of the server on one database, as an operator would restart it after setting the variable.
  let testDb: TestDatabase | null = null;
  let dataDir: string | null = null;
  afterAll(() => testDb?.dispose());

  async function run(env: Env) {
    const port = await freePort();
    const config = loadConfig({
      command: "test",
      env: {
        PORT: String(port),
        BASE_URL: `http://localhost:${port}`,
        LOG_LEVEL: "silent",
        ...(testDb ? { DATABASE_URL: testDb.url! } : {}),
        ...env,
      },
    });
    const database = await openDb(testDb ? config.database : { kind: "pglite", dataDir: dataDir! });
    const server = await start(config, { database, worker: false });
    return { url: config.baseUrl, server };
  }

  it("are promoted when the server starts: verified ones where verification is required", {
    timeout: 60_000,
  }, async () => {
    if (usingPostgres()) testDb = await openTestDatabase();
    else dataDir = path.join(mkdtempSync(path.join(os.tmpdir(), "till-admins-")), "db");
    if (testDb) await testDb.database.close();

    const verifiedEmail = uniqueEmail("early");
    const unverifiedEmail = uniqueEmail("pending");
    const first = await run({});
    const early = await signUp(first.url, { email: verifiedEmail });
    const link = await lastLink(first.server.database, verifiedEmail, "verify-email");
    expect(
      (await fetch(link.replace(/callbackURL=[^&]*/, ""), { redirect: "manual" })).status,
    ).toBe(200);
    await signUp(first.url, { email: unverifiedEmail });
    expect(await roleOf(first.server.database, verifiedEmail)).toBe("user");
    await first.server.stop();

    const second = await run({
      TILL_MODE: "production",
      TILL_ADMIN_EMAILS: `${verifiedEmail},${unverifiedEmail}`,
    });
    try {
      expect(await roleOf(second.server.database, verifiedEmail)).toBe("admin");
      expect(await roleOf(second.server.database, unverifiedEmail)).toBe("user");
      expect((await listUsers(second.url, early)).status).toBe(200);
    } finally {
      await second.server.stop();
    }
  });
});
