// Requests generated from the OpenAPI contract with fast-check: valid values from each schema, and
// the same values broken one field at a time (wrong types, NUL and control characters, 1 MB
// strings, huge and negative numbers, unknown enums, bad UUIDs, deep nesting, prototype keys).
import fc from "fast-check";

export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
}

export interface Parameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required?: boolean;
  schema?: JsonSchema;
}

export interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
  body: JsonSchema | null;
}

interface Contract {
  paths: Record<string, Record<string, { parameters?: Parameter[]; requestBody?: unknown }>>;
  components: { schemas: Record<string, JsonSchema> };
}

export function operationsOf(contract: Contract): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(contract.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!["get", "post", "patch", "put", "delete"].includes(method)) continue;
      const content = (op.requestBody as { content?: Record<string, { schema?: JsonSchema }> })
        ?.content;
      out.push({
        method: method.toUpperCase(),
        path,
        parameters: op.parameters ?? [],
        body: content?.["application/json"]?.schema ?? null,
      });
    }
  }
  return out;
}

/** Built once: a prototype-named key as an own property, the way JSON.parse makes it. */
const protoObject = JSON.parse(
  '{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}',
);

const controlString = fc.string({
  unit: fc.constantFrom(...Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)), "\u007f"),
  minLength: 1,
  maxLength: 8,
});

/** Strings no validator should let through to the database unchecked. */
export const nastyString: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constant("\u0000"), weight: 3 },
  { arbitrary: fc.string({ maxLength: 10 }).map((s) => `${s}\u0000${s}`), weight: 3 },
  { arbitrary: controlString, weight: 2 },
  fc.constant("x".repeat(1_000_000)),
  fc.constant("\ud800"),
  fc.constant("😀".repeat(300)),
  fc.constant(""),
  fc.constant(" "),
  fc.constant("null"),
  fc.constant("../../etc/passwd"),
  fc.constant("%00"),
  fc.constant("' or 1=1 --"),
  fc.constant("00000000-0000-0000-0000-00000000000g"),
  fc.constant("not-a-uuid"),
  fc.constant("unknown_enum_value"),
  fc.constant("2026-13-45T99:99:99Z"),
  fc.string({ maxLength: 40 }),
);

/** Any wrong value: wrong types, edge numbers, nested junk, prototype keys. */
export const junk: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: nastyString, weight: 8 },
  fc.constantFrom(
    1e308,
    -1e308,
    2 ** 63,
    -(2 ** 63),
    -1,
    0,
    1.5,
    Number.MAX_SAFE_INTEGER + 2,
    -2147483649,
    true,
    false,
    null,
  ),
  fc.constant([]),
  fc.constant({}),
  fc.constant(protoObject),
  fc.constant(nest(60)),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 }), { maxKeys: 3 }),
);

/** The same value with a NUL character in every string, so an otherwise valid body carries it. */
function withNul(value: unknown): unknown {
  if (typeof value === "string") return `${value}\u0000`;
  if (Array.isArray(value)) return value.map(withNul);
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withNul(v)]));
  return value;
}

