// Polar's metadata: up to 50 keys of at most 40 characters, each a string (1–500 characters), an
// integer, a number or a boolean. Filters come in the query as `metadata[key]=value` (repeated keys
// for several values); Express's "simple" parser leaves those keys flat, so they are read here.
import { inArray, sql, type SQL } from "drizzle-orm";
import type { Request } from "express";
import { z } from "zod";
import { RequestValidationError } from "./errors.ts";

export const METADATA_MAX_KEYS = 50;
export const METADATA_KEY_MAX = 40;
export const METADATA_STRING_MAX = 500;

export type Metadata = Record<string, string | number | boolean>;

export const metadataInput = z
  .record(z.string().min(1).max(METADATA_KEY_MAX), z.union([z.string().min(1).max(METADATA_STRING_MAX), z.number(), z.boolean()]))
  .refine((m) => Object.keys(m).length <= METADATA_MAX_KEYS, { message: `at most ${METADATA_MAX_KEYS} keys are allowed` });

export type MetadataFilter = Record<string, string[]>;

const KEY = /^metadata\[([^\]]*)\]$/;

/** The `metadata[key]=value` pairs of a request's query, values as the strings they arrived as. */
export function metadataFilterOf(req: Request): MetadataFilter {
  const filter: MetadataFilter = {};
  for (const [name, raw] of Object.entries(req.query)) {
    const key = KEY.exec(name)?.[1];
    if (key === undefined) continue;
    if (key.length === 0 || key.length > METADATA_KEY_MAX) {
      throw RequestValidationError.field(["query", "metadata", key], `metadata keys must be 1 to ${METADATA_KEY_MAX} characters`, "string_too_long");
    }
    const values = (Array.isArray(raw) ? raw : [raw]).filter((v): v is string => typeof v === "string");
    filter[key] = [...(filter[key] ?? []), ...values];
  }
  return filter;
}

/**
 * One condition per key: the stored value, read as text, is one of the wanted values. Booleans and
 * numbers compare by their JSON text ("true", "42"), which is how they arrive in a query string.
 */
export function metadataConditions(column: SQL | { getSQL(): SQL }, filter: MetadataFilter): SQL[] {
  const conds: SQL[] = [];
  for (const [key, values] of Object.entries(filter)) {
    if (values.length === 0) continue;
    conds.push(inArray(sqlText(column, key), values));
  }
  return conds;
}

function sqlText(column: SQL | { getSQL(): SQL }, key: string): SQL {
  return sql`(${column} ->> ${key})`;
}
