// The CLI's device login (RFC 8628) end to end: request a code as `till-cli`, approve it through the
// /device page's own HTTP calls, poll to a token, use it on better-auth and /v1.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { api, createOrganization } from "../../../test/helpers/auth.ts";
import { browser, uniqueEmail } from "../../../test/helpers/browser.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

const PASSWORD = "correct horse battery";
const GRANT = "urn:ietf:params:oauth:grant-type:device_code";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t?.stop());

interface CodeResponse {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

async function requestCode(): Promise<CodeResponse> {
  const res = await fetch(`${t.url}/api/auth/device/code`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ client_id: "till-cli", scope: "openid" }).toString(),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as CodeResponse;
}

async function poll(deviceCode: string, form = false) {
  const fields = { grant_type: GRANT, device_code: deviceCode, client_id: "till-cli" };
  const res = await fetch(`${t.url}/api/auth/device/token`, {
    method: "POST",
    headers: { "content-type": form ? "application/x-www-form-urlencoded" : "application/json" },
    body: form ? new URLSearchParams(fields).toString() : JSON.stringify(fields),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string | number> };
}

/** Lets the next poll through without waiting out the 5 s interval. */
async function forgetLastPoll(deviceCode: string) {
  await t.server.database.rows(
    sql`update device_code set last_polled_at = now() - interval '10 seconds' where device_code = ${deviceCode}`,
  );
}

/** What a person does in the browser: open the page, sign in through its form, confirm, approve or deny. */
async function actOnPage(code: CodeResponse, email: string, action: "approve" | "deny") {
  const b = browser(t.url);
  const page = new URL(code.verification_uri_complete);
  const first = await b.call(`${page.pathname}${page.search}`);
  expect(first.status).toBe(200);
  expect(first.headers.get("content-type")).toContain("text/html");
  expect(first.text).toContain('id="sign-in-form"');
  expect(
    (await b.call("/api/auth/sign-in/email", { body: { email, password: PASSWORD } })).status,
  ).toBe(200);
  const second = await b.call(`${page.pathname}${page.search}`);
  expect(second.text).toContain(`value="${code.user_code}"`);
  expect(second.text).toContain(email);
  const claim = await b.call(`/api/auth/device?user_code=${code.user_code}`);
  expect(claim.body).toMatchObject({
    user_code: code.user_code,
    status: "pending",
    client_id: "till-cli",
  });
  const done = await b.call(`/api/auth/device/${action}`, { body: { userCode: code.user_code } });
  expect(done.status).toBe(200);
  return b;
}

describe("device authorization", () => {
  it("issues a 40-char device code and an 8-char user code for till-cli, valid 30 minutes, polled every 5 s, verified at /device", async () => {
    const code = await requestCode();
    expect(code.device_code).toMatch(/^[A-Za-z0-9]{40}$/);
    expect(code.user_code).toMatch(/^[A-Z0-9]{8}$/);
    expect(code.expires_in).toBe(1800);
    expect(code.interval).toBe(5);
    expect(code.verification_uri).toBe(`${t.url}/device`);
    expect(code.verification_uri_complete).toBe(`${t.url}/device?user_code=${code.user_code}`);
  });

  it("an unknown client id is refused", async () => {
    const res = await fetch(`${t.url}/api/auth/device/code`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_id: "someone-else" }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: "invalid_client" });
  });

  it("end to end: approve through the /device page, poll (form-encoded, as RFC 8628 says) to a token, use it on get-session and /v1/organizations/", async () => {
    const email = uniqueEmail();
    const owner = browser(t.url);
    const up = await owner.client.signUp.email({ email, password: PASSWORD, name: "Ada" });
    const org = await createOrganization(
      t.url,
      { id: up.data!.user.id, email, password: PASSWORD, token: up.data!.token! },
      "Device Co",
    );

    const code = await requestCode();
    const pending = await poll(code.device_code, true);
    expect(pending).toEqual({
      status: 400,
      body: { error: "authorization_pending", error_description: "Authorization pending" },
    });

    await actOnPage(code, email, "approve");
    await forgetLastPoll(code.device_code);
    const granted = await poll(code.device_code, true);
    expect(granted.status).toBe(200);
    expect(granted.body).toMatchObject({ token_type: "Bearer", access_token: expect.any(String) });
    const token = String(granted.body.access_token);

    const session = await api(t.url, "/api/auth/get-session", { token });
    expect(session.body.user.email).toBe(email);
    expect(session.body.session.clientId).toBe("till-cli");
    const orgs = await api(t.url, "/v1/organizations/", { token });
    expect(orgs.status).toBe(200);
    expect(orgs.body.items.map((o: { id: string }) => o.id)).toEqual([org.id]);

    // The code is consumed: polling again is an invalid grant.
    await forgetLastPoll(code.device_code);
    expect((await poll(code.device_code)).body.error).toBe("invalid_grant");
  });

  it("slow_down: polling again within the interval", async () => {
    const code = await requestCode();
    expect((await poll(code.device_code)).body.error).toBe("authorization_pending");
    const fast = await poll(code.device_code);
    expect(fast).toEqual({
      status: 400,
      body: { error: "slow_down", error_description: "Polling too frequently" },
    });
  });

  it("expired_token: a code past its expiry", async () => {
    const code = await requestCode();
    await t.server.database.rows(
      sql`update device_code set expires_at = now() - interval '1 second' where device_code = ${code.device_code}`,
    );
    expect(await poll(code.device_code)).toEqual({
      status: 400,
      body: { error: "expired_token", error_description: "Device code has expired" },
    });
  });

  it("access_denied: the user denied the device on the page", async () => {
    const email = uniqueEmail();
    await browser(t.url).client.signUp.email({ email, password: PASSWORD, name: "Ada" });
    const code = await requestCode();
    await actOnPage(code, email, "deny");
    await forgetLastPoll(code.device_code);
    expect(await poll(code.device_code)).toEqual({
      status: 400,
      body: { error: "access_denied", error_description: "Access denied" },
    });
  });

  it("approving needs a session, and a code claimed by another user cannot be approved by you", async () => {
    const code = await requestCode();
    const anon = await browser(t.url).call("/api/auth/device/approve", {
      body: { userCode: code.user_code },
    });
    expect(anon.status).toBe(401);
    const [a, b] = [uniqueEmail(), uniqueEmail()];
    const first = browser(t.url);
    await first.client.signUp.email({ email: a, password: PASSWORD, name: "A" });
    await first.call(`/api/auth/device?user_code=${code.user_code}`);
    const second = browser(t.url);
    await second.client.signUp.email({ email: b, password: PASSWORD, name: "B" });
    const stolen = await second.call("/api/auth/device/approve", {
      body: { userCode: code.user_code },
    });
    expect(stolen.status).toBe(403);
    expect(stolen.body.error).toBe("access_denied");
  });

  it("invalid time strings in config are refused at start with \"Invalid time string format. Use formats like '30m', '5s', '1h', etc.\"", async () => {
    await expect(startTestServer({ env: { AUTH_DEVICE_CODE_EXPIRES_IN: "soon" } })).rejects.toThrow(
      "Invalid time string format. Use formats like '30m', '5s', '1h', etc.",
    );
  });
});

