// Mounts better-auth at /api/auth. It reads the raw body itself, so this runs before express.json().
// The client IP that rate limits key on comes from the socket (or, behind a trusted proxy, from
// X-Forwarded-For), never from a header a client could set.
import type { Router } from "../../lib/api-router.ts";
import type { RequestHandler } from "express";
// biome-ignore lint/style/noRestrictedImports: better-auth's router is mounted at /api/auth, outside /v1.
import { Router as createRouter } from "express";
import { fromNodeHeaders, toNodeHandler } from "better-auth/node";
import { sendWebResponse } from "./account-routes.ts";
import type { Auth } from "./auth.ts";
import { CLIENT_IP_HEADER } from "./options.ts";

const FORM = "application/x-www-form-urlencoded";

export function authRouter(auth: Auth, options: { trustProxy: boolean; baseUrl: string }): Router {
  const router = createRouter();
  const clientIp: RequestHandler = (req, _res, next) => {
    const forwarded = options.trustProxy
      ? String(req.headers["x-forwarded-for"] ?? "")
          .split(",")[0]
          ?.trim()
      : "";
    req.headers[CLIENT_IP_HEADER] = forwarded || req.socket.remoteAddress || "unknown";
    next();
  };
  // RFC 8628 §3.4: the token request is form-encoded; better-auth's /device/token takes JSON only,
  // so a standard OAuth client's body is turned into the same fields as JSON first.
  const deviceTokenForm: RequestHandler = async (req, res, next) => {
    if (
      !String(req.headers["content-type"] ?? "")
        .toLowerCase()
        .startsWith(FORM)
    )
      return next();
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > 16_384)
        return void res
          .status(413)
          .json({ error: "invalid_request", error_description: "Request body too large" });
      chunks.push(chunk as Buffer);
    }
    const body = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString("utf8")));
    const headers = fromNodeHeaders(req.headers);
    headers.set("content-type", "application/json");
    headers.delete("content-length");
    const request = new Request(new URL(req.originalUrl, options.baseUrl), {
      method: "POST",
      headers,
      body: JSON.stringify(body),
    });
    await sendWebResponse(res, await auth.handler(request));
  };
  router.post("/api/auth/device/token", clientIp, deviceTokenForm);
  router.all("/api/auth/*splat", clientIp, toNodeHandler(auth));
  return router;
}
