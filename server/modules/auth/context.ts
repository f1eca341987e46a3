// Resolves a request to an AuthContext: `till_oat_` and OAuth (`till_at_`) bearer tokens through
// their hash, anything else (a session cookie, or a session token as bearer) through better-auth.
import type { Request } from "express";
import { fromNodeHeaders } from "better-auth/node";
import type { Db } from "../../../db/client.ts";
import type { AuthContext, AuthResolver } from "../../lib/auth-context.ts";
import type { Clock } from "../../lib/clock.ts";
import { SCOPES } from "../../lib/scopes.ts";
import { hashToken } from "../../lib/tokens.ts";
import { ACCESS_PREFIXES, resolveAccessToken } from "../oauth2/tokens.ts";
import { memberOrganizationIds } from "../organizations/queries.ts";
import { resolveToken } from "../tokens/service.ts";
import type { Auth } from "./auth.ts";

const ALL_SCOPES: ReadonlySet<string> = new Set(SCOPES);

export function createAuthResolver(deps: { auth: Auth; db: Db; clock: Clock }): AuthResolver {
  return async (req: Request, options = {}): Promise<AuthContext | null> => {
    if (req.bearer?.startsWith("till_oat_")) {
      const token = await resolveToken(deps.db, hashToken(req.bearer), deps.clock.now());
      if (!token) return null;
      return {
        kind: "organization",
        userId: null,
        organizationIds: [token.organizationId],
        scopes: new Set(token.scopes),
        tokenId: token.id,
      };
    }
    // An OAuth app's access token: the scopes and organization its user granted at consent.
    if (ACCESS_PREFIXES.some((p) => req.bearer?.startsWith(p)))
      return resolveAccessToken(deps, req.bearer!);
    // A customer session token is for /v1/customer-portal only; on a seller route it is nobody.
    if (req.bearer?.startsWith("till_cst_")) return null;
    if (!req.bearer && !req.headers.cookie) return null;
    // Fresh: past the session cookie cache, so a revoked session is seen at once.
    const session = await deps.auth.api.getSession({
      headers: fromNodeHeaders(req.headers),
      ...(options.fresh ? { query: { disableCookieCache: true } } : {}),
    });
    if (!session) return null;
    const organizationIds = await memberOrganizationIds(deps.db, session.user.id);
    return {
      kind: "user",
      userId: session.user.id,
      organizationIds,
      scopes: ALL_SCOPES,
      tokenId: null,
    };
  };
}
