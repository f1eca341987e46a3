// The SQL side of an OrgScope: the condition a repository adds to keep a read inside it.
import { eq, inArray, type SQL, sql } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import type { OrgScope } from "./org-scope.ts";

/**
 * `column` is one of the scope's organizations: `=` for one (the plan of a bare id, which hot
 * paths keep), `in (...)` for more, and false for none.
 */
export function inScope(column: PgColumn, scope: OrgScope): SQL {
  if (scope.length === 0) return sql`false`;
  return scope.length === 1 ? eq(column, scope[0]!) : inArray(column, [...scope]);
}
