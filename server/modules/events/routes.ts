// /v1/events: ingest (200 with counts, as Polar), list, names, get.
import { apiRouter, type Router } from "../../lib/api-router.ts";
import { z } from "zod";
import { authOf, type Guard } from "../../lib/auth-context.ts";
import { metadataQuery } from "../../lib/metadata.ts";
import { paginationQuery } from "../../lib/pagination.ts";
import { parseBody, parseParams, parseQuery } from "../../lib/validation.ts";
import { eventListQuery, eventNamesQuery, eventsIngest } from "./schemas.ts";
import * as service from "./service.ts";
import type { EventDeps } from "./service.ts";

const idParams = z.object({ id: z.uuid() });

export function eventsRouter(deps: EventDeps, guard: Guard): Router {
  const r = apiRouter();
  const read = guard("events:read");
  r.post(["/events/ingest", "/events/ingest/"], guard("events:write"), async (req, res) => {
    res
      .status(200)
      .json(await service.ingestEvents(deps, authOf(req), parseBody(eventsIngest, req).events));
  });
  r.get(["/events/names", "/events/names/"], read, async (req, res) => {
    const page = parseQuery(paginationQuery, req);
    res.json(
      await service.listEventNames(deps, authOf(req), parseQuery(eventNamesQuery, req), page),
    );
  });
  r.get(["/events", "/events/"], read, async (req, res) => {
    const page = parseQuery(paginationQuery, req);
    res.json(
      await service.listEvents(
        deps,
        authOf(req),
        parseQuery(eventListQuery, req),
        metadataQuery(req),
        page,
      ),
    );
  });
  r.get("/events/:id", read, async (req, res) => {
    res.json(await service.getEvent(deps, authOf(req), parseParams(idParams, req).id));
  });
  return r;
}
