// The options of `till customers create|update`, `till discounts create|update` and `till
// benefits create` as zod schemas (see lib/flags.ts).
import { z } from "zod";
import { BENEFIT_TYPES, DISCOUNT_DURATIONS, oneOf } from "../lib/choices.ts";
import { minorUnits, positiveInteger, uuid } from "../lib/flags.ts";

const email = z.email({ error: "must be an email address" });

export const customerCreateFlags = z.object({
  email,
  name: z.string().optional(),
  externalId: z.string().min(1).optional(),
  metadata: z.array(z.string()).optional(),
  org: z.string().optional(),
});

export const customerUpdateFlags = z.object({
  email: email.optional(),
  name: z.string().optional(),
  externalId: z.string().min(1).optional(),
});

export const discountCreateFlags = z
  .object({
    name: z.string().min(1),
    code: z.string().min(1).optional(),
    percent: z.coerce
      .number({ error: "must be a number, e.g. 20 or 12.5" })
      .gt(0, { error: "must be more than 0" })
      .max(100, { error: "must be at most 100" })
      .optional(),
    amount: minorUnits.optional(),
    currency: z.string().regex(/^[A-Za-z]{3}$/, "must be a three-letter ISO currency code"),
    duration: z.enum(DISCOUNT_DURATIONS, { error: oneOf(DISCOUNT_DURATIONS) }),
    months: positiveInteger.optional(),
    maxRedemptions: positiveInteger.optional(),
    product: z.array(uuid).optional(),
    org: z.string().optional(),
  })
  .refine((f) => (f.percent === undefined) !== (f.amount === undefined), {
    error: "Give exactly one of --percent and --amount.",
  })
  // How long a repeating discount lasts is the seller's to say, not a silent default.
  .refine((f) => (f.duration === "repeating") === (f.months !== undefined), {
    error: "give --months with --duration repeating, and only with it",
    path: ["months"],
  });

export const discountUpdateFlags = z.object({
  name: z.string().min(1).optional(),
  code: z.string().min(1).optional(),
  maxRedemptions: positiveInteger.optional(),
});

export const benefitCreateFlags = z.object({
  type: z.enum(BENEFIT_TYPES, { error: oneOf(BENEFIT_TYPES) }),
  description: z.string().min(1),
  property: z.array(z.string()).optional(),
  org: z.string().optional(),
});
