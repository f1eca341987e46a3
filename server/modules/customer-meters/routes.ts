// /v1/customer-meters: the seller's read of customers' meter balances.
import { apiRouter, type Router } from "../../lib/api-router.ts";
import { z } from "zod";
import { authOf, type Guard } from "../../lib/auth-context.ts";
import { paginationQuery } from "../../lib/pagination.ts";
import { parseParams, parseQuery } from "../../lib/validation.ts";
import { customerMeterListQuery } from "./schemas.ts";
import * as service from "./service.ts";

const idParams = z.object({ id: z.uuid() });

export function customerMetersRouter(deps: service.CustomerMeterDeps, guard: Guard): Router {
  const r = apiRouter();
  const read = guard("customer_meters:read");
  r.get(["/customer-meters", "/customer-meters/"], read, async (req, res) => {
    const q = parseQuery(customerMeterListQuery, req);
    const page = parseQuery(paginationQuery, req);
    res.json(await service.listCustomerMeters(deps, authOf(req), q, page));
  });
  r.get("/customer-meters/:id", read, async (req, res) => {
    res.json(await service.getCustomerMeter(deps, authOf(req), parseParams(idParams, req).id));
  });
  return r;
}
