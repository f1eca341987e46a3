// /v1/disputes: chargebacks of the organization's payments, and accepting one.
import { z } from "zod";
import { apiRouter, type Router } from "../../lib/api-router.ts";
import { authOf, type Guard } from "../../lib/auth-context.ts";
import { paginationQuery } from "../../lib/pagination.ts";
import { parseParams, parseQuery } from "../../lib/validation.ts";
import type { DisputeDeps } from "./apply.ts";
import { disputeListQuery } from "./schemas.ts";
import { acceptDispute, getDispute, listDisputes } from "./service.ts";

const idParams = z.object({ id: z.uuid() });

export function disputesRouter(deps: DisputeDeps, guard: Guard): Router {
  const r = apiRouter();
  const read = guard("disputes:read", "disputes:write");
  r.get(["/disputes", "/disputes/"], read, async (req, res) => {
    const page = parseQuery(paginationQuery, req);
    res.json(await listDisputes(deps.db, authOf(req), parseQuery(disputeListQuery, req), page));
  });
  r.get("/disputes/:id", read, async (req, res) => {
    const { id } = parseParams(idParams, req);
    res.json(await getDispute(deps.db, authOf(req), id));
  });
  r.post("/disputes/:id/accept", guard("disputes:write"), async (req, res) => {
    const { id } = parseParams(idParams, req);
    res.json(await acceptDispute(deps, authOf(req), id));
  });
  return r;
}
