// Multi-row inserts with every row in one JSON parameter, spread over the table's row type by
// json_populate_recordset, instead of one placeholder per value: building and sending thousands of
// placeholders costs more than the rows themselves (a batch of renewals writes hundreds of orders
// and over a thousand outbox events). Only the columns the rows name are inserted, so the others
// take their defaults; every row must name the same columns. json, not jsonb, keeps the key order
// of json columns (webhook payloads). Rows go in in the order given.
import { getTableColumns, getTableName, sql, type SQL } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";

export function insertJsonRows(table: PgTable, rows: Record<string, unknown>[]): SQL {
  const columns = getTableColumns(table);
  const keys = Object.keys(rows[0] ?? {}).filter((k) => columns[k]);
  const names = keys.map((k) => columns[k]!.name);
  const json = JSON.stringify(
    rows.map((r) => Object.fromEntries<unknown>(keys.map((k, i) => [names[i]!, r[k] ?? null]))),
  );
  const list = sql.join(
    names.map((n) => sql.identifier(n)),
    sql`, `,
  );
  const name = sql.identifier(getTableName(table));
  return sql`insert into ${name} (${list})
    select ${list} from json_populate_recordset(null::${name}, ${json}::json) with ordinality as r
    order by r.ordinality`;
}

/**
 * A PostgreSQL array literal (null and undefined as NULL), for `= any(${…}::uuid[])` or unnest():
 * one text parameter, which both drivers take the same way, instead of the one per value inArray
 * builds, which costs more to build than to run when a batch names hundreds of rows.
 */
export function arrayLiteral(values: readonly (string | null | undefined)[]): string {
  return `{${values.map((v) => (v === null || v === undefined ? "NULL" : `"${v.replace(/[\\"]/g, (c) => `\\${c}`)}"`)).join(",")}}`;
}

/**
 * `column = any($1::<type>[])`: inArray for a list of ids gathered from rows, in one parameter
 * (arrayLiteral) however long the list. The statement's text stays the same for every length, so
 * it is prepared once per connection, where inArray's placeholders made a new statement for each.
 * An empty list matches nothing, as inArray's does.
 */
export function anyOf(column: PgColumn, values: readonly string[]): SQL {
  return sql`${column} = any(${arrayLiteral(values)}::${sql.raw(column.getSQLType())}[])`;
}

/** notInArray as anyOf does inArray: `column <> all(…)`; an empty list excludes nothing. */
export function noneOf(column: PgColumn, values: readonly string[]): SQL {
  return sql`${column} <> all(${arrayLiteral(values)}::${sql.raw(column.getSQLType())}[])`;
}

/**
 * Rows a raw statement returned (`returning *` after insertJsonRows), as drizzle's select of
 * `table` gives them: keyed by property, each value through its column's mapping. Both drivers
 * answer raw statements with the same untouched timestamps drizzle's own selects get.
 */
export function tableRows<T extends PgTable>(
  table: T,
  raw: readonly Record<string, unknown>[],
): T["$inferSelect"][] {
  const columns = Object.entries(getTableColumns(table));
  return raw.map(
    (r) =>
      Object.fromEntries(
        columns.map(([key, c]) => {
          const v = r[c.name];
          return [key, v === null || v === undefined ? null : c.mapFromDriverValue(v)];
        }),
      ) as T["$inferSelect"],
  );
}
