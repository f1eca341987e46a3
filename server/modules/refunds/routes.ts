// /v1/refunds
import { apiRouter, type Router } from "../../lib/api-router.ts";
import { authOf, type Guard } from "../../lib/auth-context.ts";
import { paginationQuery } from "../../lib/pagination.ts";
import { parseBody, parseQuery } from "../../lib/validation.ts";
import { refundCreate, refundListQuery } from "./schemas.ts";
import * as service from "./service.ts";

export function refundsRouter(deps: service.RefundDeps, guard: Guard): Router {
  const r = apiRouter();
  r.get(["/refunds", "/refunds/"], guard("refunds:read"), async (req, res) => {
    const page = parseQuery(paginationQuery, req);
    res.json(await service.listRefunds(deps, authOf(req), parseQuery(refundListQuery, req), page));
  });
  r.post(["/refunds", "/refunds/"], guard("refunds:write"), async (req, res) => {
    res
      .status(201)
      .json(await service.createRefund(deps, authOf(req), parseBody(refundCreate, req)));
  });
  return r;
}
