// Hot queries built once per database handle. drizzle assembles a query's SQL text on every call,
// which costs more CPU than PostgreSQL spends answering a primary-key lookup; a prepared drizzle
// query keeps the text and takes only its parameters (sql.placeholder) on each run. Keyed by the
// handle, so a transaction gets its own (and lets it go with the transaction).
import type { Db } from "../../db/client.ts";

const byHandle = new WeakMap<Db, Map<string, unknown>>();

export function preparedQuery<T>(db: Db, key: string, build: (db: Db) => T): T {
  let queries = byHandle.get(db);
  if (!queries) byHandle.set(db, (queries = new Map()));
  let query = queries.get(key) as T | undefined;
  if (query === undefined) queries.set(key, (query = build(db)));
  return query;
}
