// Organization access tokens: created by a member for CI and servers, shown once, stored as a hash.
import type { Db } from "../../../db/client.ts";
import { organizationForWrite, sessionUserOf, type AuthContext } from "../../lib/auth-context.ts";
import type { Clock } from "../../lib/clock.ts";
import { ResourceNotFound } from "../../lib/errors.ts";
import { scopeOfCaller } from "../../lib/org-scope.ts";
import { offsetOf, pageOf, type Pagination } from "../../lib/pagination.ts";
import type { Scope } from "../../lib/scopes.ts";
import { hashToken, newToken } from "../../lib/tokens.ts";
import * as repo from "./repository.ts";
import { parseDuration, tokenOut, type tokenCreate, type tokenUpdate } from "./schemas.ts";
import type { z } from "zod";

export interface TokenDeps {
  db: Db;
  clock: Clock;
}

/** The active token whose hash is `tokenHash` (null if none), its last use recorded. */
export async function resolveToken(
  db: Db,
  tokenHash: string,
  now: Date,
): Promise<repo.TokenRow | null> {
  const token = await repo.findActiveByHash(db, tokenHash, now);
  if (!token) return null;
  // At most one write a minute per token: a busy CI token should not write on every call.
  if (!token.lastUsedAt || now.getTime() - token.lastUsedAt.getTime() > 60_000)
    await repo.touchLastUsed(db, token.id, now);
  return token;
}

// An OAuth app acting for a user is refused too: its grant's scopes would otherwise buy a token
// with any scope (Polar keeps these routes to the web session).
function usersOnly(ctx: AuthContext): void {
  sessionUserOf(
    ctx,
    "Organization access tokens are managed by a signed-in member, not by another token.",
  );
}

export async function createToken(
  deps: TokenDeps,
  ctx: AuthContext,
  input: z.output<typeof tokenCreate>,
) {
  usersOnly(ctx);
  const organizationId = organizationForWrite(ctx, input.organization_id);
  const token = newToken("till_oat_");
  const now = deps.clock.now();
  const expiresAt = input.expires_in
    ? new Date(now.getTime() + parseDuration(input.expires_in)!)
    : null;
  const row = await repo.insertToken(deps.db, {
    organizationId,
    comment: input.comment,
    scopes: [...new Set(input.scopes)],
    tokenHash: hashToken(token),
    expiresAt,
    createdAt: now,
  });
  return { organization_access_token: tokenOut(row), token };
}

/**
 * Server-side seeding: a token whose secret the server derives itself (so it never needs storing in
 * clear), recorded once by its hash; calling again changes nothing.
 */
export async function ensureOrganizationToken(
  deps: TokenDeps,
  organizationId: string,
  token: string,
  comment: string,
  scopes: Scope[],
): Promise<void> {
  await repo.insertTokenIfAbsent(deps.db, {
    organizationId,
    comment,
    scopes,
    tokenHash: hashToken(token),
    expiresAt: null,
    createdAt: deps.clock.now(),
  });
}

export async function listTokens(
  deps: TokenDeps,
  ctx: AuthContext,
  filter: string | string[] | undefined,
  page: Pagination,
) {
  usersOnly(ctx);
  const { rows, total } = await repo.listTokens(
    deps.db,
    scopeOfCaller(ctx, filter),
    page.limit,
    offsetOf(page),
  );
  return pageOf(rows.map(tokenOut), total, page);
}

async function ownToken(deps: TokenDeps, ctx: AuthContext, id: string) {
  usersOnly(ctx);
  const row = await repo.findToken(deps.db, scopeOfCaller(ctx), id);
  if (!row) throw new ResourceNotFound("Organization access token not found.");
  return row;
}

export async function updateToken(
  deps: TokenDeps,
  ctx: AuthContext,
  id: string,
  input: z.output<typeof tokenUpdate>,
) {
  await ownToken(deps, ctx, id);
  const values: { comment?: string; scopes?: string[] } = {};
  if (input.comment) values.comment = input.comment;
  if (input.scopes) values.scopes = [...new Set(input.scopes)];
  return tokenOut(await repo.updateToken(deps.db, id, values, deps.clock.now()));
}

export async function deleteToken(deps: TokenDeps, ctx: AuthContext, id: string): Promise<void> {
  await ownToken(deps, ctx, id);
  await repo.deleteToken(deps.db, id);
}
