// The OAuth 2.0 app of the oauth2 suites: a server, a seller signed in with a session cookie who
// registered a confidential client (Acme Analytics) and owns one product, and the steps of the
// code flow: PKCE pairs, authorize parameters, consent, and form posts to the token endpoints.
// Each suite file gets its own.
import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect } from "vitest";
import { api, createSeller } from "./auth.ts";
import { startTestServer, type TestServer } from "./server.ts";

type Seller = Awaited<ReturnType<typeof createSeller>>;
export let t: TestServer;
export let seller: Seller;
export let cookie: string;
export let client: { client_id: string; client_secret: string };
export const REDIRECT = "https://app.example.com/callback";

export async function signInCookie(email: string, password: string): Promise<string> {
  const res = await fetch(`${t.url}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: t.url },
    body: JSON.stringify({ email, password }),
  });
  expect(res.status).toBe(200);
  return res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
}

export function pkce() {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

export function authorizeParams(challenge: string, extra: Record<string, string> = {}) {
  return {
    response_type: "code",
    client_id: client.client_id,
    redirect_uri: REDIRECT,
    scope: "openid products:read",
    state: "xyz",
    code_challenge: challenge,
    code_challenge_method: "S256",
    sub_type: "organization",
    ...extra,
  };
}

export async function post(
  path: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${t.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(form),
    redirect: "manual",
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

/** Consents (as the seller on their organization by default); the code from the redirect. */
export async function consent(
  challenge: string,
  organizationId = seller.organization.id,
  as = cookie,
  extra: Record<string, string> = {},
) {
  const res = await fetch(`${t.url}/v1/oauth2/consent`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      cookie: as,
      origin: t.url,
    },
    body: new URLSearchParams({
      ...authorizeParams(challenge, extra),
      action: "allow",
      organization_id: organizationId,
    }),
    redirect: "manual",
  });
  expect(res.status).toBe(303);
  const location = new URL(res.headers.get("location")!);
  expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
  expect(location.searchParams.get("state")).toBe("xyz");
  return location.searchParams.get("code")!;
}

export const secretOf = () => ({
  client_id: client.client_id,
  client_secret: client.client_secret,
});

/** Exchanges a code of the suite's app for its tokens (`extra` overrides a field); the reply. */
export const exchange = (code: string, verifier: string, extra: Record<string, string> = {}) =>
  post("/v1/oauth2/token", {
    grant_type: "authorization_code",
    code,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
    ...secretOf(),
    ...extra,
  });

/** Registers the suite's server, the seller signed in with a cookie, their app and a product. */
export function withOAuthApp(): void {
  beforeAll(async () => {
    t = await startTestServer({ worker: false });
    seller = await createSeller(t.url, ["products:write"]);
    cookie = await signInCookie(seller.user.email, seller.user.password);
    const reg = await api(t.url, "/v1/oauth2/register", {
      token: seller.user.token,
      body: {
        client_name: "Acme Analytics",
        redirect_uris: [REDIRECT],
        scope: "openid profile email products:read products:write",
        default_sub_type: "organization",
      },
    });
    expect(reg.status).toBe(200);
    client = reg.body;
    await api(t.url, "/v1/products/", {
      token: seller.token,
      body: { name: "Mine", prices: [{ amount_type: "free" }] },
    });
  }, 60_000);
  afterAll(() => t?.stop());
}
