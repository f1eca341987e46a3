// The operations of usage events and webhooks (endpoints and deliveries).
import { z } from "zod";
import {
  eventListQuery,
  eventNameSchema,
  eventNamesQuery,
  eventSchema,
  eventsIngest,
} from "../modules/events/schemas.ts";
import {
  deliveryListQuery,
  deliverySchema,
  endpointCreate,
  endpointListQuery,
  endpointSchema,
  endpointUpdate,
} from "../modules/webhooks/schemas.ts";
import { crud, idParams, metadataFilter, type Operation, operation } from "./registry.ts";

export const eventAndWebhookOperations: readonly Operation[] = [
  operation({
    method: "get",
    path: "/v1/events/",
    operationId: "events:list",
    summary: "List events",
    tag: "events",
    scopes: ["events:read", "events:write"],
    query: [eventListQuery, metadataFilter],
    list: eventSchema,
  }),
  operation({
    method: "get",
    path: "/v1/events/names",
    operationId: "events:list_names",
    summary: "List event names",
    tag: "events",
    scopes: ["events:read", "events:write"],
    query: [eventNamesQuery],
    list: eventNameSchema,
  }),
  operation({
    method: "get",
    path: "/v1/events/{id}",
    operationId: "events:get",
    summary: "Get event",
    tag: "events",
    scopes: ["events:read", "events:write"],
    params: idParams,
    response: eventSchema,
  }),
  operation({
    method: "post",
    path: "/v1/events/ingest",
    operationId: "events:ingest",
    summary: "Ingest events",
    tag: "events",
    scopes: ["events:write"],
    body: eventsIngest,
    response: z.object({ inserted: z.number().int(), duplicates: z.number().int() }),
  }),
  ...crud({
    tag: "webhooks",
    base: "/v1/webhooks/endpoints",
    prefix: "webhooks",
    noun: "webhook endpoint",
    model: endpointSchema,
    scope: "webhooks",
    list: [endpointListQuery],
    create: endpointCreate,
    update: endpointUpdate,
    remove: true,
  }).map((op) => ({
    ...op,
    // Polar's endpoint paths have no trailing slash, and its operationIds name the model.
    path: op.path.replace(/\/$/, ""),
    operationId: `webhooks:${op.operationId.split(":")[1]}_webhook_endpoint${op.operationId.endsWith("list") ? "s" : ""}`,
  })),
  operation({
    method: "patch",
    path: "/v1/webhooks/endpoints/{id}/secret",
    operationId: "webhooks:reset_webhook_endpoint_secret",
    summary: "Reset webhook endpoint secret",
    tag: "webhooks",
    scopes: ["webhooks:write"],
    params: idParams,
    response: endpointSchema,
  }),
  operation({
    method: "get",
    path: "/v1/webhooks/deliveries",
    operationId: "webhooks:list_webhook_deliveries",
    summary: "List webhook deliveries",
    tag: "webhooks",
    scopes: ["webhooks:read", "webhooks:write"],
    query: [deliveryListQuery],
    list: deliverySchema,
  }),
];
