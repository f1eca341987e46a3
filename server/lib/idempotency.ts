// Idempotency-Key on /v1 POST and PATCH, with Stripe's semantics: a key belongs to its caller (the
// organization, user or customer session) for 24 hours; a retry with the same key and the same
// request gets the first answer again (status and body, `Idempotent-Replayed: true`) without
// running twice; the same key with another request is a 422; a retry while the first still runs
// waits for it, or gets a 409 after a while. An answer of 5xx (and 409/429, which say "try
// again") is not kept, so the retry runs for real.
import { createHash } from "node:crypto";
import type { Request, RequestHandler, Response } from "express";
import type { Db } from "../../db/client.ts";
import * as repo from "../modules/idempotency/repository.ts";
import type { Clock } from "./clock.ts";
import { ApiError, RequestValidationError } from "./errors.ts";

export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;
/** A holder that has not answered in this long died with the key; the next retry takes it over. */
const STALE_MS = 120_000;
const WAIT_MS = 10_000;
const POLL_MS = 50;

export interface IdempotencyDeps {
  db: Db;
  clock: Clock;
  /** Whose key space the request is in, or null for an unauthenticated request. */
  scopeOf(req: Request): Promise<string | null>;
  waitMs?: number;
}

const LOC = ["header", "idempotency-key"];

function fingerprint(req: Request): string {
  return createHash("sha256")
    .update(`${req.method}\n${req.originalUrl}\n${JSON.stringify(req.body ?? null)}`)
    .digest("base64url");
}

function replay(res: Response, row: repo.IdempotencyRow): void {
  res.status(row.status ?? 200).set("idempotent-replayed", "true");
  if (row.contentType) res.set("content-type", row.contentType);
  res.end(row.body ?? "");
}

/** Keeps what the handler answers, once it answers, for the retries to come. */
function record(res: Response, db: Db, scope: string, key: string): void {
  const end = res.end as (...args: unknown[]) => Response;
  let done = false;
  res.end = ((...args: unknown[]) => {
    if (!done) {
      done = true;
      const [chunk, encoding] = args;
      const body =
        typeof chunk === "string"
          ? chunk
          : Buffer.isBuffer(chunk)
            ? chunk.toString(typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8")
            : "";
      const status = res.statusCode;
      const keep = status < 500 && status !== 409 && status !== 429;
      const contentType = res.getHeader("content-type");
      (keep
        ? repo.complete(db, scope, key, {
            status,
            contentType: typeof contentType === "string" ? contentType : null,
            body,
          })
        : repo.release(db, scope, key)
      ).catch((err: unknown) => res.req.log.error({ err }, "idempotency record not saved"));
    }
    return end.apply(res, args);
  }) as Response["end"];
}

export function idempotency(deps: IdempotencyDeps): RequestHandler {
  const waitMs = deps.waitMs ?? WAIT_MS;
  return async (req, res, next) => {
    const key = req.headers["idempotency-key"];
    if (key === undefined || (req.method !== "POST" && req.method !== "PATCH")) return next();
    if (typeof key !== "string" || key.length === 0 || key.length > 255)
      throw RequestValidationError.field(LOC, "An Idempotency-Key is 1 to 255 characters.");
    const scope = (await deps.scopeOf(req)) ?? `public ${req.path}`;
    const claim = { scope, key, fingerprint: fingerprint(req), now: deps.clock.now() };
    const limits = () => {
      const now = deps.clock.now().getTime();
      return {
        expiredBefore: new Date(now - IDEMPOTENCY_TTL_MS),
        staleBefore: new Date(now - STALE_MS),
      };
    };
    if ((await repo.claim(deps.db, claim)) || (await repo.takeOver(deps.db, claim, limits()))) {
      record(res, deps.db, scope, key);
      return next();
    }
    const deadline = Date.now() + waitMs;
    for (;;) {
      const row = await repo.find(deps.db, scope, key);
      // Freed by a failed first attempt (or expired) in the meantime: this request runs instead.
      if (!row) {
        if (await repo.claim(deps.db, claim)) {
          record(res, deps.db, scope, key);
          return next();
        }
        continue;
      }
      if (row.fingerprint !== claim.fingerprint)
        throw RequestValidationError.field(
          LOC,
          "This Idempotency-Key was already used with a different request.",
          "idempotency_key_reused",
        );
      if (row.status !== null) return replay(res, row);
      if (Date.now() >= deadline)
        throw new ApiError(
          409,
          "IdempotencyKeyInUse",
          "A request with this Idempotency-Key is still running; retry later.",
          { "retry-after": "1" },
        );
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  };
}
