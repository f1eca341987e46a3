// Session tokens are kept in the database only as hashes, so a read of the session table (a leaked
// backup, a replica) signs nobody in. better-auth itself is unchanged: its database adapter is
// wrapped so that a token written to `session.token` is stored as its hash, and a token looked up
// is hashed first. A session read by its token comes back carrying that token (better-auth puts it
// back into the cookie); sessions listed without one carry only the hash, which works as a handle
// to revoke them (/revoke-session, /admin/revoke-user-session) and as nothing else.
import { createHash } from "node:crypto";
import type { BetterAuthOptions, BetterAuthPlugin } from "better-auth";
import type { DBAdapter, Where } from "better-auth/adapters";
import { APIError, createAuthMiddleware, getSessionFromCtx } from "better-auth/api";

/** The stored form: never itself accepted as a token, since lookups hash whatever they are given. */
const PREFIX = "h1:";

export function hashSessionToken(token: string): string {
  return PREFIX + createHash("sha256").update(token, "utf8").digest("base64url");
}

export function isSessionHandle(value: unknown): value is string {
  return typeof value === "string" && value.startsWith(PREFIX);
}

const SESSION = "session";

function hashedWhere(model: string, where: Where[] | undefined): Where[] | undefined {
  if (model !== SESSION || !where) return where;
  return where.map((w) =>
    w.field !== "token"
      ? w
      : {
          ...w,
          value: Array.isArray(w.value)
            ? w.value.map((v) => (typeof v === "string" ? hashSessionToken(v) : v))
            : typeof w.value === "string"
              ? hashSessionToken(w.value)
              : w.value,
        },
  ) as Where[];
}

/** The token a lookup named exactly (field token, equality), to hand back with the row. */
function namedToken(model: string, where: Where[] | undefined): string | undefined {
  if (model !== SESSION) return undefined;
  const w = where?.find((c) => c.field === "token" && (c.operator ?? "eq") === "eq");
  return typeof w?.value === "string" ? w.value : undefined;
}

function withToken<T>(row: T, token: string | undefined): T {
  if (token === undefined || !row || typeof row !== "object" || !("token" in row)) return row;
  return { ...row, token };
}

function hashedData<T extends Record<string, unknown>>(model: string, data: T): T {
  if (model !== SESSION || typeof data.token !== "string") return data;
  return { ...data, token: hashSessionToken(data.token) };
}

type AnyAdapter = Omit<DBAdapter, "transaction"> & Partial<Pick<DBAdapter, "transaction">>;

function wrap<A extends AnyAdapter>(a: A): A {
  const wrapped: AnyAdapter = {
    ...a,
    create: async (d) => {
      const row = await a.create({ ...d, data: hashedData(d.model, d.data) });
      return withToken(row, d.model === SESSION ? (d.data.token as string) : undefined);
    },
    findOne: async (d) =>
      withToken(
        await a.findOne({ ...d, where: hashedWhere(d.model, d.where)! }),
        namedToken(d.model, d.where),
      ),
    findMany: (d) => a.findMany({ ...d, where: hashedWhere(d.model, d.where) }),
    count: (d) => a.count({ ...d, where: hashedWhere(d.model, d.where) }),
    update: async (d) =>
      withToken(
        await a.update({
          ...d,
          where: hashedWhere(d.model, d.where)!,
          update: hashedData(d.model, d.update),
        }),
        namedToken(d.model, d.where),
      ),
    updateMany: (d) =>
      a.updateMany({
        ...d,
        where: hashedWhere(d.model, d.where)!,
        update: hashedData(d.model, d.update),
      }),
    delete: (d) => a.delete({ ...d, where: hashedWhere(d.model, d.where)! }),
    deleteMany: (d) => a.deleteMany({ ...d, where: hashedWhere(d.model, d.where)! }),
    consumeOne: (d) => a.consumeOne({ ...d, where: hashedWhere(d.model, d.where)! }),
    incrementOne: (d) => a.incrementOne({ ...d, where: hashedWhere(d.model, d.where)! }),
  };
  if (a.transaction) {
    const transaction = a.transaction.bind(a);
    wrapped.transaction = (callback) => transaction((trx) => callback(wrap(trx)));
  }
  return wrapped as A;
}

