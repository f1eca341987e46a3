// /v1/benefit-grants/ (Polar's list), /v1/benefit-grants/{id}/downloadables (till's: signed download
// URLs of a downloadables grant, for the seller to hand to the customer until customer sessions
// exist), /v1/benefits/{id}/files (a downloadables benefit's files with download counts), and the
// public /v1/downloads/{grant}/{file} that the signed URLs point at.
import { apiRouter, type Router } from "../../lib/api-router.ts";
import { z } from "zod";
import { authOf, type Guard } from "../../lib/auth-context.ts";
import { paginationQuery } from "../../lib/pagination.ts";
import { parseParams, parseQuery } from "../../lib/validation.ts";
import {
  listBenefitFiles,
  listDownloadables,
  openDownload,
  type DownloadDeps,
} from "./downloads.ts";
import { grantListQuery } from "./schemas.ts";
import { listGrants } from "./service.ts";

const idParams = z.object({ id: z.uuid() });
const downloadParams = z.object({ grant_id: z.uuid(), file_id: z.uuid() });

export function grantsRouter(deps: DownloadDeps, guard: Guard): Router {
  const r = apiRouter();
  r.get(["/benefit-grants", "/benefit-grants/"], guard("benefits:read"), async (req, res) => {
    const page = parseQuery(paginationQuery, req);
    res.json(await listGrants(deps.files, authOf(req), parseQuery(grantListQuery, req), page));
  });
  r.get("/benefit-grants/:id/downloadables", guard("benefits:read"), async (req, res) => {
    const { id } = parseParams(idParams, req);
    res.json(await listDownloadables(deps, authOf(req), id));
  });
  r.get("/benefits/:id/files", guard("benefits:read", "benefits:write"), async (req, res) => {
    const { id } = parseParams(idParams, req);
    res.json(await listBenefitFiles(deps, authOf(req), id, parseQuery(paginationQuery, req)));
  });
  r.get("/downloads/:grant_id/:file_id", async (req, res) => {
    const { grant_id, file_id } = parseParams(downloadParams, req);
    const file = await openDownload(deps, grant_id, file_id, req.query);
    res.status(200);
    res.setHeader("content-type", file.row.mimeType);
    res.setHeader("content-length", String(file.size));
    res.setHeader(
      "content-disposition",
      `attachment; filename*=UTF-8''${encodeURIComponent(file.row.name)}`,
    );
    res.setHeader("cache-control", "private, no-store");
    file.stream.pipe(res);
  });
  return r;
}
