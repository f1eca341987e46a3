// Response headers every answer carries, through helmet: a Content Security Policy for every page
// (scripts only from this origin or with the response's nonce), no framing except the hosted
// checkout by its own validated embed_origin, nosniff, a referrer policy, and HSTS in production.
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { RequestHandler, Response } from "express";
import helmet from "helmet";

declare module "express-serve-static-core" {
  interface Locals {
    /** The nonce an inline <script> of this response must carry to run. */
    cspNonce?: string;
    /** Origins allowed to frame this response (CSP frame-ancestors); none when unset. */
    frameAncestors?: string;
  }
}

// helmet calls these with Node's request and response, which Express extends.
const nonce = (_req: IncomingMessage, res: ServerResponse) =>
  `'nonce-${(res as Response).locals.cspNonce}'`;
const frameAncestors = (_req: IncomingMessage, res: ServerResponse) =>
  (res as Response).locals.frameAncestors ?? "'none'";

/** Where Stripe.js comes from and what it talks to, when the checkout pays with Stripe. */
export interface StripeSources {
  jsUrl: string;
  apiBase: string | null;
}

// Stripe's CSP guide: Stripe.js from js.stripe.com, its frames from there and hooks.stripe.com
// (3-D Secure), its requests to api.stripe.com.
function stripeSources(stripe: StripeSources | null) {
  if (!stripe) return { script: [], frame: [], connect: [] };
  const js = new URL(stripe.jsUrl).origin;
  const api = stripe.apiBase ? new URL(stripe.apiBase).origin : "https://api.stripe.com";
  return { script: [js], frame: [js, "https://hooks.stripe.com"], connect: [api] };
}

function csp(production: boolean, stripe: StripeSources | null) {
  const extra = stripeSources(stripe);
  return helmet.contentSecurityPolicy({
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      baseUri: ["'self'"],
      scriptSrc: ["'self'", nonce, ...extra.script],
      scriptSrcAttr: ["'none'"],
      // React sets style attributes through the DOM, and the theme inlines its palette.
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", "data:", "blob:", "https:"],
      fontSrc: ["'self'", "data:"],
      connectSrc: ["'self'", ...extra.connect],
      frameSrc: ["'self'", ...extra.frame],
      objectSrc: ["'none'"],
      frameAncestors: [frameAncestors],
      ...(production ? { upgradeInsecureRequests: [] } : {}),
    },
  });
}

export function securityHeaders(options: {
  production: boolean;
  stripe?: StripeSources | null;
}): RequestHandler {
  const headers = helmet({
    contentSecurityPolicy: false,
    // embed.js and public product media are loaded by sellers' pages on other origins.
    crossOriginResourcePolicy: { policy: "cross-origin" },
    // Sign-in with a social provider may open a popup that reports back to its opener.
    crossOriginOpenerPolicy: { policy: "same-origin-allow-popups" },
    referrerPolicy: { policy: "strict-origin-when-cross-origin" },
    strictTransportSecurity: options.production
      ? { maxAge: 31_536_000, includeSubDomains: true }
      : false,
    xFrameOptions: { action: "deny" },
  });
  const policy = csp(options.production, options.stripe ?? null);
  return (req, res, next) => {
    res.locals.cspNonce = randomBytes(16).toString("base64");
    headers(req, res, (err?: unknown) => (err ? next(err) : policy(req, res, next)));
  };
}

/**
 * Lets one response be framed by `origin` only (the hosted checkout inside its seller's page): the
 * CSP is written again with that frame-ancestors, and X-Frame-Options, which cannot name an
 * origin, is dropped. A null origin leaves the response unframeable.
 */
export function frameableBy(
  production: boolean,
  stripe: StripeSources | null = null,
): (origin: string | null) => RequestHandler {
  const policy = csp(production, stripe);
  return (origin) => (req, res, next) => {
    if (!origin) return next();
    res.locals.frameAncestors = origin;
    res.removeHeader("x-frame-options");
    policy(req, res, next);
  };
}
