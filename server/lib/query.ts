// Query-string pieces shared by list endpoints: booleans as FastAPI reads them, arrays as repeated
// keys (`id=a&id=b`, which the "simple" parser turns into an array), and user text for ILIKE.
import { z } from "zod";
import { timestampInput } from "./wire.ts";

const TRUE = ["true", "1", "yes", "on", "t", "y"];
const FALSE = ["false", "0", "no", "off", "f", "n"];

export const queryBoolean = z
  .string()
  .refine((v) => TRUE.includes(v.toLowerCase()) || FALSE.includes(v.toLowerCase()), {
    message: "Input should be a valid boolean",
  })
  .transform((v) => TRUE.includes(v.toLowerCase()));

const INTEGER = /^-?\d+$/;

/**
 * An integer parameter as FastAPI reads it: decimal digits with an optional minus, nothing else
 * (`0x10`, ` 5` and `1e10` are refused as `int_parsing`, where Number() would take them).
 */
export function queryInt(bounds: { min: number; max?: number }) {
  const inner = z.number().int().min(bounds.min);
  return z.preprocess(
    (value, ctx) => {
      if (typeof value === "number" || value === undefined) return value;
      if (typeof value === "string" && INTEGER.test(value)) return Number(value);
      const text = typeof value === "string";
      ctx.addIssue({
        code: "custom",
        message: text
          ? "Input should be a valid integer, unable to parse string as an integer"
          : "Input should be a valid integer",
        params: { type: text ? "int_parsing" : "int_type" },
        input: value,
      });
      return value;
    },
    bounds.max === undefined ? inner : inner.max(bounds.max),
  );
}

/** An RFC 3339 date-time with offset (a request's, timestampInput), handed on as a Date. */
export const queryDatetime = timestampInput.transform((v) => new Date(v));

/** One value or several (repeated keys), always handed on as an array. */
export function queryList<T extends z.ZodType>(item: T) {
  return z
    .union([item, z.array(item)])
    .transform((v) => (Array.isArray(v) ? v : [v]) as z.output<T>[]);
}

/** `%text%` with ILIKE's own wildcards and escape character taken literally. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
