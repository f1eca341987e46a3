// Wire schemas for Polar's EventsIngest, UserEvent, EventName and the event list filters.
import { z } from "zod";
import type { EventMetadata } from "../../../db/schema/index.ts";
import {
  METADATA_MAX_KEYS,
  METADATA_MAX_KEY_LENGTH,
  METADATA_MAX_STRING_LENGTH,
} from "../../lib/metadata.ts";
import { sortingSchema } from "../../lib/sorting.ts";
import { timestamp, timestampInput } from "../../lib/wire.ts";
import { customerSchema, type CustomerOut } from "../customers/schemas.ts";
import { boundedFilter } from "./filter.ts";

export const INGEST_BATCH_LIMIT = 1000;

// Meters sum these in double precision: a bound far above any usage figure keeps every sum of a
// billing period finite (two values of 1e308 would overflow and stop the period's renewal).
const EVENT_NUMBER_BOUND = 1e15;
const eventNumber = z
  .number()
  .min(-EVENT_NUMBER_BOUND, { error: "Numbers in event metadata are at least -1e15." })
  .max(EVENT_NUMBER_BOUND, { error: "Numbers in event metadata are at most 1e15." });
const eventValue = z.union([
  z.string().min(1).max(METADATA_MAX_STRING_LENGTH),
  eventNumber,
  z.boolean(),
]);

// `_cost` and `_llm` are structured keys Polar reads itself; every other value is flat.
const costMetadata = z.object({ amount: eventNumber, currency: z.string().min(3).max(3) });
const llmMetadata = z.record(
  z.string(),
  z.union([z.string().max(500), eventNumber, z.boolean(), z.null()]),
);
const eventMetadata = z
  .record(z.string(), z.unknown())
  .superRefine((m, ctx) => {
    const keys = Object.keys(m);
    if (keys.length > METADATA_MAX_KEYS)
      ctx.addIssue({ code: "custom", message: `Metadata has at most ${METADATA_MAX_KEYS} keys.` });
    for (const key of keys) {
      if (key.length < 1 || key.length > METADATA_MAX_KEY_LENGTH) {
        ctx.addIssue({
          code: "custom",
          path: [key],
          message: `Metadata keys are 1 to ${METADATA_MAX_KEY_LENGTH} characters.`,
        });
        continue;
      }
      const schema = key === "_cost" ? costMetadata : key === "_llm" ? llmMetadata : eventValue;
      const result = schema.safeParse(m[key]);
      if (!result.success) {
        for (const issue of result.error.issues)
          ctx.addIssue({ ...issue, path: [key, ...issue.path] } as never);
      }
    }
  })
  .transform((m) => m as EventMetadata);

const datetime = timestampInput;

export const eventCreate = z
  .object({
    name: z.string().min(1).max(128),
    timestamp: datetime.optional(),
    organization_id: z.uuid().nullish(),
    external_id: z.string().min(1).max(256).nullish(),
    parent_id: z.string().min(1).max(256).nullish(),
    metadata: eventMetadata.optional(),
    customer_id: z.uuid().optional(),
    external_customer_id: z.string().min(1).max(256).optional(),
    member_id: z.uuid().nullish(),
    external_member_id: z.string().max(256).nullish(),
  })
  .superRefine((e, ctx) => {
    if (e.customer_id === undefined && e.external_customer_id === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["customer_id"],
        message: "Field required: give customer_id or external_customer_id.",
        input: undefined,
      });
    } else if (e.customer_id !== undefined && e.external_customer_id !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["external_customer_id"],
        message: "Give customer_id or external_customer_id, not both.",
      });
    }
  });
export type EventCreate = z.output<typeof eventCreate>;

export const eventsIngest = z.object({
  events: z
    .array(eventCreate)
    .max(
      INGEST_BATCH_LIMIT,
      `A batch holds at most ${INGEST_BATCH_LIMIT} events; split it into several requests.`,
    ),
});

const many = <T extends z.ZodType>(s: T) =>
  z
    .union([s, z.array(s)])
    .optional()
    .transform((v) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]));

const jsonFilter = z
  .string()
  .transform((s, ctx) => {
    try {
      return JSON.parse(s) as unknown;
    } catch {
      ctx.addIssue({ code: "custom", message: "filter must be a JSON object." });
      return z.NEVER;
    }
  })
  .pipe(boundedFilter);

export const eventListQuery = z.object({
  organization_id: many(z.uuid()),
  customer_id: many(z.uuid()),
  external_customer_id: many(z.string().min(1)),
  name: many(z.string().min(1)),
  source: many(z.enum(["system", "user"])),
  query: z.string().optional(),
  start_timestamp: datetime.optional(),
  end_timestamp: datetime.optional(),
  meter_id: z.uuid().optional(),
  parent_id: z.uuid().optional(),
  filter: jsonFilter.optional(),
  sorting: sortingSchema(["timestamp"] as const, ["-timestamp"]),
});
export type EventListQuery = z.output<typeof eventListQuery>;

export const eventNamesQuery = z.object({
  organization_id: many(z.uuid()),
  customer_id: many(z.uuid()),
  external_customer_id: many(z.string().min(1)),
  source: many(z.enum(["system", "user"])),
  query: z.string().optional(),
  sorting: sortingSchema(["name", "occurrences", "first_seen", "last_seen"] as const, [
    "-last_seen",
  ]),
});
export type EventNamesQuery = z.output<typeof eventNamesQuery>;

export interface EventRecord {
  id: string;
  organizationId: string;
  name: string;
  source: "system" | "user";
  timestamp: Date;
  customerId: string | null;
  externalCustomerId: string | null;
  memberId: string | null;
  externalMemberId: string | null;
  parentId: string | null;
  metadata: EventMetadata;
  childCount: number;
}

export const eventSchema = z
  .object({
    id: z.uuid(),
    timestamp,
    organization_id: z.uuid(),
    customer_id: z.uuid().nullable(),
    customer: customerSchema.nullable(),
    external_customer_id: z.string().nullable(),
    member_id: z.uuid().nullable(),
    external_member_id: z.string().nullable(),
    child_count: z.number().int(),
    parent_id: z.uuid().nullable(),
    label: z.string(),
    name: z.string(),
    source: z.enum(["system", "user"]),
    metadata: z.record(z.string(), z.unknown()),
  })
  .meta({ id: "Event" });
export type EventOut = z.output<typeof eventSchema>;

export const eventNameSchema = z
  .object({
    name: z.string(),
    label: z.string(),
    source: z.enum(["system", "user"]),
    occurrences: z.number().int(),
    first_seen: timestamp,
    last_seen: timestamp,
  })
  .meta({ id: "EventName" });

export function eventOut(e: EventRecord, customer: CustomerOut | null): EventOut {
  return {
    id: e.id,
    timestamp: e.timestamp.toISOString(),
    organization_id: e.organizationId,
    customer_id: e.customerId,
    customer,
    external_customer_id: e.externalCustomerId,
    member_id: e.memberId,
    external_member_id: e.externalMemberId,
    child_count: e.childCount,
    parent_id: e.parentId,
    label: e.name,
    name: e.name,
    source: e.source,
    metadata: e.metadata,
  };
}

export interface EventNameRecord {
  name: string;
  source: "system" | "user";
  occurrences: number;
  firstSeen: Date;
  lastSeen: Date;
}

export function eventNameOut(n: EventNameRecord): z.output<typeof eventNameSchema> {
  return {
    name: n.name,
    label: n.name,
    source: n.source,
    occurrences: n.occurrences,
    first_seen: n.firstSeen.toISOString(),
    last_seen: n.lastSeen.toISOString(),
  };
}
