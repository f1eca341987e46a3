// /v1/meters
import { apiRouter, type Router } from "../../lib/api-router.ts";
import { z } from "zod";
import { authOf, type Guard } from "../../lib/auth-context.ts";
import { metadataQuery } from "../../lib/metadata.ts";
import { paginationQuery } from "../../lib/pagination.ts";
import { parseBody, parseParams, parseQuery } from "../../lib/validation.ts";
import { meterCreate, meterListQuery, meterUpdate, quantitiesQuery } from "./schemas.ts";
import * as service from "./service.ts";
import type { MeterDeps } from "./service.ts";

const idParams = z.object({ id: z.uuid() });

export function metersRouter(deps: MeterDeps, guard: Guard): Router {
  const r = apiRouter();
  const read = guard("meters:read");
  const write = guard("meters:write");
  r.get(["/meters", "/meters/"], read, async (req, res) => {
    const page = parseQuery(paginationQuery, req);
    res.json(
      await service.listMeters(
        deps,
        authOf(req),
        parseQuery(meterListQuery, req),
        metadataQuery(req),
        page,
      ),
    );
  });
  r.post(["/meters", "/meters/"], write, async (req, res) => {
    res.status(201).json(await service.createMeter(deps, authOf(req), parseBody(meterCreate, req)));
  });
  r.get("/meters/:id", read, async (req, res) => {
    res.json(await service.getMeter(deps, authOf(req), parseParams(idParams, req).id));
  });
  r.patch("/meters/:id", write, async (req, res) => {
    const { id } = parseParams(idParams, req);
    res.json(await service.updateMeter(deps, authOf(req), id, parseBody(meterUpdate, req)));
  });
  r.get("/meters/:id/quantities", read, async (req, res) => {
    const { id } = parseParams(idParams, req);
    res.json(
      await service.getQuantities(
        deps,
        authOf(req),
        id,
        parseQuery(quantitiesQuery, req),
        metadataQuery(req),
      ),
    );
  });
  return r;
}
