// Wire schemas for Polar's WebhookEndpoint(Create|Update), WebhookDelivery and WebhookEvent, and the
// list filters of /v1/webhooks/endpoints and /v1/webhooks/deliveries.
import { z } from "zod";
import { WEBHOOK_EVENT_TYPES, WEBHOOK_FORMATS } from "./events.ts";
import type { DeliveryRecord, EndpointEventRow, EndpointRow } from "./repository.ts";

const eventType = z.enum(WEBHOOK_EVENT_TYPES);
const url = z.string().min(1).max(2083);
const oneOrMany = <T extends z.ZodType>(item: T) =>
  z.union([item, z.array(item)]).transform((v) => (Array.isArray(v) ? v : [v]));
const booleanQuery = z
  .enum(["true", "false", "1", "0"])
  .transform((v) => v === "true" || v === "1");

export const endpointCreate = z.object({
  url,
  name: z.string().max(200).nullish(),
  format: z.enum(WEBHOOK_FORMATS),
  events: z.array(eventType),
  organization_id: z.uuid().nullish(),
});
export type EndpointCreate = z.output<typeof endpointCreate>;

export const endpointUpdate = z.object({
  url: url.nullish(),
  name: z.string().max(200).nullish(),
  format: z.enum(WEBHOOK_FORMATS).nullish(),
  events: z.array(eventType).nullish(),
  enabled: z.boolean().nullish(),
});
export type EndpointUpdate = z.output<typeof endpointUpdate>;

export const endpointListQuery = z.object({
  organization_id: oneOrMany(z.uuid()).optional(),
});

export const deliveryListQuery = z.object({
  endpoint_id: oneOrMany(z.uuid()).optional(),
  start_timestamp: z.iso.datetime({ offset: true }).optional(),
  end_timestamp: z.iso.datetime({ offset: true }).optional(),
  succeeded: booleanQuery.optional(),
  query: z.string().max(200).optional(),
  http_code_class: z.enum(["2xx", "3xx", "4xx", "5xx"]).optional(),
  event_type: oneOrMany(eventType).optional(),
});
export type DeliveryListQuery = z.output<typeof deliveryListQuery>;

export function endpointOut(row: EndpointRow) {
  return {
    created_at: row.createdAt.toISOString(),
    modified_at: row.modifiedAt?.toISOString() ?? null,
    id: row.id,
    url: row.url,
    name: row.name,
    format: row.format,
    secret: row.secret,
    organization_id: row.organizationId,
    events: row.events,
    enabled: row.enabled,
  };
}

export function webhookEventOut(row: EndpointEventRow) {
  return {
    created_at: row.createdAt.toISOString(),
    modified_at: row.modifiedAt?.toISOString() ?? null,
    id: row.id,
    last_http_code: row.lastHttpCode,
    // null until an attempt was made; then whether the event has been delivered.
    succeeded: row.status === "succeeded" ? true : row.attempts === 0 ? null : false,
    skipped: row.status === "skipped",
    payload: row.payload,
    type: row.type,
    is_archived: row.archivedAt !== null,
  };
}

export function deliveryOut({ delivery, event }: DeliveryRecord) {
  return {
    created_at: delivery.createdAt.toISOString(),
    modified_at: delivery.modifiedAt?.toISOString() ?? null,
    id: delivery.id,
    succeeded: delivery.succeeded,
    http_code: delivery.httpCode,
    response: delivery.response,
    webhook_event: webhookEventOut(event),
  };
}
