// The options of `till meters quantities` and `till events ingest` as zod schemas (see
// lib/flags.ts).
import { z } from "zod";

export const quantitiesFlags = z.object({
  interval: z.enum(["hour", "day", "week", "month", "year"]),
  since: z.string().min(1),
  until: z.string().min(1).optional(),
  customer: z.string().min(1).optional(),
  externalCustomer: z.string().min(1).optional(),
});

export const ingestFlags = z.object({
  name: z.string().min(1).optional(),
  customer: z.string().min(1).optional(),
  externalCustomer: z.string().min(1).optional(),
  metadata: z.array(z.string()).optional(),
  file: z.string().min(1).optional(),
  batchSize: z.coerce
    .number({ error: "must be a number" })
    .int({ error: "must be a whole number" })
    .min(1, { error: "must be at least 1" })
    .max(1000, { error: "must be at most 1000" }),
  org: z.string().optional(),
});
