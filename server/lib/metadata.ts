// Polar's metadata: a flat object of string, integer, number or boolean values with limits
// (≤ 50 keys, keys ≤ 40 characters, string values 1–500 characters), and the `metadata[key]=value`
// query filter. The query parser is Express's "simple" one, so `metadata[key]` arrives as a literal
// key of req.query and is picked apart here, once, for every list that filters by metadata.
import { and, sql, type AnyColumn, type SQL } from "drizzle-orm";
import type { Request } from "express";
import { z } from "zod";
import { RequestValidationError } from "./errors.ts";

export const METADATA_MAX_KEYS = 50;
export const METADATA_MAX_KEY_LENGTH = 40;
export const METADATA_MAX_STRING_LENGTH = 500;

export const metadataValue = z.union([z.string().min(1).max(METADATA_MAX_STRING_LENGTH), z.number(), z.boolean()]);

export const metadataInput = z
  .record(z.string().min(1).max(METADATA_MAX_KEY_LENGTH), metadataValue)
  .refine((m) => Object.keys(m).length <= METADATA_MAX_KEYS, { message: `at most ${METADATA_MAX_KEYS} keys` });

export type Metadata = z.output<typeof metadataInput>;

/** `?metadata[plan]=pro&metadata[plan]=team` → {plan: ["pro", "team"]}; malformed keys are a 422. */
export function metadataQuery(req: Request): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [rawKey, rawValue] of Object.entries(req.query)) {
    if (!rawKey.startsWith("metadata")) continue;
    const m = /^metadata\[([^\[\]]{1,40})\]$/.exec(rawKey);
    if (!m) throw RequestValidationError.field(["query", rawKey], "Use metadata[key]=value with a key of 1 to 40 characters.", "value_error");
    const values = Array.isArray(rawValue) ? rawValue : [rawValue];
    const strings = values.filter((v): v is string => typeof v === "string");
    (out[m[1]!] ??= []).push(...strings);
  }
  return out;
}

/** The query without its metadata[...] keys, for zod schemas that reject unknown keys. */
export function withoutMetadata(query: Request["query"]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(query).filter(([k]) => !k.startsWith("metadata")));
}

/** metadata[k]=v filters as SQL over a jsonb column: every key must match one of its values. */
export function metadataCondition(column: AnyColumn | SQL, filter: Record<string, string[]>): SQL | undefined {
  const parts = Object.entries(filter)
    .filter(([, values]) => values.length > 0)
    .map(([key, values]) => sql`(${column} ->> ${key}) in ${values}`);
  return parts.length > 0 ? and(...parts) : undefined;
}
