// What the OpenAPI document is made from: one entry per operation, naming the zod schemas the route
// parses (path, query, body) and the schema its answer is typed by. Routes keep parsing with the
// same schemas, so the document cannot describe a request shape the server does not accept.
import { z } from "zod";

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
  /** The credential: an access token unless the route is the customer portal's. */
  auth?: "customer_session";
  params?: z.ZodObject;
  query?: z.ZodObject[];
  body?: z.ZodType;
  /** A single model; `list` instead for Polar's `{items, pagination}` pages. */
  response?: z.ZodType;
  list?: z.ZodType;
  /** A CSV file (`text/csv`) rather than JSON: the exports. */
  csv?: true;
  /** 200 unless given; 204 has no body. */
  status?: number;
}

export function operation(op: Operation): Operation {
  return op;
}

export const idParams = z.object({ id: z.uuid() });
// Polar's metadata filter: `?metadata[key]=value`, read by lib/metadata.ts.
export const metadataFilter = z.object({
  metadata: z
    .record(z.string(), z.union([z.string(), z.array(z.string())]))
    .optional()
    .meta({ description: "Filter by metadata: metadata[key]=value, repeatable." }),
});

export interface Crud {
  tag: string;
  /** Collection path without the trailing slash: `/v1/products`. */
  base: string;
  /** Polar's operationId prefix: `products`. */
  prefix: string;
  noun: string;
  model: z.ZodType;
  scope: string;
  list?: z.ZodObject[];
  create?: z.ZodType;
  update?: z.ZodType;
  remove?: boolean;
}

/** Polar's usual five: list, create, get, update, delete (the ones the resource has). */
export function crud(c: Crud): Operation[] {
  const read = [`${c.scope}:read`, `${c.scope}:write`];
  const write = [`${c.scope}:write`];
  const item = `${c.base}/{id}`;
  const ops: Operation[] = [];
  if (c.list)
    ops.push({
      method: "get",
      path: `${c.base}/`,
      operationId: `${c.prefix}:list`,
      summary: `List ${c.noun}s`,
      tag: c.tag,
      scopes: read,
      query: c.list,
      list: c.model,
    });
  if (c.create)
    ops.push({
      method: "post",
      path: `${c.base}/`,
      operationId: `${c.prefix}:create`,
      summary: `Create ${c.noun}`,
      tag: c.tag,
      scopes: write,
      body: c.create,
      response: c.model,
      status: 201,
    });
  ops.push({
    method: "get",
    path: item,
    operationId: `${c.prefix}:get`,
    summary: `Get ${c.noun}`,
    tag: c.tag,
    scopes: read,
    params: idParams,
    response: c.model,
  });
  if (c.update)
    ops.push({
      method: "patch",
      path: item,
      operationId: `${c.prefix}:update`,
      summary: `Update ${c.noun}`,
      tag: c.tag,
      scopes: write,
      params: idParams,
      body: c.update,
      response: c.model,
    });
  if (c.remove)
    ops.push({
      method: "delete",
      path: item,
      operationId: `${c.prefix}:delete`,
      summary: `Delete ${c.noun}`,
      tag: c.tag,
      scopes: write,
      params: idParams,
      status: 204,
    });
  return ops;
}
