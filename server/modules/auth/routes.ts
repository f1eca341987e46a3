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
/** As express.json() on /v1: better-auth itself reads a body of any size. */
export const AUTH_BODY_LIMIT = 1_048_576;

/**
 * better-auth buffers the whole body with no limit, so a body is refused by its declared length
 * first (a chunked one, which no browser or client of ours sends, has none to check). A body it
 * answers without reading (a 405, say) is paused, not drained, and held the keep-alive connection's
 * next request forever: it is let flow once the answer is sent.
 */
const boundedBody: RequestHandler = (req, res, next) => {
  const length = req.headers["content-length"];
  if (length === undefined && req.headers["transfer-encoding"] !== undefined)
    return void res.status(411).set("connection", "close").json({
      code: "LENGTH_REQUIRED",
      message: "Send the body with a Content-Length.",
    });
  if (Number(length) > AUTH_BODY_LIMIT)
    return void res
      .status(413)
      .set("connection", "close")
      .json({
        code: "PAYLOAD_TOO_LARGE",
        message: `The request body is larger than the limit of ${AUTH_BODY_LIMIT} bytes.`,
      });
  res.on("finish", () => {
    if (!req.complete) req.resume();
  });
  next();
};

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
  router.all("/api/auth/*splat", clientIp, boundedBody, toNodeHandler(auth));
  return router;
}
