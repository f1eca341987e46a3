// GET /v1/openapi.json and GET /docs: public, built once per app from the registered operations.
import { Router } from "express";
import { apiRouter } from "../lib/api-router.ts";
import { renderDocsPage } from "./docs-page.ts";
import { buildOpenApi, type OpenApiDocument } from "./document.ts";
import { operations } from "./operations.ts";

/** `api` is mounted under /v1, `docs` at the root. */
export function openApiRouters(baseUrl: string): { api: Router; docs: Router } {
  // Converting every schema takes some milliseconds: only when first asked, then kept.
  let doc: OpenApiDocument | null = null;
  let html: string | null = null;
  const document = () => (doc ??= buildOpenApi(operations, baseUrl));
  const api = apiRouter();
  api.get("/openapi.json", (_req, res) => {
    res.json(document());
  });
  const docs = Router();
  docs.get(["/docs", "/docs/"], (_req, res) => {
    html ??= renderDocsPage(document());
    res.type("html").send(html);
  });
  return { api, docs };
}
