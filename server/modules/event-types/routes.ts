// /v1/event-types
import { apiRouter, type Router } from "../../lib/api-router.ts";
import { z } from "zod";
import { authOf, type Guard } from "../../lib/auth-context.ts";
import { paginationQuery } from "../../lib/pagination.ts";
import { parseBody, parseParams, parseQuery } from "../../lib/validation.ts";
import { eventTypeListQuery, eventTypeUpdate } from "./schemas.ts";
import * as service from "./service.ts";

const idParams = z.object({ id: z.uuid() });

export function eventTypesRouter(deps: service.EventTypeDeps, guard: Guard): Router {
  const r = apiRouter();
  r.get(
    ["/event-types", "/event-types/"],
    guard("events:read", "events:write"),
    async (req, res) => {
      const q = parseQuery(eventTypeListQuery, req);
      const page = parseQuery(paginationQuery, req);
      res.json(await service.listEventTypes(deps, authOf(req), q, page));
    },
  );
  r.patch("/event-types/:id", guard("events:write"), async (req, res) => {
    const { id } = parseParams(idParams, req);
    const body = parseBody(eventTypeUpdate, req);
    res.json(await service.updateEventType(deps, authOf(req), id, body));
  });
  return r;
}
