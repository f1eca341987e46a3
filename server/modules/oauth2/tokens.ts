// OAuth 2.0 tokens: a code (once, with its PKCE verifier and redirect URI) or a refresh token (rotated)
// becomes an access/refresh pair; revoke, introspect and userinfo; and the resolver that lets an
// access token call /v1 with exactly the scopes granted, on the organization chosen at consent.
import { createHash, timingSafeEqual } from "node:crypto";
import { inTransaction } from "../../../db/client.ts";
import type { AuthContext } from "../../lib/auth-context.ts";
import { NotPermitted, Unauthorized } from "../../lib/errors.ts";
import { hashToken, newToken } from "../../lib/tokens.ts";
import { userProfile } from "../auth/queries.ts";
import { memberOrganizationIds, organizationSummary } from "../organizations/queries.ts";
import { OAuthError } from "./errors.ts";
import * as repo from "./repository.ts";
import { scopeList, type OAuth2TokenRow, type TokenLookup, type TokenRequest } from "./schemas.ts";
import { authenticateClient, type OAuth2Deps } from "./service.ts";

// Polar answers expires_in 864000 (ten days); apps written against it expect that lifetime.
const ACCESS_TTL_S = 864_000;
const REFRESH_TTL_MS = 90 * 86_400_000;

export const ACCESS_PREFIXES = ["till_at_u_", "till_at_o_"] as const;

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function pkceMatches(verifier: string | undefined, challenge: string): boolean {
  if (!verifier || !/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) return false;
  return sameText(createHash("sha256").update(verifier).digest("base64url"), challenge);
}

interface Subject {
  clientId: string;
  userId: string;
  organizationId: string | null;
  scopes: string[];
}

async function issue(deps: OAuth2Deps, db: typeof deps.db, s: Subject, withRefresh: boolean) {
  const org = s.organizationId !== null;
  const access = newToken(org ? "till_at_o_" : "till_at_u_");
  const refresh = withRefresh ? newToken(org ? "till_rt_o_" : "till_rt_u_") : null;
  const now = deps.clock.now();
  await repo.insertToken(db, {
    ...s,
    accessTokenHash: hashToken(access),
    refreshTokenHash: refresh ? hashToken(refresh) : null,
    accessExpiresAt: new Date(now.getTime() + ACCESS_TTL_S * 1000),
    refreshExpiresAt: refresh ? new Date(now.getTime() + REFRESH_TTL_MS) : null,
    issuedAt: now,
  });
  return {
    access_token: access,
    token_type: "Bearer" as const,
    expires_in: ACCESS_TTL_S,
    refresh_token: refresh,
    scope: s.scopes.join(" "),
    id_token: null,
  };
}

/** POST /v1/oauth2/token. Every refusal leaves the code or refresh token as it was. */
export async function exchangeToken(
  deps: OAuth2Deps,
  credentials: { clientId: string | undefined; clientSecret: string | undefined },
  body: TokenRequest,
) {
  const client = await authenticateClient(deps, credentials.clientId, credentials.clientSecret);
  if (!client.grantTypes.includes(body.grant_type))
    throw new OAuthError(
      body.grant_type === "authorization_code" || body.grant_type === "refresh_token"
        ? "unauthorized_client"
        : "unsupported_grant_type",
      `grant_type ${body.grant_type} is not allowed for this client.`,
    );
  const now = deps.clock.now();
  const withRefresh = client.grantTypes.includes("refresh_token");

  if (body.grant_type === "authorization_code") {
    const code = body.code ? await repo.findCode(deps.db, hashToken(body.code)) : null;
    if (!code || code.clientId !== client.clientId || code.expiresAt <= now)
      throw new OAuthError("invalid_grant", "The code is invalid or expired.");
    if (code.usedAt) throw new OAuthError("invalid_grant", "The code was already used.");
    if (body.redirect_uri !== code.redirectUri)
      throw new OAuthError("invalid_grant", "redirect_uri differs from the authorization request.");
    if (code.codeChallenge && !pkceMatches(body.code_verifier, code.codeChallenge))
      throw new OAuthError("invalid_grant", "The code_verifier does not match the challenge.");
    return inTransaction(deps.db, async (tx) => {
      if (!(await repo.consumeCode(tx, code.id, now)))
        throw new OAuthError("invalid_grant", "The code was already used.");
      return issue(
        deps,
        tx,
        {
          clientId: client.clientId,
          userId: code.userId,
          organizationId: code.organizationId,
          scopes: code.scopes,
        },
        withRefresh,
      );
    });
  }

  // refresh_token: the old pair is revoked and a new one issued, in one transaction.
  const old = body.refresh_token
    ? await repo.findTokenByRefreshHash(deps.db, hashToken(body.refresh_token))
    : null;
  if (
    !old ||
    old.clientId !== client.clientId ||
    old.revokedAt ||
    !old.refreshExpiresAt ||
    old.refreshExpiresAt <= now
  )
    throw new OAuthError("invalid_grant", "The refresh token is invalid, expired or revoked.");
  let scopes = old.scopes;
  if (body.scope) {
    scopes = scopeList(body.scope);
    if (scopes.some((s) => !old.scopes.includes(s)))
      throw new OAuthError("invalid_scope", "A refresh may only narrow the granted scopes.");
  }
  return inTransaction(deps.db, async (tx) => {
    if (!(await repo.revokeToken(tx, old.id, now)))
      throw new OAuthError("invalid_grant", "The refresh token was already used.");
    return issue(
      deps,
      tx,
      { clientId: client.clientId, userId: old.userId, organizationId: old.organizationId, scopes },
      withRefresh,
    );
  });
}

