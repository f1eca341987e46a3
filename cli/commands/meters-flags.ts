// The options of `till meters create|update|quantities` and `till events ingest` as zod schemas
// (see lib/flags.ts).
import { z } from "zod";
import { uuid } from "../lib/flags.ts";
import { scalarOf } from "../lib/resource.ts";

const HOURS = { h: 1, d: 24, w: 168 } as const;

/**
 * "30d", "12h", "2w" before now (`{agoMs}`: now is the organization's sandbox clock, known only
 * later), or an RFC 3339 timestamp; each flag names itself when wrong.
 */
const pointInTime = z.string().transform((text, ctx): Date | { agoMs: number } => {
  const m = /^(\d+)([hdw])$/.exec(text);
  if (m) return { agoMs: Number(m[1]) * HOURS[m[2] as keyof typeof HOURS] * 3600e3 };
  const at = new Date(text);
  if (Number.isNaN(at.getTime())) {
    ctx.addIssue({ code: "custom", message: `expects 30d, 12h, 2w or a timestamp; got "${text}"` });
    return z.NEVER;
  }
  return at;
});

/** A point given as "30d" ago is counted back from `now`. */
export function resolvePoint(point: Date | { agoMs: number }, now: Date): Date {
  return point instanceof Date ? point : new Date(now.getTime() - point.agoMs);
}

export const quantitiesFlags = z.object({
  interval: z.enum(["hour", "day", "week", "month", "year"]),
  since: pointInTime,
  until: pointInTime.optional(),
  customer: uuid.optional(),
  externalCustomer: z.string().min(1).optional(),
});

export const ingestFlags = z.object({
  name: z.string().min(1).optional(),
  customer: uuid.optional(),
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

const OPERATORS = ["eq", "ne", "gt", "gte", "lt", "lte", "like", "not_like"];
const AGGREGATIONS = ["count", "sum", "max", "min", "avg", "unique"];

/** "property op value", e.g. "name eq api_call" or "metadata.tokens gt 10". */
const filterClause = z.string().transform((text, ctx) => {
  const m = /^\s*(\S+)\s+(\S+)\s+(.+?)\s*$/.exec(text);
  if (!m || !OPERATORS.includes(m[2]!)) {
    ctx.addIssue({
      code: "custom",
      message: `expects "property operator value" with operator one of ${OPERATORS.join(", ")}; got "${text}".`,
    });
    return z.NEVER;
  }
  return { property: m[1]!, operator: m[2]!, value: scalarOf(m[3]!.replace(/^"(.*)"$/, "$1")) };
});

/** "count" or "sum:tokens". */
const aggregation = z.string().transform((text, ctx) => {
  const [func, property] = text.split(":");
  if (!func || !AGGREGATIONS.includes(func) || (func !== "count" && !property)) {
    ctx.addIssue({
      code: "custom",
      message: `expects count or func:property with func one of ${AGGREGATIONS.join(", ")}; got "${text}".`,
    });
    return z.NEVER;
  }
  return func === "count" ? { func } : { func, property: property! };
});

export const meterCreateFlags = z.object({
  name: z.string().min(1),
  filter: z.array(filterClause).optional(),
  or: z.boolean().optional(),
  aggregation,
  org: z.string().optional(),
});

export const meterUpdateFlags = z.object({ name: z.string().min(1) });

export const resendFlags = z.object({ endpoint: uuid.optional() });
