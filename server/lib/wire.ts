// Building blocks of response schemas: Polar's timestamps, ids and metadata as zod, so every
// module's response models spell them the same way and the OpenAPI document names them once.
import { z } from "zod";

/** RFC 3339 with offset, as serializers write `Date#toISOString()`. */
export const timestamp = z.iso.datetime({ offset: true });
export const nullableTimestamp = timestamp.nullable();

/**
 * A date-time a request sends: RFC 3339 with offset, in the years 1000 to 9999. PostgreSQL has no
 * year 0, and a year below 1000 would not read back as written.
 */
export const timestampInput = z.iso.datetime({ offset: true }).refine(
  (v) => {
    const year = new Date(v).getUTCFullYear();
    // Not a date-time at all: the format check says so, alone.
    return Number.isNaN(year) || (year >= 1000 && year <= 9999);
  },
  { message: "The date-time must be in the years 1000 to 9999." },
);
export const id = z.uuid();

export const metadataOut = z
  .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
  .meta({ id: "MetadataOutputType" });

export const RECURRING_INTERVALS = ["day", "week", "month", "year"] as const;
export const recurringInterval = z.enum(RECURRING_INTERVALS).meta({ id: "RecurringInterval" });

export const address = z
  .object({
    line1: z.string().nullable(),
    line2: z.string().nullable(),
    postal_code: z.string().nullable(),
    city: z.string().nullable(),
    state: z.string().nullable(),
    country: z.string(),
  })
  .meta({ id: "Address" });

/** The fields every Polar model starts with. */
export const timestamped = {
  id,
  created_at: timestamp,
  modified_at: nullableTimestamp,
};
