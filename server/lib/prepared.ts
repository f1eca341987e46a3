// Hot queries built once per database handle. drizzle assembles a query's SQL text on every call,
// which costs more CPU than PostgreSQL spends answering a primary-key lookup; a prepared drizzle
// query keeps the text and takes only its parameters (sql.placeholder) on each run. Keyed by the
// handle, so a transaction gets its own (and lets it go with the transaction).
import { getTableColumns, sql, type Column, type SQL, type Table } from "drizzle-orm";
import type { Db } from "../../db/client.ts";

const byHandle = new WeakMap<Db, Map<string, unknown>>();

export function preparedQuery<T>(db: Db, key: string, build: (db: Db) => T): T {
  let queries = byHandle.get(db);
  if (!queries) {
    queries = new Map();
    byHandle.set(db, queries);
  }
  let query = queries.get(key) as T | undefined;
  if (query === undefined) {
    query = build(db);
    queries.set(key, query);
  }
  return query;
}

/**
 * An insert's values as placeholders, for a prepared insert: `sql` placeholders take the values as
 * given, so encodeValues must encode them first (a bare placeholder would run the column's encoder
 * on null too, storing JSON null or failing on a null timestamp).
 */
export function valuePlaceholders<T extends Table>(
  table: T,
  prefix = "",
): Record<keyof T["$inferInsert"], SQL> {
  return Object.fromEntries(
    Object.keys(getTableColumns(table)).map((key) => [key, sql`${sql.placeholder(prefix + key)}`]),
  ) as Record<keyof T["$inferInsert"], SQL>;
}

const columnsOf = new WeakMap<Table, [string, Column][]>();

/** Values for valuePlaceholders: each given column's driver value, null as null. */
export function encodeValues<T extends Table>(
  table: T,
  values: Partial<T["$inferInsert"]>,
  prefix = "",
): Record<string, unknown> {
  let columns = columnsOf.get(table);
  if (!columns) {
    columns = Object.entries(getTableColumns(table));
    columnsOf.set(table, columns);
  }
  const out: Record<string, unknown> = {};
  for (const [key, column] of columns) {
    const value = (values as Record<string, unknown>)[key];
    if (value !== undefined)
      out[prefix + key] = value === null ? null : column.mapToDriverValue(value);
  }
  return out;
}
