// OAuth 2.0 apps, registration and consent: a signed-in user registers clients (RFC 7591, owned by
// that user), and approves an app's request for scopes on one organization (sub_type organization)
// or on themselves (sub_type user). Approval makes a single-use code bound to the client, the exact
// redirect URI and the PKCE challenge; tokens.ts turns it into tokens.
import { timingSafeEqual } from "node:crypto";
import type { Db } from "../../../db/client.ts";
import { type AuthContext, sessionUserOf } from "../../lib/auth-context.ts";
import type { Clock } from "../../lib/clock.ts";
import { RequestValidationError, ResourceNotFound } from "../../lib/errors.ts";
import { SCOPES } from "../../lib/scopes.ts";
import type { SecretBox } from "../../lib/secret-box.ts";
import { hashToken, newToken } from "../../lib/tokens.ts";
import { userProfile } from "../auth/queries.ts";
import { organizationSummary } from "../organizations/queries.ts";
import { OAuthError } from "./errors.ts";
import * as repo from "./repository.ts";
import {
  scopeList,
  serializeClient,
  serializeClientPublic,
  type AuthorizeQuery,
  type ClientConfiguration,
  type ClientConfigurationUpdate,
  type ConsentBody,
  type OAuth2ClientRow,
  type SubType,
} from "./schemas.ts";

export interface OAuth2Deps {
  db: Db;
  clock: Clock;
  secretBox: SecretBox;
  baseUrl: string;
}

const CODE_TTL_MS = 10 * 60_000;

/** Registration and consent are a person's acts: a session, never a token acting for an app. */
function signedInUser(ctx: AuthContext): string {
  return sessionUserOf(ctx, "Only a signed-in user may do this.");
}

function clientValues(input: ClientConfiguration) {
  return {
    clientName: input.client_name,
    redirectUris: input.redirect_uris,
    tokenEndpointAuthMethod: input.token_endpoint_auth_method,
    grantTypes: input.grant_types,
    responseTypes: input.response_types,
    scope: scopeList(input.scope).join(" "),
    clientUri: input.client_uri ?? null,
    logoUri: input.logo_uri ?? null,
    tosUri: input.tos_uri ?? null,
    policyUri: input.policy_uri ?? null,
    defaultSubType: input.default_sub_type,
  };
}

export async function registerClient(
  deps: OAuth2Deps,
  ctx: AuthContext,
  input: ClientConfiguration,
) {
  const userId = signedInUser(ctx);
  const secret = newToken("till_cs_");
  const row = await repo.insertClient(deps.db, {
    ...clientValues(input),
    clientId: newToken("till_ci_"),
    clientSecretHash: hashToken(secret),
    clientSecretSealed: deps.secretBox.seal(secret),
    userId,
    createdAt: deps.clock.now(),
  });
  return serializeClient(row, secret);
}

async function ownedClient(deps: OAuth2Deps, ctx: AuthContext, clientId: string) {
  const row = await repo.findOwnedClient(deps.db, signedInUser(ctx), clientId);
  if (!row) throw new ResourceNotFound("OAuth2 client not found.");
  return row;
}

export async function getClient(deps: OAuth2Deps, ctx: AuthContext, clientId: string) {
  const row = await ownedClient(deps, ctx, clientId);
  return serializeClient(row, deps.secretBox.open(row.clientSecretSealed));
}

export async function updateClient(
  deps: OAuth2Deps,
  ctx: AuthContext,
  clientId: string,
  input: ClientConfigurationUpdate,
) {
  const current = await ownedClient(deps, ctx, clientId);
  if (input.client_id !== clientId)
    throw RequestValidationError.field(["body", "client_id"], "Does not match the path.");
  const row = await repo.updateClient(deps.db, current.id, {
    ...clientValues(input),
    modifiedAt: deps.clock.now(),
  });
  return serializeClient(row, deps.secretBox.open(row.clientSecretSealed));
}

export async function deleteClient(deps: OAuth2Deps, ctx: AuthContext, clientId: string) {
  const current = await ownedClient(deps, ctx, clientId);
  // Its codes and tokens go with it (foreign keys cascade), so the app loses access at once.
  await repo.deleteClient(deps.db, current.id);
}

export function authorizationServerMetadata(baseUrl: string) {
  return {
    issuer: baseUrl,
    authorization_endpoint: `${baseUrl}/oauth2/authorize`,
    token_endpoint: `${baseUrl}/v1/oauth2/token`,
    registration_endpoint: `${baseUrl}/v1/oauth2/register`,
    revocation_endpoint: `${baseUrl}/v1/oauth2/revoke`,
    introspection_endpoint: `${baseUrl}/v1/oauth2/introspect`,
    userinfo_endpoint: `${baseUrl}/v1/oauth2/userinfo`,
    scopes_supported: SCOPES,
    response_types_supported: ["code"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "none"],
    code_challenge_methods_supported: ["S256"],
  };
}

