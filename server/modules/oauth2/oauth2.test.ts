// OAuth 2.0 apps end to end over HTTP: register a client, consent with a session cookie, exchange
// the code with PKCE, call /v1 with the token, refresh, introspect, revoke; a public client and a
// user grant. Refusals and the ends of access are in oauth2-denials.test.ts.
import { describe, expect, it } from "vitest";
import { api, createOrganization, createSeller } from "../../../test/helpers/auth.ts";
import {
  authorizeParams,
  client,
  consent,
  cookie,
  exchange,
  pkce,
  post,
  REDIRECT,
  secretOf,
  seller,
  t,
  withOAuthApp,
} from "../../../test/helpers/oauth2-apps.ts";

withOAuthApp();

describe("client registration", () => {
  it("publishes the authorization server's metadata", async () => {
    const meta = await api(t.url, "/.well-known/oauth-authorization-server");
    expect(meta.status).toBe(200);
    expect(meta.body).toMatchObject({
      issuer: t.url,
      authorization_endpoint: `${t.url}/oauth2/authorize`,
      token_endpoint: `${t.url}/v1/oauth2/token`,
      code_challenge_methods_supported: ["S256"],
    });
  });

  it("registers, reads, updates and deletes a client for its owner only", async () => {
    expect(client).toMatchObject({
      client_name: "Acme Analytics",
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: "client_secret_post",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      default_sub_type: "organization",
      client_secret_expires_at: 0,
    });
    expect(client.client_id).toMatch(/^till_ci_/);
    expect(client.client_secret).toMatch(/^till_cs_/);
    const read = await api(t.url, `/v1/oauth2/register/${client.client_id}`, {
      token: seller.user.token,
    });
    expect(read.body).toEqual(client);

    const other = await createSeller(t.url, ["products:read"]);
    const path = `/v1/oauth2/register/${client.client_id}`;
    expect((await api(t.url, path, { token: other.user.token })).status).toBe(404);
    expect((await api(t.url, path, { method: "DELETE", token: other.user.token })).status).toBe(
      404,
    );
    // An organization token is not a person: it may not manage apps.
    expect((await api(t.url, path, { token: seller.token })).status).toBe(403);

    const temp = await api(t.url, "/v1/oauth2/register", {
      token: other.user.token,
      body: { client_name: "Temp", redirect_uris: ["http://localhost:9999/cb"] },
    });
    const put = await api(t.url, `/v1/oauth2/register/${temp.body.client_id}`, {
      method: "PUT",
      token: other.user.token,
      body: {
        client_id: temp.body.client_id,
        client_name: "Renamed",
        redirect_uris: ["https://x.example/cb"],
      },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      client_name: "Renamed",
      client_secret: temp.body.client_secret,
    });
    const del = await api(t.url, `/v1/oauth2/register/${temp.body.client_id}`, {
      method: "DELETE",
      token: other.user.token,
    });
    expect(del.status).toBe(204);
    const bad = await api(t.url, "/v1/oauth2/register", {
      token: other.user.token,
      body: { client_name: "Bad", redirect_uris: ["http://evil.example/cb"], scope: "nope" },
    });
    expect(bad.status).toBe(422);
  });

  it("refuses a redirect URI that is not a URL at all with a 422 at the field", async () => {
    const res = await api(t.url, "/v1/oauth2/register", {
      token: seller.user.token,
      body: { client_name: "Bad", redirect_uris: ["https://ok.example/cb", "not a url"] },
    });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      expect.objectContaining({ loc: ["body", "redirect_uris", 1], type: "url_parsing" }),
    ]);
  });
});