/** better-auth's `database` option with session tokens stored hashed. */
export function hashingSessionTokens(
  factory: (options: BetterAuthOptions) => DBAdapter,
): (options: BetterAuthOptions) => DBAdapter {
  return (options) => wrap(factory(options));
}

/** The revocations that accept a handle from a session list, and who may use them. */
const REVOKES: Record<string, { field: string; admin: boolean }> = {
  "/revoke-session": { field: "token", admin: false },
  "/admin/revoke-user-session": { field: "sessionToken", admin: true },
};

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

export type HookContext = Parameters<Parameters<typeof createAuthMiddleware>[0]>[0];

/**
 * The caller's session, from a bearer token or the cookie. Hooks run before bearer()'s own hook
 * has turned the header into a cookie, so a bearer token is looked up here (hashed, like any).
 */
export async function callerSession(ctx: HookContext) {
  const header = ctx.headers?.get("authorization") ?? "";
  if (header.slice(0, 7).toLowerCase() === "bearer ") {
    // A signed bearer token is "<token>.<signature>"; the session is found by the token.
    const token = safeDecode(header.slice(7).trim()).split(".")[0] ?? "";
    const found = token ? await ctx.context.internalAdapter.findSession(token) : null;
    return found && found.session.expiresAt > new Date() ? found : null;
  }
  return getSessionFromCtx(ctx, { disableCookieCache: true });
}

export interface SessionRevoker {
  deleteByHandle(handle: string, userId: string | null): Promise<boolean>;
  deleteOthers(userId: string, keepHandle: string, includeDevice: boolean): Promise<number>;
}

/**
 * A before-hook for the revocations that work on listed sessions, which carry only handles:
 * /revoke-session and /admin/revoke-user-session given a handle (a real token goes on to
 * better-auth, which hashes it like any lookup), and /revoke-other-sessions, which keeps the
 * caller's session by its hash and the CLI's device sessions unless the body says
 * `revokeDeviceSessions: true` (a browser's "sign out elsewhere" must not log the CLI out).
 */
export function sessionHandles(revoker: SessionRevoker) {
  const handler = createAuthMiddleware(async (ctx) => {
    const body = (ctx.body ?? {}) as Record<string, unknown>;
    const revoke = REVOKES[ctx.path];
    const handle = revoke ? body[revoke.field] : undefined;
    const others = ctx.path === "/revoke-other-sessions";
    if (!others && !isSessionHandle(handle)) return;
    const current = await callerSession(ctx);
    if (!current)
      throw APIError.from("UNAUTHORIZED", { message: "Unauthorized", code: "UNAUTHORIZED" });
    if (others) {
      const keep = hashSessionToken(current.session.token);
      await revoker.deleteOthers(current.user.id, keep, body.revokeDeviceSessions === true);
      return ctx.json({ status: true });
    }
    if (
      revoke!.admin &&
      !String(current.user.role ?? "")
        .split(",")
        .includes("admin")
    )
      throw APIError.from("FORBIDDEN", {
        message: "You are not allowed to revoke users sessions",
        code: "YOU_ARE_NOT_ALLOWED_TO_REVOKE_USERS_SESSIONS",
      });
    await revoker.deleteByHandle(handle as string, revoke!.admin ? null : current.user.id);
    return ctx.json(revoke!.admin ? { success: true } : { status: true });
  });
  return {
    id: "till-session-handles",
    hooks: {
      before: [
        {
          matcher: (ctx: { path?: string }) =>
            ctx.path === "/revoke-other-sessions" || (ctx.path ?? "") in REVOKES,
          handler,
        },
      ],
    },
  } satisfies BetterAuthPlugin;
}
