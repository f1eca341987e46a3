// Polar's own client against till's /v1/oauth2: an app registered, its code exchanged, its token
// introspected, used for userinfo and products, and revoked, all through @polar-sh/sdk.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSeller } from "../../../test/helpers/auth.ts";
import { polarClient } from "../../../test/helpers/polar.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

let t: TestServer;
let seller: Awaited<ReturnType<typeof createSeller>>;
const REDIRECT = "https://app.example.com/callback";

beforeAll(async () => {
  t = await startTestServer({ worker: false });
  seller = await createSeller(t.url, ["products:read"]);
}, 60_000);
afterAll(() => t.stop());

describe("OAuth 2.0 through Polar's SDK", () => {
  it("registers an app, exchanges a code and uses, introspects and revokes the token", async () => {
    const asUser = polarClient(t, seller.user.token);
    const app = await asUser.oauth2.clients.create({
      clientName: "SDK app",
      redirectUris: [REDIRECT],
      scope: "openid products:read",
      defaultSubType: "organization",
    });
    expect(app.client_id).toMatch(/^till_ci_/);
    expect((await asUser.oauth2.clients.get({ clientId: app.client_id })).client_name).toBe(
      "SDK app",
    );

    // Polar's token request has no code_verifier: a confidential client may skip PKCE.
    const consent = await fetch(`${t.url}/v1/oauth2/consent`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${seller.user.token}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({
        response_type: "code",
        client_id: app.client_id,
        redirect_uri: REDIRECT,
        scope: "openid products:read",
        action: "allow",
        organization_id: seller.organization.id,
      }),
      redirect: "manual",
    });
    const code = new URL(consent.headers.get("location")!).searchParams.get("code")!;

    const asApp = polarClient(t, "unused");
    const tokens = await asApp.oauth2.token({
      grantType: "authorization_code",
      clientId: app.client_id,
      clientSecret: app.client_secret,
      code,
      redirectUri: REDIRECT,
    });
    expect(tokens.tokenType).toBe("Bearer");
    const withToken = polarClient(t, tokens.accessToken);
    expect((await withToken.products.list({})).result.items).toEqual([]);
    expect(await withToken.oauth2.userinfo()).toMatchObject({ sub: seller.organization.id });

    const info = await asApp.oauth2.introspect({
      token: tokens.accessToken,
      clientId: app.client_id,
      clientSecret: app.client_secret,
    });
    expect(info).toMatchObject({
      active: true,
      subType: "organization",
      sub: seller.organization.id,
    });

    await asApp.oauth2.revoke({
      token: tokens.accessToken,
      clientId: app.client_id,
      clientSecret: app.client_secret,
    });
    await expect(withToken.products.list({})).rejects.toMatchObject({ statusCode: 401 });

    // Revoking the access token revoked its pair, refresh token included.
    await expect(
      asApp.oauth2.token({
        grantType: "refresh_token",
        clientId: app.client_id,
        clientSecret: app.client_secret,
        refreshToken: tokens.refreshToken!,
      }),
    ).rejects.toMatchObject({ statusCode: 400 });
  });
});
