// Webhook delivery state. An endpoint is where a seller wants events; an endpoint event (Polar's
// WebhookEvent, whose id is the `webhook-id` header) is one outbox event owed to one endpoint, with
// the exact bytes that are signed and sent; a delivery is one HTTP attempt and its answer.
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { organization, user } from "./auth.ts";
import { createdAt, id, modifiedAt, tstz } from "./columns.ts";
import { webhookEvents } from "./outbox.ts";

export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    id: id(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organization.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    name: text("name"),
    format: text("format").$type<"raw" | "discord" | "slack">().notNull().default("raw"),
    secret: text("secret").notNull(),
    events: text("events").array().notNull().default(sql`'{}'::text[]`),
    enabled: boolean("enabled").notNull().default(true),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
  },
  (t) => [index("webhook_endpoints_org_idx").on(t.organizationId, t.createdAt)],
);

export type EndpointEventStatus = "pending" | "succeeded" | "failed" | "skipped";

export const webhookEndpointEvents = pgTable(
  "webhook_endpoint_events",
  {
    id: id(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organization.id, { onDelete: "cascade" }),
    endpointId: uuid("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    eventId: uuid("event_id").references(() => webhookEvents.id, { onDelete: "set null" }),
    /** The outbox event's seq: the order events are owed to the endpoint in. */
    seq: bigint("seq", { mode: "number" }).notNull(),
    type: text("type").notNull(),
    /** The exact bytes that are signed and sent; null once archived. */
    payload: text("payload"),
    status: text("status").$type<EndpointEventStatus>().notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    lastHttpCode: integer("last_http_code"),
    archivedAt: tstz("archived_at"),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
  },
  (t) => [
    uniqueIndex("webhook_endpoint_events_event_endpoint_uq").on(t.eventId, t.endpointId),
    index("webhook_endpoint_events_endpoint_seq_idx").on(t.endpointId, t.seq),
    // The FIFO rule asks "is an older event of this endpoint still waiting for its first attempt?"
    index("webhook_endpoint_events_unattempted_idx")
      .on(t.endpointId, t.seq)
      .where(sql`${t.status} = 'pending' and ${t.attempts} = 0`),
    index("webhook_endpoint_events_created_idx").on(t.createdAt),
  ],
);

export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: id(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organization.id, { onDelete: "cascade" }),
    endpointId: uuid("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    webhookEventId: uuid("webhook_event_id")
      .notNull()
      .references(() => webhookEndpointEvents.id, { onDelete: "cascade" }),
    attempt: integer("attempt").notNull(),
    succeeded: boolean("succeeded").notNull(),
    httpCode: integer("http_code"),
    /** The first 2 KB of the response body, or the error when there was no response. */
    response: text("response"),
    durationMs: integer("duration_ms").notNull(),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
  },
  (t) => [
    index("webhook_deliveries_endpoint_created_idx").on(t.endpointId, t.createdAt),
    index("webhook_deliveries_org_created_idx").on(t.organizationId, t.createdAt),
    index("webhook_deliveries_event_idx").on(t.webhookEventId),
  ],
);

/** The secret `till listen` re-signs forwarded events with: one per user and organization. */
export const webhookListenSecrets = pgTable(
  "webhook_listen_secrets",
  {
    userId: uuid("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organization.id, { onDelete: "cascade" }),
    secret: text("secret").notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.organizationId] })],
);
