// Session tokens at rest: the session table holds only hashes, a stored value signs nobody in (as
// bearer or cookie), session lists carry handles rather than other sessions' tokens, a handle
// revokes only its owner's session (or any, for an admin), and the migration hashes the rows an
// older till stored in clear so their users stay signed in.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, signUp } from "../../../test/helpers/auth.ts";
import { browser, uniqueEmail } from "../../../test/helpers/browser.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { hashSessionToken } from "./hashed-sessions.ts";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ worker: false });
});
afterAll(() => t?.stop());

const rows = <T>(q: ReturnType<typeof sql>) => t.server.database.rows<T>(q);
const stored = async (userId: string) =>
  (await rows<{ token: string }>(sql`select token from session where user_id = ${userId}`)).map(
    (r) => r.token,
  );
const whoAmI = (token: string) => api(t.url, "/api/auth/get-session", { token });

describe("session tokens at rest", () => {
  it("are stored as hashes that sign nobody in, as bearer or as cookie", async () => {
    const user = await signUp(t.url);
    // The bearer token is the signed cookie value, "<session token>.<signature>".
    const token = user.token.split(".")[0]!;
    expect(await stored(user.id)).toEqual([hashSessionToken(token)]);
    expect(JSON.stringify(await rows(sql`select * from session`))).not.toContain(token);
    expect((await whoAmI(user.token)).body.user.id).toBe(user.id);
    const leaked = (await stored(user.id))[0]!;
    expect((await whoAmI(leaked)).body).toBeNull();
    const cookie = await api(t.url, "/api/auth/get-session", {
      headers: { cookie: `better-auth.session_token=${leaked}` },
    });
    expect(cookie.body).toBeNull();
    expect((await api(t.url, "/v1/organizations/", { token: leaked })).status).toBe(401);
  });

  it("lists carry handles, never another session's token; a handle revokes only its owner's", async () => {
    const email = uniqueEmail();
    const first = browser(t.url);
    const up = await first.client.signUp.email({ email, password: "correct horse", name: "A" });
    const second = browser(t.url);
    const other = (await second.client.signIn.email({ email, password: "correct horse" })).data!;
    const listed = await first.call("/api/auth/list-sessions");
    const text = JSON.stringify(listed.body);
    expect(text).not.toContain(other.token);
    expect(text).not.toContain(up.data!.token!);
    const handles = (listed.body as { token: string }[]).map((s) => s.token);
    expect(handles.sort()).toEqual((await stored(up.data!.user.id)).sort());

    // A stranger cannot use the handle; the owner can.
    const stranger = await signUp(t.url);
    const otherHandle = hashSessionToken(other.token);
    await api(t.url, "/api/auth/revoke-session", {
      token: stranger.token,
      body: { token: otherHandle },
    });
    expect((await second.client.getSession({ query: { disableCookieCache: true } })).data).not.toBe(
      null,
    );
    const revoked = await first.call("/api/auth/revoke-session", { body: { token: otherHandle } });
    expect(revoked.status).toBe(200);
    expect((await second.client.getSession({ query: { disableCookieCache: true } })).data).toBe(
      null,
    );
    expect((await first.client.getSession({ query: { disableCookieCache: true } })).data).not.toBe(
      null,
    );
  });

  it("the migration hashes tokens stored in clear, and their sessions go on working", async () => {
    const user = await signUp(t.url);
    const legacy = `legacy${randomUUID().replaceAll("-", "")}`;
    await rows(sql`insert into session (id, token, user_id, expires_at, created_at, updated_at)
      values (${randomUUID()}, ${legacy}, ${user.id}, now() + interval '1 day', now(), now())`);
    expect((await whoAmI(legacy)).body).toBeNull();
    const file = new URL("../../../db/migrations/0018_hash_session_tokens.sql", import.meta.url);
    for (const statement of readFileSync(file, "utf8").split("--> statement-breakpoint"))
      await rows(sql.raw(statement));
    expect(await stored(user.id)).toContain(hashSessionToken(legacy));
    expect((await whoAmI(legacy)).body.user.id).toBe(user.id);
  });
});
