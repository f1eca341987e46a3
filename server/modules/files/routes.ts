// /v1/files (authenticated API) and /storage (signed part uploads, public media), the latter mounted
// before the JSON parser so part bodies stream to storage untouched.
import { apiRouter, type Router } from "../../lib/api-router.ts";
import { z } from "zod";
import { authOf, type Guard } from "../../lib/auth-context.ts";
import { paginationQuery } from "../../lib/pagination.ts";
import { parseBody, parseParams, parseQuery } from "../../lib/validation.ts";
import { queryInt } from "../../lib/query.ts";
import { fileCreate, fileListQuery, filePatch, fileUploadCompleted } from "./schemas.ts";
import * as service from "./service.ts";
import type { FileDeps } from "./service.ts";

const idParams = z.object({ id: z.uuid() });
const partParams = z.object({ id: z.uuid(), number: queryInt({ min: 1, max: 10000 }) });
const signedQuery = z.object({ expires: z.string(), signature: z.string() });

export function filesRouter(deps: FileDeps, guard: Guard): Router {
  const r = apiRouter();
  r.get(["/files", "/files/"], guard("files:read"), async (req, res) => {
    const page = parseQuery(paginationQuery, req);
    res.json(await service.listFiles(deps, authOf(req), parseQuery(fileListQuery, req), page));
  });
  r.post(["/files", "/files/"], guard("files:write"), async (req, res) => {
    res.status(201).json(await service.createFile(deps, authOf(req), parseBody(fileCreate, req)));
  });
  r.post("/files/:id/uploaded", guard("files:write"), async (req, res) => {
    const { id } = parseParams(idParams, req);
    res.json(
      await service.completeUpload(deps, authOf(req), id, parseBody(fileUploadCompleted, req)),
    );
  });
  r.patch("/files/:id", guard("files:write"), async (req, res) => {
    const { id } = parseParams(idParams, req);
    res.json(await service.updateFile(deps, authOf(req), id, parseBody(filePatch, req)));
  });
  r.delete("/files/:id", guard("files:write"), async (req, res) => {
    const { id } = parseParams(idParams, req);
    await service.deleteFile(deps, authOf(req), id);
    res.status(204).end();
  });
  return r;
}

export function storageRouter(deps: FileDeps): Router {
  const r = apiRouter();
  r.put("/storage/uploads/:id/:number", async (req, res) => {
    const { id, number } = parseParams(partParams, req);
    const part = await service.receivePart(deps, id, number, parseQuery(signedQuery, req), req);
    res.set("ETag", part.etag).set("Access-Control-Expose-Headers", "ETag").status(200).end();
  });
  r.get("/storage/public/:id/:name", async (req, res) => {
    const { id } = parseParams(idParams.extend({ name: z.string() }), req);
    const file = await service.openPublicFile(deps, id);
    res.set({
      "content-type": file.row.mimeType,
      "content-length": String(file.size),
      "cache-control": "public, max-age=3600",
      "x-content-type-options": "nosniff",
      // SVGs can carry scripts: never let them run in our origin.
      "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; sandbox",
    });
    file.stream.pipe(res);
  });
  return r;
}