describe("authorization code with PKCE", () => {
  it("shows the consent page and Polar's authorize answer to the signed-in user", async () => {
    const { challenge } = pkce();
    const qs = new URLSearchParams(authorizeParams(challenge));
    const page = await fetch(`${t.url}/oauth2/authorize?${qs}`, { headers: { cookie } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Acme Analytics");
    expect(html).toContain(seller.organization.id);
    const signedOut = await (await fetch(`${t.url}/oauth2/authorize?${qs}`)).text();
    expect(signedOut).toContain("sign-in-form");

    const json = await api(t.url, `/v1/oauth2/authorize?${qs}`, { headers: { cookie } });
    expect(json.status).toBe(200);
    expect(json.body).toMatchObject({
      client: { client_id: client.client_id, client_name: "Acme Analytics" },
      sub_type: "organization",
      sub: null,
      scopes: ["openid", "products:read"],
      organizations: [{ id: seller.organization.id, slug: seller.organization.slug }],
      requires_single_organization: true,
    });
  });

  it("issues a token that reads products of the chosen organization with exactly its scopes", async () => {
    const second = await createOrganization(t.url, seller.user, "Second");
    await api(t.url, "/v1/products/", {
      token: seller.user.token,
      body: { name: "Other org's", organization_id: second.id, prices: [{ amount_type: "free" }] },
    });
    const { verifier, challenge } = pkce();
    const code = await consent(challenge);
    expect(code).toMatch(/^till_ac_/);

    const redeem = (extra: Record<string, string>) => exchange(code, verifier, extra);
    // Refusals first: each leaves the code usable.
    const wrongVerifier = await redeem({ code_verifier: pkce().verifier });
    expect(wrongVerifier.status).toBe(400);
    expect(wrongVerifier.body).toEqual({
      error: "invalid_grant",
      error_description: expect.any(String),
    });
    const wrongRedirect = await redeem({ redirect_uri: "https://app.example.com/other" });
    expect(wrongRedirect.body.error).toBe("invalid_grant");
    const wrongSecret = await redeem({ client_secret: "till_cs_wrong" });
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.body.error).toBe("invalid_client");

    const ok = await redeem({});
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      token_type: "Bearer",
      expires_in: 864000,
      scope: "openid products:read",
      id_token: null,
    });
    expect(ok.body.access_token).toMatch(/^till_at_o_/);
    expect(ok.body.refresh_token).toMatch(/^till_rt_o_/);
    const reused = await redeem({});
    expect(reused.body.error).toBe("invalid_grant");

    const access = ok.body.access_token;
    const products = await api(t.url, "/v1/products/", { token: access });
    expect(products.status).toBe(200);
    expect(products.body.items.map((p: { name: string }) => p.name)).toEqual(["Mine"]);
    const write = await api(t.url, "/v1/products/", {
      token: access,
      body: { name: "Nope", prices: [{ amount_type: "free" }] },
    });
    expect(write.status).toBe(403);
    expect(write.body).toEqual({ error: "NotPermitted", detail: expect.any(String) });
    expect((await api(t.url, "/v1/customers/", { token: access })).status).toBe(403);
    // An app's token cannot register apps or consent on the user's behalf.
    expect(
      (
        await api(t.url, "/v1/oauth2/register", {
          token: access,
          body: { client_name: "X", redirect_uris: [REDIRECT] },
        })
      ).status,
    ).toBe(403);

    const info = await api(t.url, "/v1/oauth2/userinfo", { token: access });
    expect(info.body).toEqual({ sub: seller.organization.id, name: "Acme" });

    const introspected = await post(
      "/v1/oauth2/introspect",
      { token: access },
      {
        authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString("base64")}`,
      },
    );
    expect(introspected.body).toMatchObject({
      active: true,
      client_id: client.client_id,
      token_type: "access_token",
      scope: "openid products:read",
      sub_type: "organization",
      sub: seller.organization.id,
      organizations: [seller.organization.id],
      aud: client.client_id,
      iss: t.url,
    });

    // Refresh rotates: the old pair stops working, the new one works.
    const refreshed = await post("/v1/oauth2/token", {
      grant_type: "refresh_token",
      refresh_token: ok.body.refresh_token,
      ...secretOf(),
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.scope).toBe("openid products:read");
    expect((await api(t.url, "/v1/products/", { token: access })).status).toBe(401);
    const again = await post("/v1/oauth2/token", {
      grant_type: "refresh_token",
      refresh_token: ok.body.refresh_token,
      ...secretOf(),
    });
    expect(again.body.error).toBe("invalid_grant");
    const fresh = refreshed.body.access_token;
    expect((await api(t.url, "/v1/products/", { token: fresh })).status).toBe(200);

    const revoked = await post("/v1/oauth2/revoke", { token: fresh, ...secretOf() });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({});
    const after = await api(t.url, "/v1/products/", { token: fresh });
    expect(after.status).toBe(401);
    expect(after.body.error).toBe("Unauthorized");
    const inactive = await post("/v1/oauth2/introspect", { token: fresh, ...secretOf() });
    expect(inactive.body).toEqual({ active: false });
    const dead = await post("/v1/oauth2/token", {
      grant_type: "refresh_token",
      refresh_token: refreshed.body.refresh_token,
      ...secretOf(),
    });
    expect(dead.body.error).toBe("invalid_grant");
  });

  it("serves a public client with PKCE, and a user grant across the user's organizations", async () => {
    const reg = await api(t.url, "/v1/oauth2/register", {
      token: seller.user.token,
      body: {
        client_name: "CLI",
        redirect_uris: ["http://127.0.0.1:8765/callback"],
        token_endpoint_auth_method: "none",
        scope: "openid email products:read",
      },
    });
    expect(reg.body.default_sub_type).toBe("user");
    const app = reg.body as { client_id: string };
    const base = {
      response_type: "code",
      client_id: app.client_id,
      redirect_uri: "http://127.0.0.1:8765/callback",
      scope: "openid email products:read",
    };
    // Without a code challenge a public client is sent back with an error, and gets no code.
    const noPkce = await fetch(`${t.url}/oauth2/authorize?${new URLSearchParams(base)}`, {
      headers: { cookie },
      redirect: "manual",
    });
    expect(noPkce.status).toBe(302);
    expect(new URL(noPkce.headers.get("location")!).searchParams.get("error")).toBe(
      "invalid_request",
    );
    const { verifier, challenge } = pkce();
    const res = await fetch(`${t.url}/v1/oauth2/consent`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin: t.url },
      body: new URLSearchParams({
        ...base,
        code_challenge: challenge,
        code_challenge_method: "S256",
        action: "allow",
      }),
      redirect: "manual",
    });
    const code = new URL(res.headers.get("location")!).searchParams.get("code")!;
    const missingVerifier = await post("/v1/oauth2/token", {
      grant_type: "authorization_code",
      code,
      redirect_uri: base.redirect_uri,
      client_id: app.client_id,
    });
    expect(missingVerifier.body.error).toBe("invalid_grant");
    const ok = await post("/v1/oauth2/token", {
      grant_type: "authorization_code",
      code,
      redirect_uri: base.redirect_uri,
      code_verifier: verifier,
      client_id: app.client_id,
    });
    expect(ok.status).toBe(200);
    expect(ok.body.access_token).toMatch(/^till_at_u_/);
    const token = ok.body.access_token;
    const info = await api(t.url, "/v1/oauth2/userinfo", { token });
    expect(info.body).toEqual({
      sub: seller.user.id,
      name: null,
      email: seller.user.email,
      email_verified: false,
    });
    // A user grant sees every organization of the user, still only with its scopes.
    const all = await api(t.url, "/v1/products/", { token });
    expect(all.body.items.length).toBeGreaterThanOrEqual(2);
    const write = await api(t.url, "/v1/products/", {
      token,
      body: {
        name: "No",
        organization_id: seller.organization.id,
        prices: [{ amount_type: "free" }],
      },
    });
    expect(write.status).toBe(403);
    const unknownGrant = await post("/v1/oauth2/token", {
      grant_type: "client_credentials",
      client_id: app.client_id,
    });
    expect(unknownGrant.body.error).toBe("unsupported_grant_type");
  });
});
