// Serves the built dashboard and pages from web/dist. Hashed assets are cached for a year; HTML is
// never cached so a deploy takes effect at once. Unknown non-API GETs that want HTML get the
// dashboard (client-side routes); without a build, a page says how to make one.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import express, { Router } from "express";

export const webDist = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "..",
  "web",
  "dist",
);

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>till</title>
<p>The dashboard has not been built. Run <code>npm run build:web</code> (npm start does this for you).</p>`;

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

export function webRouter(options: { embedOrigins: readonly string[] }): Router {
  const router = Router();
  const scripts = new Map<string, string | null>();
  for (const file of ["embed.js", "embed.mjs"]) {
    router.get(`/${file}`, (_req, res) => {
      if (!scripts.has(file)) scripts.set(file, embedScript(file, options.embedOrigins));
      const body = scripts.get(file);
      if (!body)
        return void res
          .status(404)
          .type("text/plain")
          .send("embed script not built: run npm run build:web");
      res.setHeader("cache-control", "public, max-age=300");
      res.setHeader("access-control-allow-origin", "*");
      res.type("text/javascript").send(body);
    });
  }
  router.use(
    "/assets",
    express.static(path.join(webDist, "assets"), { immutable: true, maxAge: "365d", index: false }),
  );
  // The icon every page links to; /favicon.ico answers browsers that ask without looking.
  router.get(["/favicon.svg", "/favicon.ico"], (_req, res, next) => {
    const file = path.join(webDist, "favicon.svg");
    if (!existsSync(file)) return next();
    res.setHeader("cache-control", "public, max-age=86400");
    res.type("image/svg+xml").sendFile(file);
  });
  const pages = new Map<string, string>();
  const page = (file: string) => {
    if (!pages.has(file) && existsSync(path.join(webDist, file)))
      pages.set(file, readFileSync(path.join(webDist, file), "utf8"));
    return pages.get(file) ?? NOT_BUILT;
  };
  router.get("/checkout/:clientSecret", (_req, res) => {
    res.setHeader("cache-control", "no-cache");
    res.type("html").send(page("checkout.html"));
  });
  // After paying without a success URL of the seller's. The link may carry the buyer's customer
  // session token: never cached, never sent on as a referrer.
  router.get("/checkout/:clientSecret/confirmation", (_req, res) => {
    res.setHeader("cache-control", "no-store");
    res.setHeader("referrer-policy", "no-referrer");
    res.type("html").send(page("confirmation.html"));
  });
  // The customer portal; the page reads its customer session token from the query string.
  router.get("/portal", (_req, res) => {
    res.setHeader("cache-control", "no-store");
    res.setHeader("referrer-policy", "no-referrer");
    res.type("html").send(page("portal.html"));
  });
  router.get(/^\/(?!v1\/|v1$|api\/|assets\/).*/, (req, res, next) => {
    if (!req.accepts("html") || path.extname(req.path)) return next();
    res.setHeader("cache-control", "no-cache");
    res.type("html").send(page("index.html"));
  });
  return router;
}
