// Mounts better-auth at /api/auth. It reads the raw body itself, so this runs before express.json().
// The client IP that rate limits key on comes from the socket (or, behind a trusted proxy, from
// X-Forwarded-For), never from a header a client could set.
import type { RequestHandler, Router } from "express";
import { Router as createRouter } from "express";
import { toNodeHandler } from "better-auth/node";
import type { Auth } from "./auth.ts";
import { CLIENT_IP_HEADER } from "./options.ts";

export function authRouter(auth: Auth, options: { trustProxy: boolean }): Router {
  const router = createRouter();
  const clientIp: RequestHandler = (req, _res, next) => {
    const forwarded = options.trustProxy ? String(req.headers["x-forwarded-for"] ?? "").split(",")[0]?.trim() : "";
    req.headers[CLIENT_IP_HEADER] = forwarded || req.socket.remoteAddress || "unknown";
    next();
  };
  router.all("/api/auth/*splat", clientIp, toNodeHandler(auth));
  return router;
}
