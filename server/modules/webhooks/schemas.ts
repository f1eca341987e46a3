// Wire schemas for Polar's WebhookEndpoint(Create|Update), WebhookDelivery and WebhookEvent, and the
// list filters of /v1/webhooks/endpoints and /v1/webhooks/deliveries.
import { z } from "zod";
import { timestamped, timestampInput } from "../../lib/wire.ts";
import { WEBHOOK_EVENT_TYPES, WEBHOOK_FORMATS } from "./events.ts";
import type {
  webhookDeliveries,
  webhookEndpointEvents,
  webhookEndpoints,
} from "../../../db/schema/index.ts";

export type EndpointRow = typeof webhookEndpoints.$inferSelect;
export type EndpointEventRow = typeof webhookEndpointEvents.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export interface DeliveryRecord {
  delivery: DeliveryRow;
  event: EndpointEventRow;
}

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
  start_timestamp: timestampInput.optional(),
  end_timestamp: timestampInput.optional(),
  succeeded: booleanQuery.optional(),
  query: z.string().max(200).optional(),
  http_code_class: z.enum(["2xx", "3xx", "4xx", "5xx"]).optional(),
  event_type: oneOrMany(eventType).optional(),
});
export type DeliveryListQuery = z.output<typeof deliveryListQuery>;

export const endpointSchema = z
  .object({
    ...timestamped,
    url: z.string(),
    name: z.string().nullable(),
    format: z.enum(WEBHOOK_FORMATS),
    secret: z.string(),
    organization_id: z.uuid(),
    events: z.array(eventType),
    enabled: z.boolean(),
  })
  .meta({ id: "WebhookEndpoint" });
export type EndpointOut = z.output<typeof endpointSchema>;

export const webhookEventSchema = z
  .object({
    ...timestamped,
    last_http_code: z.number().int().nullable(),
    succeeded: z.boolean().nullable(),
    skipped: z.boolean(),
    payload: z.string().nullable(),
    type: eventType,
    is_archived: z.boolean(),
  })
  .meta({ id: "WebhookEvent" });
export type WebhookEventOut = z.output<typeof webhookEventSchema>;

export const deliverySchema = z
  .object({
    ...timestamped,
    succeeded: z.boolean(),
    http_code: z.number().int().nullable(),
    response: z.string().nullable(),
    webhook_event: webhookEventSchema,
  })
  .meta({ id: "WebhookDelivery" });
export type DeliveryOut = z.output<typeof deliverySchema>;

export function endpointOut(row: EndpointRow): EndpointOut {
  return {
    created_at: row.createdAt.toISOString(),
    modified_at: row.modifiedAt?.toISOString() ?? null,
    id: row.id,
    url: row.url,
    name: row.name,
    format: row.format,
    secret: row.secret,
    organization_id: row.organizationId,
    events: row.events as EndpointOut["events"],
    enabled: row.enabled,
  };
}

export function webhookEventOut(row: EndpointEventRow): WebhookEventOut {
  return {
    created_at: row.createdAt.toISOString(),
    modified_at: row.modifiedAt?.toISOString() ?? null,
    id: row.id,
    last_http_code: row.lastHttpCode,
    // null until an attempt was made; then whether the event has been delivered.
    succeeded: row.status === "succeeded" ? true : row.attempts === 0 ? null : false,
    skipped: row.status === "skipped",
    payload: row.payload,
    type: row.type as WebhookEventOut["type"],
    is_archived: row.archivedAt !== null,
  };
}

export function deliveryOut({ delivery, event }: DeliveryRecord): DeliveryOut {
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
