// Wire schemas for Polar's Meter, MeterCreate, MeterUpdate, the list filters and MeterQuantities.
import { z } from "zod";
import { isTimeZoneName } from "../../lib/timezone.ts";
import { metadataInput } from "../../lib/metadata.ts";
import { sortingSchema } from "../../lib/sorting.ts";
import {
  metadataOut,
  nullableTimestamp,
  timestamp,
  timestamped,
  timestampInput,
} from "../../lib/wire.ts";
import { aggregationSchema, boundedFilter, filterSchema } from "../events/filter.ts";
import type { MeterRow } from "./repository.ts";

const unit = z.enum(["scalar", "token", "custom"]);
const customMultiplier = z.number().int().min(1);

export const meterCreate = z
  .object({
    name: z.string().min(3).max(256),
    unit: unit.default("scalar"),
    custom_label: z.string().min(1).max(64).nullish(),
    custom_multiplier: customMultiplier.nullish(),
    filter: boundedFilter,
    aggregation: aggregationSchema,
    metadata: metadataInput.optional(),
    organization_id: z.uuid().nullish(),
  })
  .superRefine((m, ctx) => {
    if (m.unit === "custom" && !m.custom_label)
      ctx.addIssue({
        code: "custom",
        path: ["custom_label"],
        message: "Required when unit is custom.",
      });
  });

export const meterUpdate = z.object({
  name: z.string().min(3).max(256).nullish(),
  unit: unit.nullish(),
  custom_label: z.string().min(1).max(64).nullish(),
  custom_multiplier: customMultiplier.nullish(),
  filter: boundedFilter.nullish(),
  aggregation: aggregationSchema.nullish(),
  metadata: metadataInput.optional(),
  is_archived: z.boolean().nullish(),
});

export type MeterCreate = z.output<typeof meterCreate>;
export type MeterUpdate = z.output<typeof meterUpdate>;

const boolString = z.enum(["true", "false"]).transform((v) => v === "true");
const many = <T extends z.ZodType>(s: T) =>
  z
    .union([s, z.array(s)])
    .optional()
    .transform((v) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]));

export const meterListQuery = z.object({
  organization_id: many(z.uuid()),
  query: z.string().optional(),
  is_archived: boolString.optional(),
  sorting: sortingSchema(["created_at", "name"] as const, ["name"]),
});
export type MeterListQuery = z.output<typeof meterListQuery>;

const timezone = z
  .string()
  .min(1)
  .refine(isTimeZoneName, "must be an IANA time zone such as UTC or Europe/Paris")
  .default("UTC");

export const INTERVALS = ["hour", "day", "week", "month", "year"] as const;
export const MAX_BUCKETS = 10_000;

export const quantitiesQuery = z
  .object({
    start_timestamp: timestampInput,
    end_timestamp: timestampInput,
    interval: z.enum(INTERVALS),
    timezone,
    customer_id: many(z.uuid()),
    external_customer_id: many(z.string().min(1)),
    customer_aggregation_function: z
      .never({ message: "customer_aggregation_function is not supported yet." })
      .optional(),
  })
  .superRefine((q, ctx) => {
    const start = Date.parse(q.start_timestamp);
    const end = Date.parse(q.end_timestamp);
    if (end < start)
      ctx.addIssue({
        code: "custom",
        path: ["end_timestamp"],
        message: "end_timestamp must not be before start_timestamp.",
      });
    const hours = { hour: 1, day: 24, week: 168, month: 672, year: 8736 }[q.interval];
    if ((end - start) / 3_600_000 / hours > MAX_BUCKETS) {
      ctx.addIssue({
        code: "custom",
        path: ["interval"],
        message: `At most ${MAX_BUCKETS} buckets: use a longer interval or a shorter period.`,
      });
    }
  });
export type QuantitiesQuery = z.output<typeof quantitiesQuery>;

export const meterQuantitiesSchema = z
  .object({
    quantities: z.array(
      z.object({ timestamp, quantity: z.number() }).meta({ id: "MeterQuantity" }),
    ),
    total: z.number(),
  })
  .meta({ id: "MeterQuantities" });
export type MeterQuantitiesOut = z.output<typeof meterQuantitiesSchema>;

export const meterSchema = z
  .object({
    ...timestamped,
    metadata: metadataOut,
    name: z.string(),
    unit,
    custom_label: z.string().nullable(),
    custom_multiplier: z.number().int().nullable(),
    filter: filterSchema,
    aggregation: aggregationSchema,
    organization_id: z.uuid(),
    archived_at: nullableTimestamp,
  })
  .meta({ id: "Meter" });
export type MeterOut = z.output<typeof meterSchema>;

export function meterOut(m: MeterRow): MeterOut {
  return {
    metadata: m.metadata,
    created_at: m.createdAt.toISOString(),
    modified_at: m.modifiedAt?.toISOString() ?? null,
    id: m.id,
    name: m.name,
    unit: m.unit as MeterOut["unit"],
    custom_label: m.customLabel,
    custom_multiplier: m.customMultiplier,
    filter: m.filter,
    aggregation: m.aggregation,
    organization_id: m.organizationId,
    archived_at: m.archivedAt?.toISOString() ?? null,
  };
}
