// SQL for event types: the names of ingested events per organization (and source), counted with
// their first and last timestamps, joined to the rows that carry each name's id and label.
import { and, eq, type SQL, sql } from "drizzle-orm";
import { type Db, rowsOf } from "../../../db/client.ts";
import { eventTypes, events } from "../../../db/schema/index.ts";
import type { OrgScope } from "../../lib/org-scope.ts";
import { inScope } from "../../lib/org-scope-sql.ts";
import { containsPattern } from "../../lib/query.ts";
import type { EventTypeRow, EventTypeSort, EventTypeStatsRow } from "./schemas.ts";
import { anyOf } from "../../../db/bulk.ts";

export type { EventTypeRow, EventTypeStatsRow } from "./schemas.ts";

export interface EventTypeFilter {
  scope: OrgScope;
  customerIds?: string[] | undefined;
  externalCustomerIds?: string[] | undefined;
  query?: string | undefined;
  rootEvents: boolean;
  parentId?: string | undefined;
  source?: "system" | "user" | undefined;
}

/** Gives every event name of the scope a row (and so an id) if it has none yet. */
export async function registerNames(db: Db, scope: OrgScope, now: Date): Promise<void> {
  if (scope.length === 0) return;
  await db.execute(sql`
    insert into ${eventTypes} (organization_id, name, created_at)
    select distinct organization_id, name, ${now.toISOString()}::timestamptz from ${events}
    where ${inScope(events.organizationId, scope)}
    on conflict (organization_id, name) do nothing`);
}

const SORTS: Record<EventTypeSort, SQL> = {
  name: sql`s.name`,
  label: sql`coalesce(t.label, s.name)`,
  occurrences: sql`s.occurrences`,
  first_seen: sql`s.first_seen`,
  last_seen: sql`s.last_seen`,
};

export async function listEventTypes(
  db: Db,
  f: EventTypeFilter,
  sorting: { key: EventTypeSort; desc: boolean }[],
  limit: number,
  offset: number,
): Promise<{ rows: EventTypeStatsRow[]; total: number }> {
  if (f.scope.length === 0) return { rows: [], total: 0 };
  const conds: SQL[] = [inScope(events.organizationId, f.scope)];
  if (f.customerIds?.length) conds.push(anyOf(events.customerId, f.customerIds));
  if (f.externalCustomerIds?.length)
    conds.push(anyOf(events.externalCustomerId, f.externalCustomerIds));
  if (f.rootEvents) conds.push(sql`${events.parentId} is null`);
  if (f.parentId) conds.push(eq(events.parentId, f.parentId));
  if (f.source) conds.push(eq(events.source, f.source));
  const outer: SQL[] = [sql`true`];
  if (f.query) {
    const like = containsPattern(f.query);
    outer.push(sql`(s.name ilike ${like} or t.label ilike ${like})`);
  }
  const order = sorting.map((s) => sql`${SORTS[s.key]} ${sql.raw(s.desc ? "desc" : "asc")}`);
  const rows = rowsOf<{
    id: string;
    organization_id: string;
    name: string;
    label: string | null;
    label_property_selector: string | null;
    created_at: string;
    modified_at: string | null;
    source: "system" | "user";
    occurrences: string | number;
    first_seen: string;
    last_seen: string;
    total: string | number;
  }>(
    await db.execute(sql`
      with s as (
        select organization_id, name, source, count(*) as occurrences,
               min(timestamp) as first_seen, max(timestamp) as last_seen
        from ${events} where ${and(...conds)}
        group by organization_id, name, source
      )
      select t.id, s.organization_id, s.name, t.label, t.label_property_selector,
             t.created_at::text as created_at, t.modified_at::text as modified_at, s.source,
             s.occurrences, s.first_seen::text as first_seen, s.last_seen::text as last_seen,
             count(*) over () as total
      from s join ${eventTypes} t on t.organization_id = s.organization_id and t.name = s.name
      where ${sql.join(outer, sql` and `)}
      order by ${sql.join([...order, sql`s.name asc`, sql`s.source asc`], sql`, `)}
      limit ${limit} offset ${offset}`),
  );
  return {
    total: Number(rows[0]?.total ?? 0),
    rows: rows.map((r) => ({
      id: r.id,
      organizationId: r.organization_id,
      name: r.name,
      label: r.label,
      labelPropertySelector: r.label_property_selector,
      createdAt: new Date(r.created_at),
      modifiedAt: r.modified_at ? new Date(r.modified_at) : null,
      source: r.source,
      occurrences: Number(r.occurrences),
      firstSeen: new Date(r.first_seen),
      lastSeen: new Date(r.last_seen),
    })),
  };
}

export async function findEventType(
  db: Db,
  scope: OrgScope,
  id: string,
): Promise<EventTypeRow | null> {
  if (scope.length === 0) return null;
  const [row] = await db
    .select()
    .from(eventTypes)
    .where(and(eq(eventTypes.id, id), inScope(eventTypes.organizationId, scope)))
    .limit(1);
  return row ?? null;
}

export async function updateEventType(
  db: Db,
  id: string,
  values: Partial<typeof eventTypes.$inferInsert>,
): Promise<EventTypeRow> {
  const [row] = await db.update(eventTypes).set(values).where(eq(eventTypes.id, id)).returning();
  return row!;
}
