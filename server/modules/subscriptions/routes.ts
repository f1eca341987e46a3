// /v1/subscriptions
import { apiRouter, type Router } from "../../lib/api-router.ts";
import { z } from "zod";
import { authOf, type Guard } from "../../lib/auth-context.ts";
import { metadataQuery } from "../../lib/metadata.ts";
import { paginationQuery } from "../../lib/pagination.ts";
import { parseBody, parseParams, parseQuery } from "../../lib/validation.ts";
import { subscriptionListQuery, subscriptionUpdate } from "./schemas.ts";
import * as service from "./service.ts";
import { updateSubscription } from "./update.ts";
import { createFreeSubscription, subscriptionCreate } from "./create-free.ts";

const idParams = z.object({ id: z.uuid() });

export function subscriptionsRouter(deps: service.SubscriptionDeps, guard: Guard): Router {
  const r = apiRouter();
  r.get(["/subscriptions", "/subscriptions/"], guard("subscriptions:read"), async (req, res) => {
    res.json(
      await service.listSubscriptions(
        deps,
        authOf(req),
        parseQuery(subscriptionListQuery, req),
        parseQuery(paginationQuery, req),
        metadataQuery(req),
      ),
    );
  });
  r.post(["/subscriptions", "/subscriptions/"], guard("subscriptions:write"), async (req, res) => {
    const input = parseBody(subscriptionCreate, req);
    res.status(201).json(await createFreeSubscription(deps, authOf(req), input));
  });
  r.get("/subscriptions/:id", guard("subscriptions:read"), async (req, res) => {
    res.json(await service.getSubscription(deps, authOf(req), parseParams(idParams, req).id));
  });
  r.patch("/subscriptions/:id", guard("subscriptions:write"), async (req, res) => {
    res.json(
      await updateSubscription(
        deps,
        authOf(req),
        parseParams(idParams, req).id,
        parseBody(subscriptionUpdate, req),
      ),
    );
  });
  r.delete("/subscriptions/:id", guard("subscriptions:write"), async (req, res) => {
    res.json(
      await updateSubscription(deps, authOf(req), parseParams(idParams, req).id, {
        revoke: true,
      }),
    );
  });
  return r;
}
