// Wire schemas for Polar's EventType, EventTypeWithStats and EventTypeUpdate.
import { z } from "zod";
import { queryBoolean, queryList } from "../../lib/query.ts";
import { sortingSchema } from "../../lib/sorting.ts";
import { nullableTimestamp, timestamp, timestamped } from "../../lib/wire.ts";
import type { eventTypes } from "../../../db/schema/index.ts";

export const EVENT_TYPE_SORTS = [
  "name",
  "label",
  "occurrences",
  "first_seen",
  "last_seen",
] as const;
export type EventTypeSort = (typeof EVENT_TYPE_SORTS)[number];

export type EventTypeRow = typeof eventTypes.$inferSelect;
export type EventTypeStatsRow = EventTypeRow & {
  source: "system" | "user";
  occurrences: number;
  firstSeen: Date;
  lastSeen: Date;
};

export const eventTypeListQuery = z.object({
  organization_id: queryList(z.uuid()).optional(),
  customer_id: queryList(z.uuid()).optional(),
  external_customer_id: queryList(z.string()).optional(),
  query: z.string().optional(),
  root_events: queryBoolean.default(false),
  parent_id: z.uuid().optional(),
  source: z.enum(["system", "user"]).optional(),
  sorting: sortingSchema(EVENT_TYPE_SORTS, ["-last_seen"]),
});
export type EventTypeListQuery = z.output<typeof eventTypeListQuery>;

export const eventTypeUpdate = z
  .object({
    label: z.string().min(1).max(128),
    label_property_selector: z.string().min(1).max(256).nullish(),
  })
  .strict();
export type EventTypeUpdate = z.output<typeof eventTypeUpdate>;

export const eventTypeSchema = z
  .object({
    ...timestamped,
    name: z.string(),
    label: z.string(),
    label_property_selector: z.string().nullable(),
    organization_id: z.uuid(),
  })
  .meta({ id: "EventType" });
export type EventTypeOut = z.output<typeof eventTypeSchema>;

// Polar's id and timestamps are nullable here (a type seen only in events has no row); till's
// every listed type has its row.
export const eventTypeWithStatsSchema = z
  .object({
    ...eventTypeSchema.shape,
    created_at: timestamp,
    modified_at: nullableTimestamp,
    source: z.enum(["system", "user"]).meta({ id: "EventSource" }),
    occurrences: z.number().int(),
    first_seen: timestamp,
    last_seen: timestamp,
  })
  .meta({ id: "EventTypeWithStats" });
export type EventTypeWithStatsOut = z.output<typeof eventTypeWithStatsSchema>;

export function eventTypeOut(t: EventTypeRow): EventTypeOut {
  return {
    id: t.id,
    created_at: t.createdAt.toISOString(),
    modified_at: t.modifiedAt?.toISOString() ?? null,
    name: t.name,
    label: t.label ?? t.name,
    label_property_selector: t.labelPropertySelector,
    organization_id: t.organizationId,
  };
}

export function eventTypeWithStatsOut(s: EventTypeStatsRow): EventTypeWithStatsOut {
  return {
    ...eventTypeOut(s),
    source: s.source,
    occurrences: s.occurrences,
    first_seen: s.firstSeen.toISOString(),
    last_seen: s.lastSeen.toISOString(),
  };
}