function nest(depth: number): unknown {
  let v: unknown = { a: 1 };
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

export class SchemaArbitraries {
  private readonly schemas: Record<string, JsonSchema>;
  private readonly uuids: fc.Arbitrary<string>;

  constructor(schemas: Record<string, JsonSchema>, uuids: fc.Arbitrary<string>) {
    this.schemas = schemas;
    this.uuids = uuids;
  }

  resolve(schema: JsonSchema): JsonSchema {
    let s = schema;
    for (let i = 0; s.$ref && i < 20; i++) s = this.schemas[s.$ref.split("/").pop()!] ?? {};
    return s;
  }

  /** A value the schema accepts (as far as types, enums and bounds say). */
  valid(schema: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
    const s = this.resolve(schema);
    if (depth > 5) return fc.constant(null);
    if (s.const !== undefined) return fc.constant(s.const);
    if (s.enum) return fc.constantFrom(...s.enum);
    const alternatives = s.anyOf ?? s.oneOf;
    if (alternatives) {
      const nonNull = alternatives.filter((a) => this.resolve(a).type !== "null");
      const arbs = (nonNull.length > 0 ? nonNull : alternatives).map((a) =>
        this.valid(a, depth + 1),
      );
      return arbs.length === 1 ? arbs[0]! : fc.oneof(...arbs);
    }
    if (s.allOf?.[0]) return this.valid(s.allOf[0], depth + 1);
    const type = Array.isArray(s.type) ? s.type[0] : s.type;
    switch (type) {
      case "null":
        return fc.constant(null);
      case "boolean":
        return fc.boolean();
      case "integer": {
        const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 0);
        const max =
          s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : 10_000);
        return fc.integer({ min: Math.max(min, -1e9), max: Math.min(max, Math.max(min, 1e9)) });
      }
      case "number":
        return fc.double({ min: s.minimum ?? 0, max: s.maximum ?? 10_000, noNaN: true });
      case "string":
        return this.string(s);
      case "array": {
        const item = s.items ? this.valid(s.items, depth + 1) : fc.string({ maxLength: 5 });
        return fc.array(item, {
          minLength: s.minItems ?? 0,
          maxLength: Math.max(s.minItems ?? 0, Math.min(s.maxItems ?? 3, 3)),
        });
      }
      case "object":
      case undefined: {
        if (s.properties) {
          const arbs: Record<string, fc.Arbitrary<unknown>> = {};
          for (const [k, v] of Object.entries(s.properties)) arbs[k] = this.valid(v, depth + 1);
          return fc.record(arbs, { requiredKeys: (s.required ?? []).filter((k) => k in arbs) });
        }
        if (s.additionalProperties && typeof s.additionalProperties === "object")
          return fc.dictionary(
            fc.string({ minLength: 1, maxLength: 10 }),
            this.valid(s.additionalProperties, depth + 1),
            { maxKeys: 3 },
          );
        return type === "object" ? fc.constant({}) : fc.constant(null);
      }
      default:
        return fc.constant(null);
    }
  }

  private string(s: JsonSchema): fc.Arbitrary<string> {
    switch (s.format) {
      case "uuid":
      case "uuid4":
        return this.uuids;
      case "email":
        return fc.emailAddress().filter((e) => e.length < 200);
      case "uri":
        return fc.webUrl().filter((u) => u.length < 1000);
      case "date-time":
        return fc
          .date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true })
          .map((d) => d.toISOString());
      case "date":
        return fc
          .date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true })
          .map((d) => d.toISOString().slice(0, 10));
      default:
        return fc.string({
          minLength: s.minLength ?? 0,
          maxLength: Math.max(s.minLength ?? 0, Math.min(s.maxLength ?? 20, 20)),
        });
    }
  }

  /** Valid values mostly, and the valid value broken at one place otherwise. */
  anyValue(schema: JsonSchema): fc.Arbitrary<unknown> {
    return fc.oneof(
      { arbitrary: this.valid(schema), weight: 3 },
      { arbitrary: this.broken(schema), weight: 4 },
      { arbitrary: junk, weight: 1 },
    );
  }

  /** A valid object with one property replaced by junk, removed, or prototype keys added. */
  broken(schema: JsonSchema): fc.Arbitrary<unknown> {
    const s = this.resolve(schema);
    const keys = Object.keys(s.properties ?? {});
    return fc
      .tuple(
        this.valid(schema),
        junk,
        fc.nat(),
        fc.constantFrom("set", "set", "set", "delete", "proto", "nested", "nul", "nul"),
      )
      .map(([value, bad, n, how]) => {
        if (how === "nul") return withNul(value);
        if (!value || typeof value !== "object" || Array.isArray(value) || keys.length === 0)
          return bad;
        const out = { ...(value as Record<string, unknown>) };
        const key = keys[n % keys.length]!;
        if (how === "set") out[key] = bad;
        else if (how === "delete") delete out[key];
        else if (how === "proto") return { ...protoObject, ...out };
        else out[key] = { deeper: bad, ...protoObject };
        return out;
      });
  }
}
