// Request parsing: one zod schema per part of the request, failures as Polar's 422 with `loc`
// pointing at the offending field ("body", "query" or "path" first).
import type { Request } from "express";
import type { z } from "zod";
import { fromZodError } from "./errors.ts";
import { assertStorable } from "./safe-input.ts";

function parse<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: "body" | "query" | "path",
): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw fromZodError(result.error, [where], value);
  return result.data;
}

export function parseBody<S extends z.ZodType>(schema: S, req: Request): z.output<S> {
  return parse(schema, req.body ?? {}, "body");
}

export function parseQuery<S extends z.ZodType>(schema: S, req: Request): z.output<S> {
  return parse(schema, req.query, "query");
}

/** Path parameters, with strings PostgreSQL cannot store refused first (see safe-input.ts). */
export function parseParams<S extends z.ZodType>(schema: S, req: Request): z.output<S> {
  assertStorable(req.params, ["path"]);
  return parse(schema, req.params, "path");
}
