// /v1/discounts
import { apiRouter, type Router } from "../../lib/api-router.ts";
import { z } from "zod";
import { authOf, type Guard } from "../../lib/auth-context.ts";
import { paginationQuery } from "../../lib/pagination.ts";
import { parseBody, parseParams, parseQuery } from "../../lib/validation.ts";
import { discountCreate, discountListQuery, discountUpdate } from "./schemas.ts";
import * as service from "./service.ts";
import type { DiscountDeps } from "./service.ts";

const idParams = z.object({ id: z.uuid() });

export function discountsRouter(deps: DiscountDeps, guard: Guard): Router {
  const r = apiRouter();
  r.get(["/discounts", "/discounts/"], guard("discounts:read"), async (req, res) => {
    const page = parseQuery(paginationQuery, req);
    res.json(
      await service.listDiscounts(deps, authOf(req), parseQuery(discountListQuery, req), page),
    );
  });
  r.post(["/discounts", "/discounts/"], guard("discounts:write"), async (req, res) => {
    res
      .status(201)
      .json(await service.createDiscount(deps, authOf(req), parseBody(discountCreate, req)));
  });
  r.get("/discounts/:id", guard("discounts:read"), async (req, res) => {
    const { id } = parseParams(idParams, req);
    res.json(await service.getDiscount(deps, authOf(req), id));
  });
  r.patch("/discounts/:id", guard("discounts:write"), async (req, res) => {
    const { id } = parseParams(idParams, req);
    res.json(await service.updateDiscount(deps, authOf(req), id, parseBody(discountUpdate, req)));
  });
  r.delete("/discounts/:id", guard("discounts:write"), async (req, res) => {
    const { id } = parseParams(idParams, req);
    await service.deleteDiscount(deps, authOf(req), id);
    res.status(204).end();
  });
  return r;
}
