// Sessions through better-auth's client and raw HTTP: get-session flags, listing and revoking,
// the cookie cache, and fresh-session checks.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { browser, uniqueEmail } from "../../../test/helpers/browser.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

const PASSWORD = "correct horse battery";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t?.stop());

async function signedIn(email = uniqueEmail()) {
  const b = browser(t.url);
  const res = await b.client.signUp.email({ email, password: PASSWORD, name: "Ada" });
  if (res.error) throw new Error(JSON.stringify(res.error));
  return { b, email, id: res.data!.user.id, token: res.data!.token! };
}

async function anotherSession(email: string) {
  const b = browser(t.url);
  const res = await b.client.signIn.email({ email, password: PASSWORD });
  return { b, token: res.data!.token };
}

const rows = <T>(q: ReturnType<typeof sql>) => t.server.database.rows<T>(q);

describe("get-session", () => {
  it("the cookie cache answers without the database until disableCookieCache asks for the stored session", async () => {
    const { b, id } = await signedIn();
    expect(b.jar.get("session_data")).toBeDefined();
    await rows(sql`delete from session where user_id = ${id}`);
    expect((await b.client.getSession()).data!.user.id).toBe(id);
    expect((await b.client.getSession({ query: { disableCookieCache: true } })).data).toBeNull();
  });

  it("a session due for refresh is extended, unless disableRefresh is set", async () => {
    const { b, id } = await signedIn();
    await rows(sql`update session set expires_at = now() + interval '1 day' where user_id = ${id}`);
    const expiry = async () =>
      (
        await rows<{ days: number }>(
          sql`select (extract(epoch from expires_at - now()) / 86400)::float8 as days from session where user_id = ${id}`,
        )
      )[0]!.days;
    await b.client.getSession({ query: { disableCookieCache: true, disableRefresh: true } });
    expect(await expiry()).toBeLessThan(1.01);
    await b.client.getSession({ query: { disableCookieCache: true } });
    expect(await expiry()).toBeGreaterThan(29);
  });

  it("a cookie cache too big for one cookie is split into chunks of at most 4093 bytes, and still reads back", async () => {
    const b = browser(t.url);
    const res = await b.call("/api/auth/sign-up/email", {
      body: { email: uniqueEmail(), password: PASSWORD, name: "N".repeat(6000) },
    });
    expect(res.status).toBe(200);
    const lines = res.headers.getSetCookie();
    const chunks = lines.filter((l) => /session_data\.\d+=/.test(l));
    expect(chunks.length).toBeGreaterThan(1);
    for (const line of lines) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(4093);
    const session = await b.call("/api/auth/get-session");
    expect(session.body.user.name).toHaveLength(6000);
  });
});

describe("listing and revoking sessions", () => {
  it("/list-sessions lists the user's own sessions only", async () => {
    const { b, email } = await signedIn();
    await anotherSession(email);
    await signedIn();
    const list = await b.client.listSessions();
    expect(list.data).toHaveLength(2);
  });

  it("/revoke-session ends one session of the caller; an unknown token or another user's token changes nothing", async () => {
    const { b, email, id } = await signedIn();
    const second = await anotherSession(email);
    const stranger = await signedIn();
    const count = async (userId: string) =>
      (
        await rows<{ n: number }>(
          sql`select count(*)::int as n from session where user_id = ${userId}`,
        )
      )[0]!.n;

    const unknown = await b.call("/api/auth/revoke-session", { body: { token: "no-such-token" } });
    expect(unknown.status).toBe(200);
    const foreign = await b.call("/api/auth/revoke-session", { body: { token: stranger.token } });
    expect(foreign.status).toBe(200);
    expect(await count(stranger.id)).toBe(1);

    expect((await b.client.revokeSession({ token: second.token })).error).toBeNull();
    expect(await count(id)).toBe(1);
    expect(
      (await second.b.client.getSession({ query: { disableCookieCache: true } })).data,
    ).toBeNull();
  });

  it("/revoke-session without a session is a 401", async () => {
    const res = await browser(t.url).call("/api/auth/revoke-session", { body: { token: "x" } });
    expect(res.status).toBe(401);
  });

  it("/revoke-other-sessions keeps the current session; /revoke-sessions ends all of them", async () => {
    const { b, email, id } = await signedIn();
    await anotherSession(email);
    await anotherSession(email);
    expect((await b.client.revokeOtherSessions()).error).toBeNull();
    const left = await rows<{ token: string }>(
      sql`select token from session where user_id = ${id}`,
    );
    expect(left).toHaveLength(1);
    expect((await b.client.getSession({ query: { disableCookieCache: true } })).data!.user.id).toBe(
      id,
    );

    await anotherSession(email);
    expect((await b.client.revokeSessions()).error).toBeNull();
    expect(await rows(sql`select 1 from session where user_id = ${id}`)).toHaveLength(0);
  });
});

describe("fresh sessions", () => {
  it('"Session is not fresh" (403) on /list-sessions once the session is older than a day', async () => {
    const { b, id } = await signedIn();
    await rows(
      sql`update session set created_at = now() - interval '25 hours' where user_id = ${id}`,
    );
    for (const k of [...b.jar.cookies.keys()])
      if (k.includes("session_data")) b.jar.cookies.delete(k);
    const res = await b.call("/api/auth/list-sessions");
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: "SESSION_NOT_FRESH", message: "Session is not fresh" });
  });

  it("a bearer token (set-auth-token) authenticates the same session as the cookie", async () => {
    const { token, id } = await signedIn();
    const res = await fetch(`${t.url}/api/auth/get-session`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(((await res.json()) as { user: { id: string } }).user.id).toBe(id);
  });
});