describe("revoking other sessions and the CLI", () => {
  async function cliSession(email: string): Promise<string> {
    const code = await requestCode();
    await actOnPage(code, email, "approve");
    await forgetLastPoll(code.device_code);
    return String((await poll(code.device_code)).body.access_token);
  }

  it("/revoke-other-sessions keeps the CLI's device session unless revokeDeviceSessions is true", async () => {
    const email = uniqueEmail();
    const web = browser(t.url);
    await web.client.signUp.email({ email, password: PASSWORD, name: "Ada" });
    const cli = await cliSession(email);
    const other = browser(t.url);
    await other.client.signIn.email({ email, password: PASSWORD });

    expect((await web.call("/api/auth/revoke-other-sessions", { body: {} })).status).toBe(200);
    expect((await api(t.url, "/api/auth/get-session", { token: cli })).body?.user.email).toBe(
      email,
    );
    expect(
      (await other.client.getSession({ query: { disableCookieCache: true } })).data,
    ).toBeNull();

    expect(
      (await web.call("/api/auth/revoke-other-sessions", { body: { revokeDeviceSessions: true } }))
        .status,
    ).toBe(200);
    expect((await api(t.url, "/api/auth/get-session", { token: cli })).body).toBeNull();
  });

  it("change-password with revokeOtherSessions signs the CLI out too", async () => {
    const email = uniqueEmail();
    const web = browser(t.url);
    await web.client.signUp.email({ email, password: PASSWORD, name: "Ada" });
    const cli = await cliSession(email);
    await web.client.changePassword({
      currentPassword: PASSWORD,
      newPassword: "another password",
      revokeOtherSessions: true,
    });
    expect((await api(t.url, "/api/auth/get-session", { token: cli })).body).toBeNull();
  });
});
