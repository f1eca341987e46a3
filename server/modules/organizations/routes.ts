// /v1/organizations
import { apiRouter, type Router } from "../../lib/api-router.ts";
import { z } from "zod";
import { authOf, type Guard } from "../../lib/auth-context.ts";
import { paginationQuery } from "../../lib/pagination.ts";
import { parseBody, parseParams, parseQuery } from "../../lib/validation.ts";
import { organizationCreate, organizationListQuery, organizationUpdate } from "./schemas.ts";
import * as service from "./service.ts";
import type { OrganizationDeps } from "./service.ts";

const idParams = z.object({ id: z.uuid() });

export function organizationsRouter(deps: OrganizationDeps, guard: Guard): Router {
  const r = apiRouter();
  r.get(["/organizations", "/organizations/"], guard("organizations:read"), async (req, res) => {
    const page = parseQuery(paginationQuery, req);
    res.json(
      await service.listOrganizations(
        deps,
        authOf(req),
        parseQuery(organizationListQuery, req),
        page,
      ),
    );
  });
  r.post(["/organizations", "/organizations/"], guard("organizations:write"), async (req, res) => {
    res
      .status(201)
      .json(
        await service.createOrganization(deps, authOf(req), parseBody(organizationCreate, req)),
      );
  });
  r.get("/organizations/:id", guard("organizations:read"), async (req, res) => {
    const { id } = parseParams(idParams, req);
    res.json(await service.getOrganization(deps, authOf(req), id));
  });
  r.patch("/organizations/:id", guard("organizations:write"), async (req, res) => {
    const { id } = parseParams(idParams, req);
    res.json(
      await service.updateOrganization(deps, authOf(req), id, parseBody(organizationUpdate, req)),
    );
  });
  return r;
}
