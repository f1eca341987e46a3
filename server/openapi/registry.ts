// What the OpenAPI document is made from: one entry per operation, naming the zod schemas the route
// parses (path, query, body) and the schema its answer is typed by. Routes keep parsing with the
// same schemas, so the document cannot describe a request shape the server does not accept.
import type { z } from "zod";

export type Method = "get" | "post" | "patch" | "put" | "delete";

export interface Operation {
  method: Method;
  /** OpenAPI form, with the /v1 prefix and Polar's trailing slash: `/v1/products/{id}`. */
  path: string;
  /** Polar's operationId where Polar has the operation (`products:list`). */
  operationId: string;
  summary: string;
  tag: string;
  /** Scopes the route's guard requires; none for public routes. */
  scopes?: string[];
  params?: z.ZodObject;
  query?: z.ZodObject[];
  body?: z.ZodType;
  /** A single model; `list` instead for Polar's `{items, pagination}` pages. */
  response?: z.ZodType;
  list?: z.ZodType;
  /** 200 unless given; 204 has no body. */
  status?: number;
}

export function operation(op: Operation): Operation {
  return op;
}
