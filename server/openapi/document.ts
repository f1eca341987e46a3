// Builds the OpenAPI 3.1 document from the registered operations with zod's own JSON Schema
// conversion. Each schema is converted on its own; the models it names (`.meta({ id })`) are
// hoisted into components.schemas, so every operation that returns a Product points at one
// definition. Requests are converted as input (what a client may send: defaults optional),
// responses as output.
import { z } from "zod";
import { paginationQuery } from "../lib/pagination.ts";
import type { Operation } from "./registry.ts";

type Json = Record<string, unknown>;

export interface OpenApiDocument {
  openapi: "3.1.0";
  info: { title: string; version: string; description: string };
  servers: { url: string }[];
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, Json>; securitySchemes: Record<string, Json> };
}

const LIST_PREFIX = "ListResource_";

class Components {
  readonly schemas: Record<string, Json> = {};
  private anonymous = 0;

  /** The JSON Schema of `schema`, its named parts moved into components. */
  convert(schema: z.ZodType, io: "input" | "output"): Json {
    const json = z.toJSONSchema(schema, {
      io,
      target: "draft-2020-12",
      unrepresentable: "any",
    }) as Json;
    const defs = (json.$defs ?? {}) as Record<string, Json>;
    delete json.$defs;
    delete json.$schema;
    // Unnamed recursive parts get zod's generated names, which repeat from one conversion to the
    // next: give them names unique in the document.
    const rename = new Map<string, string>();
    for (const name of Object.keys(defs))
      rename.set(name, name.startsWith("__schema") ? `Schema${++this.anonymous}` : name);
    const fix = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(fix);
      if (node === null || typeof node !== "object") return node;
      const out: Json = {};
      for (const [k, v] of Object.entries(node)) {
        if (k === "$ref" && typeof v === "string" && v.startsWith("#/$defs/"))
          out[k] = `#/components/schemas/${rename.get(v.slice(8)) ?? v.slice(8)}`;
        // The uuid and date-time formats say it; zod's long patterns only repeat them.
        else if (k === "pattern" && (node as Json).format) continue;
        else out[k] = fix(v);
      }
      return out;
    };
    for (const [name, def] of Object.entries(defs)) {
      const target = rename.get(name)!;
      const fixed = fix(def) as Json;
      // A model named once but read as input and output (a filter) may differ only in defaults.
      if (!(target in this.schemas) || io === "output") this.schemas[target] = fixed;
    }
    return fix(json) as Json;
  }

  /** Polar's ListResource_<Model>: the page of `item`. */
  list(item: z.ZodType): Json {
    const ref = this.convert(item, "output");
    const name = typeof ref.$ref === "string" ? ref.$ref.split("/").pop()! : null;
    const page = {
      type: "object",
      properties: {
        items: { type: "array", items: ref },
        pagination: { $ref: "#/components/schemas/Pagination" },
      },
      required: ["items", "pagination"],
    };
    this.schemas.Pagination ??= {
      type: "object",
      properties: { total_count: { type: "integer" }, max_page: { type: "integer" } },
      required: ["total_count", "max_page"],
    };
    if (!name) return page;
    this.schemas[`${LIST_PREFIX}${name}_`] = page;
    return { $ref: `#/components/schemas/${LIST_PREFIX}${name}_` };
  }
}

function parameters(components: Components, op: Operation): Json[] {
  const out: Json[] = [];
  const add = (where: "path" | "query", shape: z.ZodObject) => {
    const json = components.convert(shape, "input");
    const props = (json.properties ?? {}) as Record<string, Json>;
    const required = new Set((json.required ?? []) as string[]);
    for (const [name, schema] of Object.entries(props))
      out.push({ name, in: where, required: where === "path" || required.has(name), schema });
  };
  if (op.params) add("path", op.params);
  if (op.list) add("query", paginationQuery);
  for (const q of op.query ?? []) add("query", q);
  return out;
}

function operationObject(components: Components, op: Operation): Json {
  const status = String(op.status ?? 200);
  const content = op.list
    ? components.list(op.list)
    : op.response
      ? components.convert(op.response, "output")
      : null;
  const success: Json = op.csv
    ? { description: "A CSV file", content: { "text/csv": { schema: { type: "string" } } } }
    : content
      ? { description: "Successful Response", content: { "application/json": { schema: content } } }
      : { description: status === "204" ? "No Content" : "Successful Response" };
  const responses: Json = { [status]: success };
  if (op.body || op.params || op.query || op.list)
    responses["422"] = {
      description: "Validation Error",
      content: {
        "application/json": { schema: { $ref: "#/components/schemas/HTTPValidationError" } },
      },
    };
  const result: Json = {
    operationId: op.operationId,
    summary: op.summary,
    tags: [op.tag],
    parameters: parameters(components, op),
    responses,
  };
  if (op.auth === "customer_session") result.security = [{ customer_session: op.scopes ?? [] }];
  else if (op.scopes) result.security = [{ access_token: op.scopes }];
  else result.security = [];
  if (op.body)
    result.requestBody = {
      required: true,
      content: { "application/json": { schema: components.convert(op.body, "input") } },
    };
  return result;
}

export function buildOpenApi(operations: readonly Operation[], baseUrl: string): OpenApiDocument {
  const components = new Components();
  const paths: OpenApiDocument["paths"] = {};
  for (const op of operations) {
    paths[op.path] ??= {};
    paths[op.path]![op.method] = operationObject(components, op);
  }
  components.schemas.HTTPValidationError = {
    type: "object",
    properties: {
      error: { type: "string", const: "RequestValidationError" },
      detail: {
        type: "array",
        items: {
          type: "object",
          properties: {
            loc: { type: "array", items: { anyOf: [{ type: "string" }, { type: "integer" }] } },
            msg: { type: "string" },
            type: { type: "string" },
          },
          required: ["loc", "msg", "type"],
        },
      },
    },
    required: ["error", "detail"],
  };
  return {
    openapi: "3.1.0",
    info: {
      title: "till API",
      version: "1",
      description:
        "Wire-compatible with Polar's API v1: the same paths, field names, status codes and errors.",
    },
    servers: [{ url: baseUrl }],
    paths,
    components: {
      schemas: components.schemas,
      securitySchemes: {
        access_token: {
          type: "http",
          scheme: "bearer",
          description: "An organization access token (till_oat_…) or a user session token.",
        },
        customer_session: {
          type: "http",
          scheme: "bearer",
          description: "A customer session token, from POST /v1/customer-sessions/.",
        },
      },
    },
  };
}
