// /v1/webhooks: endpoints, the delivery log and redelivery. Thin: validate, one service call, answer.
import { apiRouter, type Router } from "../../lib/api-router.ts";
import { z } from "zod";
import { authOf, type Guard } from "../../lib/auth-context.ts";
import { paginationQuery } from "../../lib/pagination.ts";
import { parseBody, parseParams, parseQuery } from "../../lib/validation.ts";
import { deliveryListQuery, endpointCreate, endpointListQuery, endpointUpdate } from "./schemas.ts";
import * as service from "./service.ts";
import type { WebhookDeps } from "./service.ts";
import { streamRouter } from "./stream.ts";
import type { WebhooksRuntime } from "./jobs.ts";

const idParams = z.object({ id: z.uuid() });

export function webhooksRouter(
  base: Omit<WebhookDeps, "resolver">,
  runtime: WebhooksRuntime,
  guard: Guard,
): Router {
  const deps: WebhookDeps = { ...base, resolver: runtime.resolver };
  const r = apiRouter();
  r.use(
    streamRouter(
      { db: deps.db, clock: deps.clock, hub: runtime.hub, streams: runtime.streams },
      guard,
    ),
  );
  r.get(
    ["/webhooks/endpoints", "/webhooks/endpoints/"],
    guard("webhooks:read"),
    async (req, res) => {
      const page = parseQuery(paginationQuery, req);
      const { organization_id } = parseQuery(endpointListQuery, req);
      res.json(await service.listEndpoints(deps, authOf(req), organization_id, page));
    },
  );
  r.post(
    ["/webhooks/endpoints", "/webhooks/endpoints/"],
    guard("webhooks:write"),
    async (req, res) => {
      res
        .status(201)
        .json(await service.createEndpoint(deps, authOf(req), parseBody(endpointCreate, req)));
    },
  );
  r.get("/webhooks/endpoints/:id", guard("webhooks:read"), async (req, res) => {
    res.json(await service.getEndpoint(deps, authOf(req), parseParams(idParams, req).id));
  });
  r.patch("/webhooks/endpoints/:id", guard("webhooks:write"), async (req, res) => {
    const { id } = parseParams(idParams, req);
    res.json(await service.updateEndpoint(deps, authOf(req), id, parseBody(endpointUpdate, req)));
  });
  r.delete("/webhooks/endpoints/:id", guard("webhooks:write"), async (req, res) => {
    await service.deleteEndpoint(deps, authOf(req), parseParams(idParams, req).id);
    res.status(204).end();
  });
  r.patch("/webhooks/endpoints/:id/secret", guard("webhooks:write"), async (req, res) => {
    res.json(await service.resetSecret(deps, authOf(req), parseParams(idParams, req).id));
  });
  r.get(
    ["/webhooks/deliveries", "/webhooks/deliveries/"],
    guard("webhooks:read"),
    async (req, res) => {
      const page = parseQuery(paginationQuery, req);
      res.json(
        await service.listDeliveries(deps, authOf(req), parseQuery(deliveryListQuery, req), page),
      );
    },
  );
  r.post("/webhooks/events/:id/redeliver", guard("webhooks:write"), async (req, res) => {
    await service.redeliverEvent(deps, authOf(req), parseParams(idParams, req).id);
    res.status(202).json({});
  });
  return r;
}
