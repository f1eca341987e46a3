// A local OAuth 2.0 provider for social sign-in tests: /authorize, /token (authorization_code with
// PKCE S256, and refresh_token) and /userinfo, speaking the protocol GitHub, Google and Discord use.
import { createHash, randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { browser } from "./browser.ts";

export type Profile = Record<string, unknown>;

interface Grant {
  profile: Profile;
  redirectUri: string;
  challenge: string | null;
  clientId: string;
}

export interface FakeProvider {
  url: string;
  /** The account the next /authorize signs in as. */
  nextProfile: Profile;
  /** Requests the provider received, for assertions. */
  log: { path: string; params: Record<string, string> }[];
  stop(): Promise<void>;
}

export interface ProviderOptions {
  clientId: string;
  clientSecret: string;
  /** Where the three endpoints live (Discord's are /api/oauth2/authorize, /api/oauth2/token, /api/users/@me). */
  paths?: { authorize: string; token: string; userinfo: string };
  /** The `scope` a token response reports. */
  scope?: string;
}

export async function startOAuthProvider(options: ProviderOptions): Promise<FakeProvider> {
  const paths = options.paths ?? {
    authorize: "/authorize",
    token: "/token",
    userinfo: "/userinfo",
  };
  const codes = new Map<string, Grant>();
  const accessTokens = new Map<string, Profile>();
  const refreshTokens = new Map<string, Profile>();
  const issue = (profile: Profile) => {
    const access = `at_${randomBytes(12).toString("hex")}`;
    const refresh = `rt_${randomBytes(12).toString("hex")}`;
    accessTokens.set(access, profile);
    refreshTokens.set(refresh, profile);
    return {
      access_token: access,
      refresh_token: refresh,
      token_type: "Bearer",
      expires_in: 3600,
      scope: options.scope ?? "read:user user:email",
    };
  };
  const provider: FakeProvider = { url: "", nextProfile: {}, log: [], stop: async () => {} };

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://provider.local");
    // Clients differ in escaping (`/users/@me` arrives as `/users/%40me` from some); servers accept both.
    const pathname = decodeURIComponent(url.pathname);
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.method === "GET" && pathname === paths.authorize) {
      const params = Object.fromEntries(url.searchParams);
      provider.log.push({ path: pathname, params });
      if (params.client_id !== options.clientId) return json(400, { error: "invalid_client" });
      const code = randomBytes(10).toString("hex");
      codes.set(code, {
        profile: provider.nextProfile,
        redirectUri: params.redirect_uri!,
        challenge: params.code_challenge ?? null,
        clientId: params.client_id,
      });
      const back = new URL(params.redirect_uri!);
      back.searchParams.set("code", code);
      back.searchParams.set("state", params.state ?? "");
      res.writeHead(302, { location: back.toString() });
      return res.end();
    }
    if (req.method === "POST" && pathname === paths.token) {
      let raw = "";
      for await (const chunk of req) raw += String(chunk);
      const params = Object.fromEntries(new URLSearchParams(raw));
      provider.log.push({ path: pathname, params });
      const basic = req.headers.authorization?.startsWith("Basic ")
        ? Buffer.from(req.headers.authorization.slice(6), "base64").toString()
        : null;
      const [id, secret] = basic
        ? basic.split(":").map(decodeURIComponent)
        : [params.client_id, params.client_secret];
      if (id !== options.clientId || secret !== options.clientSecret)
        return json(401, { error: "invalid_client" });
      if (params.grant_type === "authorization_code") {
        const grant = codes.get(params.code ?? "");
        codes.delete(params.code ?? "");
        if (!grant || grant.redirectUri !== params.redirect_uri)
          return json(400, { error: "invalid_grant" });
        if (grant.challenge) {
          const expected = createHash("sha256")
            .update(params.code_verifier ?? "")
            .digest("base64url");
          if (expected !== grant.challenge)
            return json(400, {
              error: "invalid_grant",
              error_description: "PKCE verification failed",
            });
        }
        return json(200, issue(grant.profile));
      }
      if (params.grant_type === "refresh_token") {
        const profile = refreshTokens.get(params.refresh_token ?? "");
        if (!profile) return json(400, { error: "invalid_grant" });
        refreshTokens.delete(params.refresh_token!);
        return json(200, issue(profile));
      }
      return json(400, { error: "unsupported_grant_type" });
    }
    if (req.method === "GET" && pathname === paths.userinfo) {
      const token = req.headers.authorization?.replace(/^Bearer /, "") ?? "";
      provider.log.push({
        path: pathname,
        params: { authorization: req.headers.authorization ?? "" },
      });
      const profile = accessTokens.get(token);
      if (!profile) return json(401, { message: "Bad credentials" });
      return json(200, profile);
    }
    json(404, { error: "not_found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  provider.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  provider.stop = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return provider;
}

/** AUTH_<NAME>_* variables pointing a provider at the fake. */
export function providerEnv(
  name: string,
  provider: FakeProvider,
  creds: { clientId: string; clientSecret: string },
): Record<string, string> {
  const p = `AUTH_${name.toUpperCase()}`;
  return {
    [`${p}_CLIENT_ID`]: creds.clientId,
    [`${p}_CLIENT_SECRET`]: creds.clientSecret,
    [`${p}_AUTHORIZATION_URL`]: `${provider.url}/authorize`,
    [`${p}_TOKEN_URL`]: `${provider.url}/token`,
    [`${p}_USERINFO_URL`]: `${provider.url}/userinfo`,
  };
}

/** Runs the browser's side of the code flow: start → provider → callback. Returns the final redirect. */
export async function oauthFlow(
  b: ReturnType<typeof browser>,
  path: string,
  body: Record<string, unknown>,
) {
  const start = await b.call(path, { body: { callbackURL: "/dashboard", ...body } });
  if (start.status !== 200) return { start, callback: null };
  const authorize = await fetch(start.body.url, { redirect: "manual" });
  const back = new URL(authorize.headers.get("location")!);
  const callback = await b.call(`${back.pathname}${back.search}`);
  return { start, callback };
}
