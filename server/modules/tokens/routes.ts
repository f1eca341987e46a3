// /v1/organization-access-tokens
import { apiRouter, type Router } from "../../lib/api-router.ts";
import { z } from "zod";
import { authOf, type Guard } from "../../lib/auth-context.ts";
import { paginationQuery } from "../../lib/pagination.ts";
import { parseBody, parseParams, parseQuery } from "../../lib/validation.ts";
import { tokenCreate, tokenListQuery, tokenUpdate } from "./schemas.ts";
import * as service from "./service.ts";
import type { TokenDeps } from "./service.ts";

const idParams = z.object({ id: z.uuid() });

export function tokensRouter(deps: TokenDeps, guard: Guard): Router {
  const r = apiRouter();
  r.get(
    ["/organization-access-tokens", "/organization-access-tokens/"],
    guard(),
    async (req, res) => {
      const page = parseQuery(paginationQuery, req);
      const { organization_id } = parseQuery(tokenListQuery, req);
      res.json(await service.listTokens(deps, authOf(req), organization_id, page));
    },
  );
  r.post(
    ["/organization-access-tokens", "/organization-access-tokens/"],
    guard(),
    async (req, res) => {
      res
        .status(201)
        .json(await service.createToken(deps, authOf(req), parseBody(tokenCreate, req)));
    },
  );
  r.patch("/organization-access-tokens/:id", guard(), async (req, res) => {
    const { id } = parseParams(idParams, req);
    res.json(await service.updateToken(deps, authOf(req), id, parseBody(tokenUpdate, req)));
  });
  r.delete("/organization-access-tokens/:id", guard(), async (req, res) => {
    const { id } = parseParams(idParams, req);
    await service.deleteToken(deps, authOf(req), id);
    res.status(204).end();
  });
  return r;
}
