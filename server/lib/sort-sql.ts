// The SQL side of ?sorting=: a list's keys as ORDER BY terms, the keys that name another object
// read from that object's row.
import { asc, desc, type SQL, sql } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import { arrayLiteral } from "../../db/bulk.ts";

/**
 * `column` of the row `ref` points to, as a correlated subquery (a primary-key lookup per row):
 * the list keeps one table in FROM, so its filters, its count and its default sort's index are
 * what they were without the key. A null `ref` gives null, sorted as PostgreSQL sorts nulls.
 */
export function referencedValue(column: PgColumn, id: PgColumn, ref: PgColumn): SQL {
  return sql`(select ${column} from ${column.table} where ${id} = ${ref})`;
}

/** A text column by the place of its value in `values` (a status by its place in a life cycle). */
export function rankOf(column: PgColumn, values: readonly string[]): SQL {
  return sql`array_position(${arrayLiteral(values)}::text[], ${column})`;
}

/** The ORDER BY terms of the parsed ?sorting= (sortingSchema) over the list's key → SQL map. */
export function sortTerms<K extends string>(
  sorting: readonly { key: K; desc: boolean }[],
  terms: Record<K, PgColumn | SQL>,
): SQL[] {
  return sorting.map((s) => (s.desc ? desc(terms[s.key]) : asc(terms[s.key])));
}
