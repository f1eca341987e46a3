// /v1/orders
import { apiRouter, type Router } from "../../lib/api-router.ts";
import { z } from "zod";
import { authOf, type Guard } from "../../lib/auth-context.ts";
import { metadataQuery } from "../../lib/metadata.ts";
import { scopeOfCaller } from "../../lib/org-scope.ts";
import { paginationQuery } from "../../lib/pagination.ts";
import { parseParams, parseQuery } from "../../lib/validation.ts";
import { orderListQuery } from "./schemas.ts";
import * as service from "./service.ts";

const idParams = z.object({ id: z.uuid() });

export function ordersRouter(deps: service.OrderDeps, guard: Guard): Router {
  const r = apiRouter();
  r.get(["/orders", "/orders/"], guard("orders:read"), async (req, res) => {
    res.json(
      await service.listOrders(
        deps,
        authOf(req),
        parseQuery(orderListQuery, req),
        parseQuery(paginationQuery, req),
        metadataQuery(req),
      ),
    );
  });
  r.get("/orders/:id", guard("orders:read"), async (req, res) => {
    res.json(
      await service.getOrder(deps, scopeOfCaller(authOf(req)), parseParams(idParams, req).id),
    );
  });
  return r;
}