/** The client whose credentials these are, or invalid_client. Public clients have no secret. */
export async function authenticateClient(
  deps: OAuth2Deps,
  clientId: string | undefined,
  clientSecret: string | undefined,
): Promise<OAuth2ClientRow> {
  const client = clientId ? await repo.findClient(deps.db, clientId) : null;
  if (!client) throw new OAuthError("invalid_client", "Unknown client.");
  if (client.tokenEndpointAuthMethod === "none") return client;
  const given = Buffer.from(hashToken(clientSecret ?? ""));
  if (!clientSecret || !timingSafeEqual(given, Buffer.from(client.clientSecretHash)))
    throw new OAuthError("invalid_client", "Client authentication failed.");
  return client;
}

export interface ValidAuthorization {
  client: OAuth2ClientRow;
  scopes: string[];
  subType: SubType;
}

/**
 * Checks an authorization request. A bad client or redirect URI is never redirected to (the app
 * could be anyone); the caller shows those errors itself.
 */
export async function checkAuthorization(
  deps: OAuth2Deps,
  q: AuthorizeQuery,
): Promise<ValidAuthorization> {
  const client = await repo.findClient(deps.db, q.client_id);
  if (!client) throw new OAuthError("invalid_request", "Unknown client_id.");
  if (!client.redirectUris.includes(q.redirect_uri))
    throw new OAuthError("invalid_request", "redirect_uri is not registered for this client.");
  if (q.response_type !== "code")
    throw new OAuthError(
      "unsupported_response_type",
      "Only response_type=code is supported.",
      true,
    );
  const scopes = scopeList(q.scope);
  const allowed = new Set(scopeList(client.scope));
  if (scopes.length === 0 || scopes.some((s) => !allowed.has(s)))
    throw new OAuthError(
      "invalid_scope",
      "The scope is empty or not allowed for this client.",
      true,
    );
  if (q.code_challenge && (q.code_challenge_method ?? "plain") !== "S256")
    throw new OAuthError("invalid_request", "code_challenge_method must be S256.", true);
  if (!q.code_challenge && client.tokenEndpointAuthMethod === "none")
    throw new OAuthError(
      "invalid_request",
      "A public client must use PKCE (code_challenge).",
      true,
    );
  return { client, scopes, subType: q.sub_type ?? (client.defaultSubType as SubType) };
}

/** Polar's AuthorizeResponse: what the consent screen shows. */
export async function describeAuthorization(deps: OAuth2Deps, ctx: AuthContext, q: AuthorizeQuery) {
  const userId = signedInUser(ctx);
  const { client, scopes, subType } = await checkAuthorization(deps, q);
  const organizations = [];
  for (const id of ctx.organizationIds) {
    const o = await organizationSummary(deps.db, id);
    if (o) organizations.push({ id: o.id, slug: o.slug, avatar_url: o.avatarUrl, name: o.name });
  }
  const user = await userProfile(deps.db, userId);
  return {
    answer: {
      client: serializeClientPublic(client),
      sub_type: subType,
      sub:
        subType === "user" && user
          ? { id: user.id, email: user.email, avatar_url: user.image }
          : null,
      scopes,
      organizations: organizations.map(({ name: _name, ...o }) => o),
      requires_single_organization: subType === "organization",
    },
    /** What the server-rendered consent page shows besides Polar's answer. */
    organizationNames: organizations,
    userEmail: user?.email ?? null,
  };
}

/** Where the browser goes after the user allows or denies: the app's redirect URI with the answer. */
export async function consent(
  deps: OAuth2Deps,
  ctx: AuthContext,
  body: ConsentBody,
): Promise<string> {
  const userId = signedInUser(ctx);
  const { client, scopes, subType } = await checkAuthorization(deps, body);
  const target = new URL(body.redirect_uri);
  if (body.state !== undefined) target.searchParams.set("state", body.state);
  if (body.action === "deny") {
    target.searchParams.set("error", "access_denied");
    return target.toString();
  }
  let organizationId: string | null = null;
  if (subType === "organization") {
    if (!body.organization_id || !ctx.organizationIds.includes(body.organization_id))
      throw RequestValidationError.field(
        ["body", "organization_id"],
        "Choose one of your organizations.",
        "missing",
      );
    organizationId = body.organization_id;
  }
  const code = newToken("till_ac_");
  const now = deps.clock.now();
  await repo.insertCode(deps.db, {
    codeHash: hashToken(code),
    clientId: client.clientId,
    userId,
    organizationId,
    scopes,
    redirectUri: body.redirect_uri,
    codeChallenge: body.code_challenge ?? null,
    codeChallengeMethod: body.code_challenge ? "S256" : null,
    nonce: body.nonce ?? null,
    expiresAt: new Date(now.getTime() + CODE_TTL_MS),
    createdAt: now,
  });
  target.searchParams.set("code", code);
  return target.toString();
}