/** A client's own token, by either of its values; null for anyone else's or an unknown one. */
async function clientToken(
  deps: OAuth2Deps,
  credentials: { clientId: string | undefined; clientSecret: string | undefined },
  lookup: TokenLookup,
) {
  const client = await authenticateClient(deps, credentials.clientId, credentials.clientSecret);
  const hash = hashToken(lookup.token);
  const row = await repo.findTokenByEitherHash(deps.db, hash);
  if (!row || row.clientId !== client.clientId) return null;
  return { row, kind: row.accessTokenHash === hash ? "access_token" : "refresh_token" } as const;
}

/** POST /v1/oauth2/revoke (RFC 7009): revokes the pair; unknown tokens are not an error. */
export async function revoke(
  deps: OAuth2Deps,
  credentials: { clientId: string | undefined; clientSecret: string | undefined },
  lookup: TokenLookup,
) {
  const found = await clientToken(deps, credentials, lookup);
  if (found) await repo.revokeToken(deps.db, found.row.id, deps.clock.now());
  return {};
}

function isActive(row: OAuth2TokenRow, kind: "access_token" | "refresh_token", now: Date) {
  if (row.revokedAt) return false;
  const expires = kind === "access_token" ? row.accessExpiresAt : row.refreshExpiresAt;
  return expires !== null && expires > now;
}

/** POST /v1/oauth2/introspect (RFC 7662), for the client's own tokens. */
export async function introspect(
  deps: OAuth2Deps,
  credentials: { clientId: string | undefined; clientSecret: string | undefined },
  lookup: TokenLookup,
) {
  const found = await clientToken(deps, credentials, lookup);
  const now = deps.clock.now();
  if (!found || !isActive(found.row, found.kind, now)) return { active: false };
  const { row, kind } = found;
  const exp = kind === "access_token" ? row.accessExpiresAt : row.refreshExpiresAt!;
  return {
    active: true,
    client_id: row.clientId,
    token_type: kind,
    scope: row.scopes.join(" "),
    sub_type: row.organizationId ? "organization" : "user",
    sub: row.organizationId ?? row.userId,
    organizations: row.organizationId ? [row.organizationId] : [],
    aud: row.clientId,
    iss: deps.baseUrl,
    exp: Math.floor(exp.getTime() / 1000),
    iat: Math.floor(row.issuedAt.getTime() / 1000),
  };
}

/**
 * The caller an OAuth access token stands for, or null when it is unknown, expired, revoked, or
 * its user has since left the organization it was granted on.
 */
export async function resolveAccessToken(
  deps: Pick<OAuth2Deps, "db" | "clock">,
  token: string,
): Promise<AuthContext | null> {
  const row = await repo.findActiveAccess(deps.db, hashToken(token), deps.clock.now());
  if (!row) return null;
  const memberOf = await memberOrganizationIds(deps.db, row.userId);
  const scopes = new Set(row.scopes);
  if (row.organizationId) {
    if (!memberOf.includes(row.organizationId)) return null;
    return {
      kind: "organization",
      userId: null,
      organizationIds: [row.organizationId],
      scopes,
      tokenId: null,
      oauthClientId: row.clientId,
    };
  }
  return {
    kind: "user",
    userId: row.userId,
    organizationIds: memberOf,
    scopes,
    tokenId: null,
    oauthClientId: row.clientId,
  };
}

/** GET /v1/oauth2/userinfo: who the token's subject is, as far as its scopes let the app see. */
export async function userInfo(deps: OAuth2Deps, bearer: string | null) {
  const row = bearer
    ? await repo.findActiveAccess(deps.db, hashToken(bearer), deps.clock.now())
    : null;
  if (!row) throw new Unauthorized();
  if (!row.scopes.includes("openid")) throw new NotPermitted("This token lacks the scope openid.");
  if (row.organizationId) {
    const org = await organizationSummary(deps.db, row.organizationId);
    return { sub: row.organizationId, name: org?.name ?? null };
  }
  const user = await userProfile(deps.db, row.userId);
  return {
    sub: row.userId,
    name: row.scopes.includes("profile") ? (user?.name ?? null) : null,
    email: row.scopes.includes("email") ? (user?.email ?? null) : null,
    email_verified: row.scopes.includes("email") ? (user?.emailVerified ?? null) : null,
  };
}
