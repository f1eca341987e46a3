// Request parsing: one zod schema per part of the request, failures as Polar's 422 with `loc`
// pointing at the offending field ("body", "query" or "path" first).
import type { Request } from "express";
import { z } from "zod";
import { fromZodError } from "./errors.ts";
import { assertStorable } from "./safe-input.ts";

function parse<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: "body" | "query" | "path",
): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    // A union's own error says only that no variant matched (or, as zod picks one, that a key the
    // body meant for another variant is unknown): the variant the body meant says what is wrong.
    const meant = intendedVariant(schema, value);
    const error = meant?.safeParse(value).error ?? result.error;
    throw fromZodError(error, [where], value);
  }
  return result.data;
}

/**
 * Of a union of objects (without a tag), the variant that names every key `value` has, the fewest
 * of its required keys missing; null when none names them all (or the schema is not such a union).
 */
function intendedVariant(schema: z.ZodType, value: unknown): z.ZodType | null {
  // A discriminated union already answers for the variant its tag names.
  if (!(schema instanceof z.ZodUnion) || schema instanceof z.ZodDiscriminatedUnion) return null;
  if (!value || typeof value !== "object") return null;
  const keys = Object.keys(value);
  let best: z.ZodType | null = null;
  let fewest = Number.POSITIVE_INFINITY;
  for (const option of schema.options as z.ZodType[]) {
    if (!(option instanceof z.ZodObject)) return null;
    const shape = option.shape as Record<string, z.ZodType>;
    if (!keys.every((k) => Object.hasOwn(shape, k))) continue;
    const missing = Object.entries(shape).filter(
      ([k, field]) => !keys.includes(k) && !field.safeParse(undefined).success,
    ).length;
    if (missing < fewest) [best, fewest] = [option, missing];
  }
  return best;
}

export function parseBody<S extends z.ZodType>(schema: S, req: Request): z.output<S> {
  return parse(schema, req.body ?? {}, "body");
}

export function parseQuery<S extends z.ZodType>(schema: S, req: Request): z.output<S> {
  return parse(schema, lastOfRepeated(schema, req.query), "query");
}

/**
 * A key repeated for a parameter that takes one value (`?limit=1&limit=2`) counts its last value,
 * as FastAPI reads it; a parameter that takes a list keeps them all.
 */
function lastOfRepeated(schema: z.ZodType, query: Request["query"]): Request["query"] {
  const object = schema instanceof z.ZodPipe ? schema.in : schema;
  if (!(object instanceof z.ZodObject)) return query;
  const shape = object.shape as Record<string, z.ZodType>;
  let out = query;
  for (const [key, value] of Object.entries(query)) {
    const field = Object.hasOwn(shape, key) ? shape[key] : undefined;
    if (!Array.isArray(value) || !field || field.safeParse(value).success) continue;
    out = { ...out, [key]: value.at(-1) };
  }
  return out;
}

/** Path parameters, with strings PostgreSQL cannot store refused first (see safe-input.ts). */
export function parseParams<S extends z.ZodType>(schema: S, req: Request): z.output<S> {
  assertStorable(req.params, ["path"]);
  return parse(schema, req.params, "path");
}
