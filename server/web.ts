// Serves the built dashboard and pages from web/dist. Hashed assets are cached for a year and sent
// as the build's Brotli or gzip copy when the browser takes one; HTML is never cached so a deploy
// takes effect at once, and is compressed once in memory. Unknown non-API GETs that want HTML get
// the dashboard (client-side routes); without a build, a page says how to make one.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, gzipSync } from "node:zlib";
import compression from "compression";
import { type Request, type RequestHandler, type Response, Router } from "express";
import { frameableBy, type StripeSources } from "./lib/security-headers.ts";

export const webDist = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "..",
  "web",
  "dist",
);

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>till</title>
<p>The dashboard has not been built. Run <code>npm run build:web</code> (npm start does this for you).</p>`;

/** API answers at least this big are compressed (smaller ones gain less than the CPU costs). */
const COMPRESS_THRESHOLD = 1024;

/**
 * `compression` for the API's answers above the threshold. Streams (SSE) and answers that are
 * already encoded (the prebuilt assets) pass untouched.
 */
export function compressResponses(): RequestHandler {
  return compression({
    threshold: COMPRESS_THRESHOLD,
    filter: (req, res) =>
      !String(res.getHeader("content-type") ?? "").startsWith("text/event-stream") &&
      compression.filter(req, res),
  });
}

type Encoding = "br" | "gzip" | null;

/** Brotli when the browser takes it (smaller), else gzip, else none. */
function encodingFor(req: Request): Encoding {
  if (!req.headers["accept-encoding"]) return null;
  if (req.acceptsEncodings("br") === "br") return "br";
  if (req.acceptsEncodings("gzip") === "gzip") return "gzip";
  return null;
}

/** A text body with its compressed forms, made once. */
class Encoded {
  readonly identity: Buffer;
  #br: Buffer | undefined;
  #gzip: Buffer | undefined;
  constructor(text: string) {
    this.identity = Buffer.from(text);
  }
  body(encoding: Encoding): Buffer {
    if (encoding === "br") {
      this.#br ??= brotliCompressSync(this.identity);
      return this.#br;
    }
    if (encoding === "gzip") {
      this.#gzip ??= gzipSync(this.identity, { level: 9 });
      return this.#gzip;
    }
    return this.identity;
  }
}

function sendEncoded(req: Request, res: Response, body: Encoded, type: string): void {
  const encoding = encodingFor(req);
  res.vary("accept-encoding");
  if (encoding) res.setHeader("content-encoding", encoding);
  res.type(type).send(body.body(encoding));
}

/** The embed scripts with this server's origins baked in, so the overlay trusts only them. */
function embedScript(file: string, origins: readonly string[]): string | null {
  const full = path.join(webDist, "embed", file);
  if (!existsSync(full)) return null;
  // The minifier may quote the placeholder with ", ' or a backtick.
  return readFileSync(full, "utf8").replace(
    /(["'`])__TILL_ALLOWED_ORIGINS__\1/,
    JSON.stringify(JSON.stringify(origins)),
  );
}

const ASSET_TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".json": "application/json; charset=utf-8",
};

/**
 * /assets: content-hashed names, so immutable for a year. A .br or .gz copy from the build is sent
 * when the browser accepts it; anything else as is.
 */
function assets(): RequestHandler {
  const dir = path.join(webDist, "assets");
  const found = new Map<string, boolean>();
  const has = (file: string) => {
    if (!found.has(file)) found.set(file, existsSync(file));
    return found.get(file) as boolean;
  };
  return (req, res, next) => {
    if (req.method !== "GET" && req.method !== "HEAD") return next();
    let decoded: string;
    try {
      decoded = decodeURIComponent(req.path);
    } catch {
      return next(); // a malformed escape names no asset: 404, not a 500
    }
    const name = path.posix.normalize(decoded).replace(/^\/+/, "");
    if (!name || name.includes("..") || name.endsWith(".br") || name.endsWith(".gz")) return next();
    const file = path.join(dir, name);
    if (!has(file)) return next();
    const encoding = encodingFor(req);
    const suffix = encoding === "br" ? ".br" : encoding === "gzip" ? ".gz" : "";
    const chosen = suffix && has(file + suffix) ? file + suffix : file;
    res.setHeader("cache-control", "public, max-age=31536000, immutable");
    res.vary("accept-encoding");
    if (chosen !== file) res.setHeader("content-encoding", encoding as string);
    const type = ASSET_TYPES[path.extname(file)];
    if (type) res.setHeader("content-type", type);
    res.sendFile(chosen, { dotfiles: "deny", cacheControl: false, lastModified: false }, (err) => {
      if (err && !res.headersSent) next();
    });
  };
}

