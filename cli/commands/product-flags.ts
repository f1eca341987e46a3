// The options of `till products create` and `update` as zod schemas (see lib/flags.ts).
import { z } from "zod";
import { uuid } from "../lib/flags.ts";

const cents = z
  .string()
  .regex(/^\d+$/, "is in minor units (cents) and must be a whole number, e.g. 1500 for 15.00");
const repeatable = z.array(z.string()).optional();

export const priceFlags = z.object({
  price: cents.optional(),
  currency: z.string().regex(/^[A-Za-z]{3}$/, "must be a three-letter ISO currency code"),
  priceType: z.enum(["fixed", "custom", "free", "metered"], {
    error: "must be fixed, custom, free or metered",
  }),
  meter: uuid.optional(),
  unitAmount: z.string().optional(),
  cap: cents.optional(),
  min: cents.optional(),
  max: cents.optional(),
  preset: cents.optional(),
});
export type PriceFlags = z.output<typeof priceFlags>;

export const productCreateFlags = priceFlags.extend({
  name: z.string().min(1),
  description: z.string().optional(),
  recurring: z
    .enum(["day", "week", "month", "year"], { error: "must be one of day, week, month, year" })
    .optional(),
  benefit: z.array(uuid).optional(),
  metadata: repeatable,
  org: z.string().optional(),
});

export const productUpdateFlags = z.object({
  name: z.string().min(1).optional(),
  description: z.string().optional(),
  price: cents.optional(),
  currency: z.string().regex(/^[A-Za-z]{3}$/, "must be a three-letter ISO currency code"),
  metadata: repeatable,
});
