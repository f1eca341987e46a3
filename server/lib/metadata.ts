// Polar's metadata: a flat object of string, integer, number or boolean values with limits
// (≤ 50 keys, keys ≤ 40 characters, string values 1–500 characters), and the `metadata[key]=value`
// query filter. The query parser is Express's "simple" one, so `metadata[key]` arrives as a literal
// key of req.query and is picked apart here, once, for every list that filters by metadata.
import { and, inArray, sql, type AnyColumn, type SQL } from "drizzle-orm";
import type { Request } from "express";
import { z } from "zod";
import { RequestValidationError } from "./errors.ts";

export const METADATA_MAX_KEYS = 50;
export const METADATA_MAX_KEY_LENGTH = 40;
export const METADATA_MAX_STRING_LENGTH = 500;

// Polar keeps any integer exactly; JSON.parse rounds those past 2^53 (12345678901234567890 becomes
// 12345678901234567000), so such a value is refused rather than stored as a number nobody sent.
export const metadataValue = z
  .union([z.string().min(1).max(METADATA_MAX_STRING_LENGTH), z.number(), z.boolean()])
  .refine((v) => typeof v !== "number" || !Number.isInteger(v) || Number.isSafeInteger(v), {
    message: `Integers in metadata must be between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}; send larger ones as strings.`,
  });

export const metadataInput = z
  .record(z.string().min(1).max(METADATA_MAX_KEY_LENGTH), metadataValue)
  .refine((m) => Object.keys(m).length <= METADATA_MAX_KEYS, {
    message: `at most ${METADATA_MAX_KEYS} keys are allowed`,
  });

export type Metadata = Record<string, string | number | boolean>;
export type MetadataFilter = Record<string, string[]>;

/** `?metadata[plan]=pro&metadata[plan]=team` → {plan: ["pro", "team"]}; malformed keys are a 422. */
export function metadataQuery(req: Request): MetadataFilter {
  // A Map, not an object: keys such as `constructor` or `__proto__` are ordinary keys here.
  const out = new Map<string, string[]>();
  for (const [rawKey, rawValue] of Object.entries(req.query)) {
    if (!rawKey.startsWith("metadata")) continue;
    const m = /^metadata\[([^[\]]*)\]$/.exec(rawKey);
    if (!m)
      throw RequestValidationError.field(
        ["query", rawKey],
        "Use metadata[key]=value with a key of 1 to 40 characters.",
        "value_error",
      );
    if (m[1]!.length === 0 || m[1]!.length > METADATA_MAX_KEY_LENGTH) {
      throw RequestValidationError.field(
        ["query", "metadata", m[1]!],
        `metadata keys must be 1 to ${METADATA_MAX_KEY_LENGTH} characters`,
        "string_too_long",
      );
    }
    const values = Array.isArray(rawValue) ? rawValue : [rawValue];
    const key = m[1]!;
    if (!out.has(key)) out.set(key, []);
    out.get(key)!.push(...values.filter((v): v is string => typeof v === "string"));
  }
  // fromEntries defines own properties, so even `__proto__` stays a plain key.
  return Object.fromEntries(out);
}

/** The query without its metadata[...] keys, for zod schemas that reject unknown keys. */
export function withoutMetadata(query: Request["query"]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(query).filter(([k]) => !k.startsWith("metadata")));
}

/**
 * One condition per key: the stored value, read as text, is one of the wanted values. Booleans and
 * numbers compare by their JSON text ("true", "42"), which is how they arrive in a query string.
 */
export function metadataConditions(
  column: AnyColumn | SQL | { getSQL(): SQL },
  filter: MetadataFilter,
): SQL[] {
  return Object.entries(filter)
    .filter(([, values]) => values.length > 0)
    .map(([key, values]) => inArray(sql`(${column} ->> ${key})`, values));
}

export function metadataCondition(
  column: AnyColumn | SQL,
  filter: MetadataFilter,
): SQL | undefined {
  const parts = metadataConditions(column, filter);
  return parts.length > 0 ? and(...parts) : undefined;
}
