// Who is calling: an organization access token (one organization, its scopes) or a signed-in user
// (session cookie or bearer session token; every organization they belong to, all scopes). Routes
// declare the scope they need with guard(scope); tenancy helpers turn the context into the
// organization ids a query may touch.
import type { RequestHandler, Request } from "express";
import { NotPermitted, RequestValidationError, ResourceNotFound, Unauthorized } from "./errors.ts";
import { grants, type Scope } from "./scopes.ts";

export interface AuthContext {
  kind: "user" | "organization";
  userId: string | null;
  /** Organizations this caller may read and write, in a stable order. */
  organizationIds: readonly string[];
  scopes: ReadonlySet<string>;
  /** The organization access token's id, when that is how the caller authenticated. */
  tokenId: string | null;
  /** The OAuth app acting for the caller, when an OAuth access token authenticated them. */
  oauthClientId?: string;
}

export type AuthResolver = (
  req: Request,
  options?: { fresh?: boolean },
) => Promise<AuthContext | null>;

declare module "express-serve-static-core" {
  interface Request {
    auth?: AuthContext;
    /**
     * Resolves the caller's credential again, past any cache: long-lived answers (streams) ask
     * it now and then, and end once the credential is gone (signed out, revoked, deleted).
     */
    reauthenticate?: () => Promise<AuthContext | null>;
  }
}

export type Guard = (...scopes: Scope[]) => RequestHandler;

/** guard("products:read") → middleware that authenticates once and checks one of the scopes. */
export function createGuard(resolve: AuthResolver): Guard {
  return (...scopes) =>
    async (req, _res, next) => {
      req.auth ??= (await resolve(req)) ?? undefined;
      if (!req.auth) throw new Unauthorized();
      req.reauthenticate ??= () => resolve(req, { fresh: true });
      if (scopes.length > 0 && !scopes.some((s) => grants(req.auth!.scopes, s))) {
        throw new NotPermitted(`This token lacks the scope ${scopes.join(" or ")}.`);
      }
      next();
    };
}

/**
 * The user behind a signed-in session, for a person's own acts and data (their tokens, their mail,
 * their live stream). An organization token is refused, and so is an OAuth app acting for the user:
 * whatever scopes it was granted, these are beyond them.
 */
export function sessionUserOf(ctx: AuthContext, refusal: string): string {
  if (ctx.kind !== "user" || !ctx.userId || ctx.oauthClientId) throw new NotPermitted(refusal);
  return ctx.userId;
}

export function authOf(req: Request): AuthContext {
  if (!req.auth) throw new Unauthorized();
  return req.auth;
}

/**
 * The organization a write goes to. An organization token implies its own; a user names one with
 * `organization_id` (or has exactly one). Naming an organization the caller cannot access is a 422
 * on that field, the same answer as for one that does not exist.
 */
export function organizationForWrite(
  ctx: AuthContext,
  requested: string | null | undefined,
  loc: (string | number)[] = ["body", "organization_id"],
): string {
  if (requested) {
    if (!ctx.organizationIds.includes(requested))
      throw RequestValidationError.field(loc, "Organization not found.", "value_error");
    return requested;
  }
  if (ctx.organizationIds.length === 1) return ctx.organizationIds[0]!;
  throw RequestValidationError.field(
    loc,
    ctx.organizationIds.length === 0
      ? "You are not a member of any organization."
      : "Field required",
    "missing",
  );
}

/** The organizations a list may read: all accessible ones, narrowed by an `organization_id` filter. */
export function organizationsForRead(
  ctx: AuthContext,
  filter: string | string[] | null | undefined,
): string[] {
  if (!filter || (Array.isArray(filter) && filter.length === 0)) return [...ctx.organizationIds];
  const wanted = Array.isArray(filter) ? filter : [filter];
  return ctx.organizationIds.filter((id) => wanted.includes(id));
}

/** A resource of an organization the caller cannot access does not exist, as far as they know. */
export function assertAccessible(
  ctx: AuthContext,
  organizationId: string | null | undefined,
  what = "Not found",
): void {
  if (!organizationId || !ctx.organizationIds.includes(organizationId))
    throw new ResourceNotFound(what);
}
