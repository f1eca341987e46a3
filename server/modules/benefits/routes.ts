// /v1/benefits
import { apiRouter, type Router } from "../../lib/api-router.ts";
import { z } from "zod";
import { authOf, type Guard } from "../../lib/auth-context.ts";
import { metadataQuery } from "../../lib/metadata.ts";
import { paginationQuery } from "../../lib/pagination.ts";
import { parseBody, parseParams, parseQuery } from "../../lib/validation.ts";
import { benefitGrantListQuery } from "../grants/schemas.ts";
import { benefitCreate, benefitListQuery, benefitUpdate } from "./schemas.ts";
import * as grants from "./grants.ts";
import * as service from "./service.ts";
import type { BenefitDeps } from "./service.ts";

const idParams = z.object({ id: z.uuid() });

export function benefitsRouter(deps: BenefitDeps, guard: Guard): Router {
  const r = apiRouter();
  r.get(["/benefits", "/benefits/"], guard("benefits:read"), async (req, res) => {
    const page = parseQuery(paginationQuery, req);
    res.json(
      await service.listBenefits(
        deps,
        authOf(req),
        parseQuery(benefitListQuery, req),
        metadataQuery(req),
        page,
      ),
    );
  });
  r.post(["/benefits", "/benefits/"], guard("benefits:write"), async (req, res) => {
    res
      .status(201)
      .json(await service.createBenefit(deps, authOf(req), parseBody(benefitCreate, req)));
  });
  r.get("/benefits/:id", guard("benefits:read"), async (req, res) => {
    const { id } = parseParams(idParams, req);
    res.json(await service.getBenefit(deps, authOf(req), id));
  });
  r.patch("/benefits/:id", guard("benefits:write"), async (req, res) => {
    const { id } = parseParams(idParams, req);
    res.json(await service.updateBenefit(deps, authOf(req), id, parseBody(benefitUpdate, req)));
  });
  r.delete("/benefits/:id", guard("benefits:write"), async (req, res) => {
    const { id } = parseParams(idParams, req);
    await grants.deleteBenefit(deps, authOf(req), id);
    res.status(204).end();
  });
  r.get("/benefits/:id/grants", guard("benefits:read"), async (req, res) => {
    const { id } = parseParams(idParams, req);
    const page = parseQuery(paginationQuery, req);
    res.json(
      await grants.listGrants(deps, authOf(req), id, parseQuery(benefitGrantListQuery, req), page),
    );
  });
  return r;
}
