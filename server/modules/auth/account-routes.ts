// till's own account routes beside better-auth's: the device verification page, the list of
// sign-in providers for the dashboard, and set-password,
// which better-auth exposes only to server code (a user who signed up through a social provider
// adds a password here). They run after express.json().
import type { Request, Response } from "express";
import { apiRouter, type Router } from "../../lib/api-router.ts";
import { fromNodeHeaders } from "better-auth/node";
import type { Auth } from "./auth.ts";
import { renderDevicePage } from "./device-page.ts";

export function accountRouter(
  auth: Auth,
  options: {
    trustedOrigins: readonly string[];
    socialProviders?: readonly string[];
    disableSignUp?: boolean;
    sandbox?: boolean;
    /** Stripe's publishable settings, for pages that take a card outside a checkout (the portal). */
    stripe?: { publishable_key: string; stripe_js_url: string } | null;
  },
): Router {
  const r = apiRouter();

  // Public: which sign-in buttons the dashboard shows (and whether to offer the sandbox outbox),
  // and how the portal takes a card (the sandbox form, or Stripe's publishable key, public by
  // design). Provider ids only, never their client ids.
  r.get("/api/auth-providers", (_req, res) => {
    res.set("cache-control", "no-cache").json({
      email_password: true,
      sign_up: !options.disableSignUp,
      social: [...(options.socialProviders ?? [])],
      sandbox: options.sandbox ?? false,
      stripe: options.stripe ?? null,
    });
  });

  r.get("/device", async (req, res) => {
    const session = await auth.api
      .getSession({ headers: fromNodeHeaders(req.headers) })
      .catch(() => null);
    const userCode =
      typeof req.query.user_code === "string" ? req.query.user_code.slice(0, 64) : "";
    res
      .status(200)
      .set({
        "content-type": "text/html; charset=utf-8",
        "cache-control": "no-store",
        "referrer-policy": "no-referrer",
      })
      .send(
        renderDevicePage({
          user: session ? { email: session.user.email, name: session.user.name } : null,
          userCode,
          nonce: res.locals.cspNonce ?? "",
        }),
      );
  });

  r.post("/api/account/set-password", async (req, res) => {
    // Same rule as better-auth's own routes: a cookie-authenticated POST must come from a trusted
    // origin, or a cross-site form could give a social-only account a password the attacker knows.
    const originError = cookieOriginError(req, options.trustedOrigins);
    if (originError) return void res.status(403).json(originError);
    const newPassword = (req.body as { newPassword?: unknown } | undefined)?.newPassword;
    if (typeof newPassword !== "string") {
      return void res.status(400).json({
        code: "VALIDATION_ERROR",
        message: "[body.newPassword] Invalid input: expected string",
      });
    }
    const response = await auth.api.setPassword({
      body: { newPassword },
      headers: fromNodeHeaders(req.headers),
      asResponse: true,
    });
    await sendWebResponse(res, response);
  });

  return r;
}

function cookieOriginError(
  req: Request,
  trusted: readonly string[],
): { code: string; message: string } | null {
  if (!req.headers.cookie) return null;
  const origin = req.headers.origin ?? refererOrigin(req.headers.referer);
  if (!origin || origin === "null")
    return { code: "MISSING_OR_NULL_ORIGIN", message: "Missing or null Origin" };
  if (!trusted.includes(origin)) return { code: "INVALID_ORIGIN", message: "Invalid origin" };
  return null;
}

function refererOrigin(referer: string | undefined): string | undefined {
  return referer && URL.canParse(referer) ? new URL(referer).origin : undefined;
}

/** Copies a fetch Response (what better-auth returns) onto an Express response. */
export async function sendWebResponse(res: Response, response: globalThis.Response): Promise<void> {
  res.status(response.status);
  response.headers.forEach((value, key) => {
    if (key !== "set-cookie" && key !== "content-length") res.setHeader(key, value);
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader("set-cookie", cookies);
  res.send(Buffer.from(await response.arrayBuffer()));
}
