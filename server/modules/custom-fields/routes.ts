// /v1/custom-fields
import { apiRouter, type Router } from "../../lib/api-router.ts";
import { z } from "zod";
import { authOf, type Guard } from "../../lib/auth-context.ts";
import { paginationQuery } from "../../lib/pagination.ts";
import { parseBody, parseParams, parseQuery } from "../../lib/validation.ts";
import { customFieldCreate, customFieldListQuery, customFieldUpdate } from "./schemas.ts";
import * as service from "./service.ts";
import type { CustomFieldDeps } from "./service.ts";

const idParams = z.object({ id: z.uuid() });

export function customFieldsRouter(deps: CustomFieldDeps, guard: Guard): Router {
  const r = apiRouter();
  r.get(["/custom-fields", "/custom-fields/"], guard("custom_fields:read"), async (req, res) => {
    const page = parseQuery(paginationQuery, req);
    res.json(
      await service.listCustomFields(
        deps,
        authOf(req),
        parseQuery(customFieldListQuery, req),
        page,
      ),
    );
  });
  r.post(["/custom-fields", "/custom-fields/"], guard("custom_fields:write"), async (req, res) => {
    res
      .status(201)
      .json(await service.createCustomField(deps, authOf(req), parseBody(customFieldCreate, req)));
  });
  r.get("/custom-fields/:id", guard("custom_fields:read"), async (req, res) => {
    const { id } = parseParams(idParams, req);
    res.json(await service.getCustomField(deps, authOf(req), id));
  });
  r.patch("/custom-fields/:id", guard("custom_fields:write"), async (req, res) => {
    const { id } = parseParams(idParams, req);
    res.json(
      await service.updateCustomField(deps, authOf(req), id, parseBody(customFieldUpdate, req)),
    );
  });
  r.delete("/custom-fields/:id", guard("custom_fields:write"), async (req, res) => {
    const { id } = parseParams(idParams, req);
    await service.deleteCustomField(deps, authOf(req), id);
    res.status(204).end();
  });
  return r;
}