export interface WebOptions {
  embedOrigins: readonly string[];
  production: boolean;
  /** Stripe.js's sources for the checkout page's CSP, when it pays with Stripe. */
  stripe: StripeSources | null;
  /** The validated embed_origin of the checkout behind a client secret, or null. */
  checkoutEmbedOrigin(clientSecret: string): Promise<string | null>;
}

export function webRouter(options: WebOptions): Router {
  const router = Router();
  const frameable = frameableBy(options.production, options.stripe);
  const scripts = new Map<string, Encoded | null>();
  for (const file of ["embed.js", "embed.mjs"]) {
    router.get(`/${file}`, (req, res) => {
      if (!scripts.has(file)) {
        const text = embedScript(file, options.embedOrigins);
        scripts.set(file, text === null ? null : new Encoded(text));
      }
      const body = scripts.get(file);
      if (!body)
        return void res
          .status(404)
          .type("text/plain")
          .send("embed script not built: run npm run build:web");
      res.setHeader("cache-control", "public, max-age=300");
      res.setHeader("access-control-allow-origin", "*");
      sendEncoded(req, res, body, "text/javascript");
    });
  }
  router.use("/assets", assets());
  // The icon every page links to; /favicon.ico answers browsers that ask without looking.
  router.get(["/favicon.svg", "/favicon.ico"], (_req, res, next) => {
    const file = path.join(webDist, "favicon.svg");
    if (!existsSync(file)) return next();
    res.setHeader("cache-control", "public, max-age=86400");
    res.type("image/svg+xml").sendFile(file);
  });
  const pages = new Map<string, Encoded>();
  const notBuilt = new Encoded(NOT_BUILT);
  const page = (file: string): Encoded => {
    if (!pages.has(file) && existsSync(path.join(webDist, file)))
      pages.set(file, new Encoded(readFileSync(path.join(webDist, file), "utf8")));
    return pages.get(file) ?? notBuilt;
  };
  // Framed only by the seller's page the checkout was created for (its embed_origin).
  router.get("/checkout/:clientSecret", async (req, res, next) => {
    const origin = await options
      .checkoutEmbedOrigin(String(req.params.clientSecret))
      .catch(() => null);
    frameable(origin)(req, res, (err?: unknown) => {
      if (err) return next(err);
      res.setHeader("cache-control", "no-cache");
      // The page's first call starts with the HTML instead of after the scripts (one round trip less).
      const api = `/v1/checkouts/client/${encodeURIComponent(req.params.clientSecret as string)}`;
      res.setHeader("link", `<${api}>; rel=preload; as=fetch; crossorigin=anonymous`);
      sendEncoded(req, res, page("checkout.html"), "html");
    });
  });
  // After paying without a success URL of the seller's. The link may carry the buyer's customer
  // session token: never cached, never sent on as a referrer.
  // In the overlay the frame moves on to this page, so it is framed by the same origin only.
  router.get("/checkout/:clientSecret/confirmation", async (req, res, next) => {
    const origin = await options
      .checkoutEmbedOrigin(String(req.params.clientSecret))
      .catch(() => null);
    frameable(origin)(req, res, (err?: unknown) => {
      if (err) return next(err);
      res.setHeader("cache-control", "no-store");
      res.setHeader("referrer-policy", "no-referrer");
      sendEncoded(req, res, page("confirmation.html"), "html");
    });
  });
  // The customer portal; the page reads its customer session token from the query string (or, at
  // /portal/verify-email, trades an email change link for one; at /portal/claim, a seat invitation).
  router.get(["/portal", "/portal/verify-email", "/portal/claim"], (req, res) => {
    res.setHeader("cache-control", "no-store");
    res.setHeader("referrer-policy", "no-referrer");
    sendEncoded(req, res, page("portal.html"), "html");
  });
  // Not a path with a repeated leading slash either: `//v1/products/` is a client's base URL
  // ending in a slash, and must get the API's 404 rather than the dashboard's HTML.
  router.get(/^\/(?!\/|v1\/|v1$|api\/|assets\/).*/, (req, res, next) => {
    if (!req.accepts("html") || path.extname(req.path)) return next();
    res.setHeader("cache-control", "no-cache");
    sendEncoded(req, res, page("index.html"), "html");
  });
  return router;
}
