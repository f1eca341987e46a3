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

const TRIAL_UNITS = { d: "day", w: "week", mo: "month", y: "year" } as const;

/** "14d", "2w", "1mo", "1y": the product's trial_interval and trial_interval_count. */
const trial = z.string().transform((text, ctx) => {
  const m = /^([1-9]\d*)(d|w|mo|y)$/.exec(text.trim());
  if (m) return { interval: TRIAL_UNITS[m[2] as keyof typeof TRIAL_UNITS], count: Number(m[1]) };
  ctx.addIssue({ code: "custom", message: `must be a duration (14d, 2w, 1mo, 1y); got "${text}"` });
  return z.NEVER;
});

export const productCreateFlags = priceFlags
  .extend({
    name: z.string().min(1),
    description: z.string().optional(),
    recurring: z
      .enum(["day", "week", "month", "year"], { error: "must be one of day, week, month, year" })
      .optional(),
    trial: trial.optional(),
    benefit: z.array(uuid).optional(),
    metadata: repeatable,
    org: z.string().optional(),
  })
  .refine((f) => f.trial === undefined || f.recurring !== undefined, {
    error: "only a subscription has a trial: add --recurring <interval>",
    path: ["trial"],
  });

export const productUpdateFlags = z.object({
  name: z.string().min(1).optional(),
  description: z.string().optional(),
  price: cents.optional(),
  currency: z.string().regex(/^[A-Za-z]{3}$/, "must be a three-letter ISO currency code"),
  metadata: repeatable,
});
