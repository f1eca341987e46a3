// /v1/orders/ (POST: a draft order) and /v1/orders/{id}/finalize; reads stay in the orders module.
import { z } from "zod";
import { apiRouter, type Router } from "../../lib/api-router.ts";
import { authOf, type Guard } from "../../lib/auth-context.ts";
import { parseBody, parseParams } from "../../lib/validation.ts";
import { orderCreate, orderFinalize } from "./schemas.ts";
import * as service from "./service.ts";

const idParams = z.object({ id: z.uuid() });

export function draftOrdersRouter(deps: service.DraftOrderDeps, guard: Guard): Router {
  const r = apiRouter();
  r.post(["/orders", "/orders/"], guard("orders:write"), async (req, res) => {
    const body = parseBody(orderCreate, req);
    res.status(201).json(await service.createDraftOrder(deps, authOf(req), body));
  });
  r.post("/orders/:id/finalize", guard("orders:write"), async (req, res) => {
    const { id } = parseParams(idParams, req);
    const body = parseBody(orderFinalize, req);
    res.json(await service.finalizeOrder(deps, authOf(req), id, body));
  });
  return r;
}
