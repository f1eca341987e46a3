// Signs users up and in over HTTP, the way the dashboard and CLI do, and gives back their bearer
// session token; creates organizations and organization access tokens through the public API.
import { randomBytes } from "node:crypto";

export interface TestUser {
  id: string;
  email: string;
  password: string;
  token: string;
}

export async function api(
  base: string,
  path: string,
  init: { method?: string; token?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { origin: base, ...init.headers };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${base}${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers,
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = text;
  }
  return { status: res.status, headers: res.headers, body: json as any };
}

export async function signUp(
  base: string,
  overrides: { email?: string; name?: string; password?: string } = {},
): Promise<TestUser> {
  const email = overrides.email ?? `user-${randomBytes(5).toString("hex")}@example.com`;
  const password = overrides.password ?? "correct horse battery";
  const res = await api(base, "/api/auth/sign-up/email", {
    body: { email, password, name: overrides.name ?? "Test User" },
  });
  if (res.status !== 200)
    throw new Error(`sign-up failed: ${res.status} ${JSON.stringify(res.body)}`);
  const token = res.headers.get("set-auth-token");
  if (!token) throw new Error("sign-up returned no bearer token");
  return { id: res.body.user.id, email, password, token };
}

export async function createOrganization(base: string, user: TestUser, name = "Acme") {
  const slug = `${name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}-${randomBytes(3).toString("hex")}`;
  const res = await api(base, "/v1/organizations/", { token: user.token, body: { name, slug } });
  if (res.status !== 201)
    throw new Error(`create organization failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; slug: string; name: string };
}

export async function createAccessToken(
  base: string,
  user: TestUser,
  organizationId: string,
  scopes: string[],
) {
  const res = await api(base, "/v1/organization-access-tokens/", {
    token: user.token,
    body: { organization_id: organizationId, comment: "test", scopes },
  });
  if (res.status !== 201)
    throw new Error(`create token failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.token as string;
}

/** A seller ready for API tests: a user, an organization and an access token with every scope given. */
export async function createSeller(base: string, scopes: string[]) {
  const user = await signUp(base);
  const organization = await createOrganization(base, user);
  const token = await createAccessToken(base, user, organization.id, scopes);
  return { user, organization, token };
}
