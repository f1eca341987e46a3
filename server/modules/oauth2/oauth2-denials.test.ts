// What an OAuth 2.0 app does not get, and when its access ends: a denied consent goes back to the
// app, an unregistered redirect URI or a scope it may not ask for is refused, a consent for a
// foreign organization makes no code; a token acting for a user cannot manage the organization's
// access tokens (Polar keeps them to the web session), read the sandbox mail outbox or open the
// live event and request log streams; a member's token stops when they leave, and
// every token of an app stops when the app is deleted.
import { describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import {
  authorizeParams,
  client,
  consent,
  cookie,
  exchange,
  pkce,
  seller,
  signInCookie,
  t,
  withOAuthApp,
} from "../../../test/helpers/oauth2-apps.ts";
import { join, orgCall } from "../../../test/helpers/organizations.ts";

withOAuthApp();

describe("authorization code with PKCE", () => {
  it("sends a denial back to the app and never redirects to an unregistered URI", async () => {
    const { challenge } = pkce();
    const denied = await fetch(`${t.url}/v1/oauth2/consent`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin: t.url },
      body: new URLSearchParams({ ...authorizeParams(challenge), action: "deny" }),
      redirect: "manual",
    });
    expect(denied.status).toBe(303);
    const back = new URL(denied.headers.get("location")!);
    expect(back.searchParams.get("error")).toBe("access_denied");
    expect(back.searchParams.get("code")).toBeNull();

    const evil = new URLSearchParams(
      authorizeParams(challenge, { redirect_uri: "https://evil.example/cb" }),
    );
    const page = await fetch(`${t.url}/oauth2/authorize?${evil}`, {
      headers: { cookie },
      redirect: "manual",
    });
    expect(page.status).toBe(400);
    const json = await api(t.url, `/v1/oauth2/authorize?${evil}`, { headers: { cookie } });
    expect(json.status).toBe(400);
    expect(json.body.error).toBe("invalid_request");

    const badScope = new URLSearchParams(authorizeParams(challenge, { scope: "customers:write" }));
    const redirected = await fetch(`${t.url}/oauth2/authorize?${badScope}`, {
      headers: { cookie },
      redirect: "manual",
    });
    expect(redirected.status).toBe(302);
    expect(new URL(redirected.headers.get("location")!).searchParams.get("error")).toBe(
      "invalid_scope",
    );
    // A consent naming an organization the user is not in makes no code.
    const other = await createSeller(t.url, ["products:read"]);
    const foreign = await fetch(`${t.url}/v1/oauth2/consent`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin: t.url },
      body: new URLSearchParams({
        ...authorizeParams(challenge),
        action: "allow",
        organization_id: other.organization.id,
      }),
      redirect: "manual",
    });
    expect(foreign.status).toBe(422);
  });

  it("stops a member's token once they leave the organization", async () => {
    const member = await join(
      t.url,
      t.server.database,
      seller.user,
      seller.organization.id,
      "member",
    );
    const memberCookie = await signInCookie(member.email, member.password);
    const { verifier, challenge } = pkce();
    const code = await consent(challenge, seller.organization.id, memberCookie);
    const ok = await exchange(code, verifier);
    const token = ok.body.access_token;
    expect((await api(t.url, "/v1/products/", { token })).status).toBe(200);
    const left = await orgCall(t.url, member, "leave", { organizationId: seller.organization.id });
    expect(left.status).toBe(200);
    expect((await api(t.url, "/v1/products/", { token })).status).toBe(401);
  });

  it("gives a user's token no way to organization access tokens, whatever its scopes", async () => {
    const { verifier, challenge } = pkce();
    const code = await consent(challenge, seller.organization.id, cookie, { sub_type: "user" });
    const ok = await exchange(code, verifier);
    const token = ok.body.access_token as string;
    expect((await api(t.url, "/v1/products/", { token })).status).toBe(200);
    const tokens = () =>
      api(t.url, `/v1/organization-access-tokens/?organization_id=${seller.organization.id}`, {
        token: seller.user.token,
      });
    const before = (await tokens()).body;

    // An app granted products:read must not mint itself a token with every scope.
    const minted = await api(t.url, "/v1/organization-access-tokens/", {
      token,
      body: {
        organization_id: seller.organization.id,
        comment: "escalate",
        scopes: ["customers:write", "refunds:write"],
      },
    });
    expect(minted.status, JSON.stringify(minted.body)).toBe(403);
    expect(minted.body.error).toBe("NotPermitted");
    const listed = await api(t.url, "/v1/organization-access-tokens/", { token });
    expect(listed.status).toBe(403);
    const id = before.items[0].id as string;
    const removed = await api(t.url, `/v1/organization-access-tokens/${id}`, {
      method: "DELETE",
      token,
    });
    expect(removed.status).toBe(403);
    expect((await tokens()).body).toEqual(before);
  });

  it("gives a user's token neither the sandbox mail outbox nor the live event and request streams", async () => {
    const { verifier, challenge } = pkce();
    const code = await consent(challenge, seller.organization.id, cookie, { sub_type: "user" });
    const token = (await exchange(code, verifier)).body.access_token as string;
    // The outbox holds the user's own reset and verification links: an app must not read them.
    const mails = await api(t.url, "/v1/sandbox/emails", { token });
    expect(mails.status, JSON.stringify(mails.body)).toBe(403);
    expect(mails.body.error).toBe("NotPermitted");
    // The stream carries every event of the organization, whatever the app's scopes.
    for (const path of ["listen", "logs"]) {
      for (const bearer of [token, seller.token]) {
        const stream = await fetch(`${t.url}/v1/cli/${path}/${seller.organization.id}`, {
          headers: { authorization: `Bearer ${bearer}` },
        });
        await stream.body?.cancel();
        expect(stream.status, path).toBe(403);
      }
    }
    expect((await api(t.url, "/v1/sandbox/emails", { token: seller.user.token })).status).toBe(200);
  });

  it("stops every token of an app when the app is deleted", async () => {
    const { verifier, challenge } = pkce();
    const code = await consent(challenge);
    const ok = await exchange(code, verifier);
    expect((await api(t.url, "/v1/products/", { token: ok.body.access_token })).status).toBe(200);
    const del = await api(t.url, `/v1/oauth2/register/${client.client_id}`, {
      method: "DELETE",
      token: seller.user.token,
    });
    expect(del.status).toBe(204);
    expect((await api(t.url, "/v1/products/", { token: ok.body.access_token })).status).toBe(401);
  });
});
