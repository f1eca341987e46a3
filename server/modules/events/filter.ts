// The event filter language shared by meters and event lists: nested groups of clauses
// {property, operator, value} joined by and/or. Properties are `name`, `source`, `timestamp`, or a
// metadata key (`metadata.tokens`, or bare `tokens`; dots reach into nested objects). Translated to
// a parameterized SQL condition: user strings only ever travel as bind parameters.
import { sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { events } from "../../../db/schema/index.ts";
import type { MeterAggregation, MeterFilter, MeterFilterClause } from "../../../db/schema/index.ts";
import { containsPattern } from "../../lib/query.ts";
import { timestampInput } from "../../lib/wire.ts";

const MAX_DEPTH = 5;
const MAX_CLAUSES = 100;
const OPERATORS = ["eq", "ne", "gt", "gte", "lt", "lte", "like", "not_like"] as const;

const property = z
  .string()
  .min(1)
  .max(200)
  .regex(
    /^[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+)*$/,
    "must be name, timestamp, source or a metadata key such as metadata.tokens",
  );

export const filterClause = z
  .object({
    property,
    operator: z.enum(OPERATORS),
    value: z.union([
      z.string().max(1000),
      z.number().int().min(-2147483648).max(2147483647),
      z.boolean(),
    ]),
  })
  .superRefine((c, ctx) => {
    if (
      c.property === "timestamp" &&
      (typeof c.value !== "string" || !timestampInput.safeParse(c.value).success)
    ) {
      ctx.addIssue({
        code: "custom",
        path: ["value"],
        message:
          "A timestamp clause needs an RFC 3339 date-time with offset, in the years 1000 to 9999.",
      });
    }
    if (typeof c.value === "boolean" && !["eq", "ne"].includes(c.operator)) {
      ctx.addIssue({
        code: "custom",
        path: ["operator"],
        message: "A boolean value only supports eq and ne.",
      });
    }
    if (typeof c.value !== "string" && (c.operator === "like" || c.operator === "not_like")) {
      ctx.addIssue({
        code: "custom",
        path: ["operator"],
        message: "like and not_like need a string value.",
      });
    }
  });

export const filterSchema: z.ZodType<MeterFilter> = z
  .lazy(() =>
    z.object({
      conjunction: z.enum(["and", "or"]),
      clauses: z.array(z.union([filterClause, filterSchema])).max(MAX_CLAUSES),
    }),
  )
  .meta({ id: "Filter" });

/** The recursive schema plus limits on nesting and size, so one filter cannot build a huge query. */
export const boundedFilter = filterSchema.superRefine((f, ctx) => {
  let clauses = 0;
  const walk = (g: MeterFilter, depth: number): void => {
    if (depth > MAX_DEPTH)
      ctx.addIssue({ code: "custom", message: `Filters nest at most ${MAX_DEPTH} levels deep.` });
    for (const c of g.clauses) {
      if ("clauses" in c) walk(c, depth + 1);
      else clauses++;
    }
  };
  walk(f, 1);
  if (clauses > MAX_CLAUSES)
    ctx.addIssue({ code: "custom", message: `Filters have at most ${MAX_CLAUSES} clauses.` });
});

export const aggregationSchema = z.discriminatedUnion("func", [
  z.object({ func: z.literal("count") }),
  z.object({ func: z.enum(["sum", "max", "min", "avg"]), property }),
  z.object({ func: z.literal("unique"), property }),
]);

const CMP: Record<Exclude<MeterFilterClause["operator"], "like" | "not_like">, SQL> = {
  eq: sql.raw("="),
  ne: sql.raw("<>"),
  gt: sql.raw(">"),
  gte: sql.raw(">="),
  lt: sql.raw("<"),
  lte: sql.raw("<="),
};

function metadataPath(prop: string): string[] {
  return prop.startsWith("metadata.") ? prop.slice("metadata.".length).split(".") : prop.split(".");
}

/** metadata -> 'a' -> 'b' as jsonb (asText: the last step with ->>). Keys are bind parameters. */
export function metadataJson(prop: string, asText = false): SQL {
  const path = metadataPath(prop);
  let expr: SQL = sql`${events.metadata}`;
  path.forEach((key, i) => {
    expr =
      asText && i === path.length - 1
        ? sql`(${expr} ->> ${key}::text)`
        : sql`(${expr} -> ${key}::text)`;
  });
  return expr;
}

/** A metadata value as numeric, or null when it is not a JSON number (never a cast error). */
export function metadataNumber(prop: string): SQL {
  const json = metadataJson(prop);
  return sql`(case when jsonb_typeof(${json}) = 'number' then (${json})::numeric end)`;
}

function clauseCondition(c: MeterFilterClause): SQL {
  const { operator, value } = c;
  if (operator === "like" || operator === "not_like") {
    const target =
      c.property === "name"
        ? sql`${events.name}`
        : c.property === "source"
          ? sql`${events.source}`
          : metadataJson(c.property, true);
    const pattern = containsPattern(String(value));
    return operator === "like"
      ? sql`(${target} like ${pattern})`
      : sql`(${target} not like ${pattern})`;
  }
  const op = CMP[operator];
  if (c.property === "timestamp")
    return sql`(${events.timestamp} ${op} ${String(value)}::timestamptz)`;
  if (c.property === "name") return sql`(${events.name} ${op} ${String(value)}::text)`;
  if (c.property === "source") return sql`(${events.source} ${op} ${String(value)}::text)`;
  if (typeof value === "number")
    return sql`(${metadataNumber(c.property)} ${op} ${value}::numeric)`;
  if (typeof value === "boolean")
    return sql`(${metadataJson(c.property)} ${op} ${value ? "true" : "false"}::jsonb)`;
  return sql`(${metadataJson(c.property, true)} ${op} ${value}::text)`;
}

/** The filter as one SQL condition; an empty group matches every event, as in Polar. */
export function filterCondition(filter: MeterFilter): SQL {
  const parts = filter.clauses.map((c) =>
    "clauses" in c ? filterCondition(c) : clauseCondition(c),
  );
  if (parts.length === 0) return sql`true`;
  return sql`(${sql.join(parts, sql.raw(filter.conjunction === "and" ? " and " : " or "))})`;
}

/** The per-event value an aggregation reads: numeric for sum/max/min/avg, text for unique. */
export function aggregationValue(aggregation: MeterAggregation): SQL {
  switch (aggregation.func) {
    case "count":
      return sql`null`;
    case "unique":
      return aggregation.property === "name"
        ? sql`${events.name}`
        : metadataJson(aggregation.property, true);
    default:
      return metadataNumber(aggregation.property);
  }
}

/** The aggregate over a column `v` holding aggregationValue(), as float8 (0 over no events). */
export function aggregateOf(aggregation: MeterAggregation, v: SQL): SQL {
  switch (aggregation.func) {
    case "count":
      return sql`count(*)::float8`;
    case "unique":
      return sql`count(distinct ${v})::float8`;
    default:
      return sql`coalesce(${sql.raw(aggregation.func)}(${v}), 0)::float8`;
  }
}
