// CORS for /v1, as Polar's API answers it: any origin may call with a bearer token (an access
// token, or a customer session from a seller's own site), preflight included, and the browser never
// sends cookies across origins because the answer is `*`, never the caller's origin with
// credentials. A request that does carry the session cookie must come from a trusted origin: a
// cross-site form or `text/plain` fetch (no preflight) would otherwise act as the signed-in user.
import type { Request, RequestHandler } from "express";
import { NotPermitted } from "./errors.ts";

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);
// better-auth's session cookie (with the __Secure- prefix over https); other cookies authenticate nothing.
const SESSION_COOKIE = /(?:^|;\s*)(?:__Secure-)?better-auth\.session_token=/;
const EXPOSED = ["idempotent-replayed", "retry-after", "www-authenticate", "x-request-id"];

function originOf(req: Request): string | null {
  const origin = req.headers.origin;
  if (origin) return origin;
  const referer = req.headers.referer;
  return referer && URL.canParse(referer) ? new URL(referer).origin : null;
}

/** Why a cookie-authenticated request is refused, or null when it may go on. */
function cookieRefusal(req: Request, trusted: readonly string[]): string | null {
  if (!req.headers.cookie || !SESSION_COOKIE.test(req.headers.cookie) || req.bearer) return null;
  const origin = originOf(req);
  if (origin && origin !== "null") {
    return trusted.includes(origin) ? null : `The origin ${origin} may not use the session cookie.`;
  }
  // Browsers always send Origin on cross-site writes; without one only a safe read is let through,
  // and only when the browser does not say it comes from another site.
  if (SAFE.has(req.method) && req.headers["sec-fetch-site"] !== "cross-site") return null;
  return "A request authenticated by the session cookie must come from a trusted origin.";
}

export function apiCors(trustedOrigins: readonly string[]): RequestHandler {
  return (req, res, next) => {
    if (req.headers.origin) {
      res.setHeader("access-control-allow-origin", "*");
      res.setHeader("access-control-expose-headers", EXPOSED.join(", "));
      res.append("vary", "Origin");
    }
    if (req.method === "OPTIONS" && req.headers["access-control-request-method"]) {
      res.setHeader("access-control-allow-methods", "GET, POST, PATCH, PUT, DELETE");
      const asked = req.headers["access-control-request-headers"];
      res.setHeader(
        "access-control-allow-headers",
        asked ?? "authorization, content-type, idempotency-key",
      );
      res.setHeader("access-control-max-age", "600");
      return void res.status(204).end();
    }
    const refusal = cookieRefusal(req, trustedOrigins);
    if (refusal) throw new NotPermitted(refusal);
    next();
  };
}
