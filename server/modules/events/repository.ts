// SQL for usage events. Ingest is one statement per batch (event_dedup and events written together);
// reads are scoped to the caller's organizations and lean on the indexes described in
// db/schema/events.ts. Monthly partitions are managed in partitions.ts.
import {
  and,
  asc,
  count,
  desc,
  eq,
  gte,
  inArray,
  isNull,
  lte,
  max,
  min,
  or,
  sql,
  type SQL,
} from "drizzle-orm";
import { anyOf, arrayLiteral } from "../../../db/bulk.ts";
import type { Db } from "../../../db/client.ts";
import { customers, eventDedup, events } from "../../../db/schema/index.ts";
import { metadataCondition } from "../../lib/metadata.ts";
import type { OrgScope } from "../../lib/org-scope.ts";
import { inScope } from "../../lib/org-scope-sql.ts";
import { containsPattern } from "../../lib/query.ts";
import type { EventNameRecord, EventRecord } from "./schemas.ts";

export type EventInsert = typeof events.$inferInsert;

/**
 * Inserts a batch; events whose (organization, external_id) was ingested already are skipped, and
 * of several in the batch the first is kept. The external ids are claimed in event_dedup (its
 * primary key waits for a concurrent batch claiming the same id, as a unique index would) and only
 * the rows that claimed theirs, or have none, reach events. One statement whatever the batch size:
 * each column travels as one array parameter and unnest() turns them back into rows, so the text is
 * constant (prepared once, planned once) and building it costs no per-row work in drizzle. An event given by external_customer_id is linked to the live customer
 * with that id, when there is one, by the join on customers_org_external_id_uq.
 */
export async function insertEvents(db: Db, rows: EventInsert[]): Promise<number> {
  const col = (f: (r: EventInsert) => string | null | undefined) => arrayLiteral(rows.map(f));
  const result = (await db.execute(sql`
    with u as (
      select u.*, row_number() over (partition by u.organization_id, u.external_id order by u.ord) as nth
      from unnest(
        ${col((r) => r.id)}::uuid[], ${col((r) => r.organizationId)}::uuid[], ${col((r) => r.name)}::text[],
        ${col((r) => r.source ?? "user")}::text[], ${col((r) => (r.timestamp as Date).toISOString())}::timestamptz[],
        ${col((r) => (r.ingestedAt as Date).toISOString())}::timestamptz[], ${col((r) => r.customerId ?? null)}::uuid[],
        ${col((r) => r.externalCustomerId ?? null)}::text[], ${col((r) => r.memberId ?? null)}::uuid[],
        ${col((r) => r.externalMemberId ?? null)}::text[], ${col((r) => r.externalId ?? null)}::text[],
        ${col((r) => r.parentId ?? null)}::uuid[], ${col((r) => JSON.stringify(r.metadata ?? {}))}::jsonb[]
      ) with ordinality as u(id, organization_id, name, source, timestamp, ingested_at, customer_id, external_customer_id,
             member_id, external_member_id, external_id, parent_id, metadata, ord)
    ), fresh as (
      insert into ${eventDedup} (organization_id, external_id)
      select organization_id, external_id from u where external_id is not null and nth = 1
      on conflict do nothing
      returning organization_id, external_id
    )
    insert into ${events} (id, organization_id, name, source, timestamp, ingested_at, customer_id, external_customer_id,
                           member_id, external_member_id, external_id, parent_id, metadata)
    select u.id, u.organization_id, u.name, u.source, u.timestamp, u.ingested_at, coalesce(u.customer_id, c.id),
           u.external_customer_id, u.member_id, u.external_member_id, u.external_id, u.parent_id, u.metadata
    from u
    left join fresh f on f.organization_id = u.organization_id and f.external_id = u.external_id and u.nth = 1
    left join ${customers} c
      on u.customer_id is null and c.organization_id = u.organization_id and c.external_id = u.external_customer_id and c.deleted_at is null
    where u.external_id is null or f.external_id is not null
    returning 1 as inserted
  `)) as unknown as unknown[] | { rows: unknown[] };
  // postgres.js answers with an array of rows, PGlite with {rows}.
  return Array.isArray(result) ? result.length : result.rows.length;
}

/** Events of the scope matched by id or external id, for resolving parent_id. */
export async function findParents(db: Db, scope: OrgScope, ids: string[], externalIds: string[]) {
  const match: SQL[] = [];
  if (ids.length > 0) match.push(anyOf(events.id, ids));
  if (externalIds.length > 0) match.push(anyOf(events.externalId, externalIds));
  if (match.length === 0 || scope.length === 0) return [];
  return db
    .select({ id: events.id, externalId: events.externalId })
    .from(events)
    .where(and(inScope(events.organizationId, scope), or(...match)));
}

/**
 * Ties a customer to events ingested under its external id before it existed (or before the id was
 * set), and stamps its external id on events ingested by customer_id, so both filters find them.
 */
export async function linkCustomerEvents(
  db: Db,
  organizationId: string,
  customerId: string,
  externalId: string,
): Promise<void> {
  await db
    .update(events)
    .set({ customerId })
    .where(
      and(
        eq(events.organizationId, organizationId),
        eq(events.externalCustomerId, externalId),
        isNull(events.customerId),
      ),
    );
  await db
    .update(events)
    .set({ externalCustomerId: externalId })
    .where(
      and(
        eq(events.organizationId, organizationId),
        eq(events.customerId, customerId),
        isNull(events.externalCustomerId),
      ),
    );
}

// Qualified by hand: drizzle renders a single-table select's columns bare, which inside the subquery
// would bind to the inner table.
const childCount =
  sql<number>`(select count(*) from ${events} as children where children.parent_id = ${sql.identifier("events")}.${sql.identifier("id")})`.mapWith(
    Number,
  );

const eventSelection = {
  id: events.id,
  organizationId: events.organizationId,
  name: events.name,
  source: events.source,
  timestamp: events.timestamp,
  customerId: events.customerId,
  externalCustomerId: events.externalCustomerId,
  memberId: events.memberId,
  externalMemberId: events.externalMemberId,
  parentId: events.parentId,
  metadata: events.metadata,
  childCount,
};

export async function findEvent(db: Db, scope: OrgScope, id: string): Promise<EventRecord | null> {
  if (scope.length === 0) return null;
  const [row] = await db
    .select(eventSelection)
    .from(events)
    .where(and(eq(events.id, id), inScope(events.organizationId, scope)))
    .limit(1);
  return row ?? null;
}

export interface EventFilter {
  customerIds?: string[] | undefined;
  externalCustomerIds?: string[] | undefined;
  names?: string[] | undefined;
  sources?: string[] | undefined;
  query?: string | undefined;
  start?: Date | undefined;
  end?: Date | undefined;
  parentId?: string | undefined;
  conditions: SQL[];
  metadata: Record<string, string[]>;
}

function whereOf(scope: OrgScope, f: EventFilter): SQL | undefined {
  const conds: (SQL | undefined)[] = [inScope(events.organizationId, scope), ...f.conditions];
  if (f.customerIds) conds.push(anyOf(events.customerId, f.customerIds));
  if (f.externalCustomerIds) conds.push(anyOf(events.externalCustomerId, f.externalCustomerIds));
  if (f.names) conds.push(inArray(events.name, f.names));
  if (f.sources) conds.push(inArray(events.source, f.sources as ("system" | "user")[]));
  if (f.query) conds.push(sql`${events.name} ilike ${containsPattern(f.query)}`);
  if (f.start) conds.push(gte(events.timestamp, f.start));
  if (f.end) conds.push(lte(events.timestamp, f.end));
  if (f.parentId) conds.push(eq(events.parentId, f.parentId));
  conds.push(metadataCondition(events.metadata, f.metadata));
  return and(...conds);
}

export async function listEvents(
  db: Db,
  scope: OrgScope,
  f: EventFilter,
  descending: boolean,
  limit: number,
  offset: number,
) {
  if (scope.length === 0) return { rows: [] as EventRecord[], total: 0 };
  const where = whereOf(scope, f);
  const order = descending
    ? [desc(events.timestamp), desc(events.id)]
    : [asc(events.timestamp), asc(events.id)];
  const [rows, [totals]] = await Promise.all([
    db
      .select(eventSelection)
      .from(events)
      .where(where)
      .orderBy(...order)
      .limit(limit)
      .offset(offset),
    db.select({ n: count() }).from(events).where(where),
  ]);
  return { rows: rows as EventRecord[], total: totals!.n };
}

const occurrences = count();
const firstSeen = min(events.timestamp);
const lastSeen = max(events.timestamp);
const NAME_SORTS = {
  name: events.name,
  occurrences,
  first_seen: firstSeen,
  last_seen: lastSeen,
} as const;

export async function listEventNames(
  db: Db,
  scope: OrgScope,
  f: EventFilter,
  sorting: { key: keyof typeof NAME_SORTS; desc: boolean }[],
  limit: number,
  offset: number,
): Promise<{ rows: EventNameRecord[]; total: number }> {
  if (scope.length === 0) return { rows: [], total: 0 };
  const where = whereOf(scope, f);
  const order = sorting.map((s) => (s.desc ? desc(NAME_SORTS[s.key]) : asc(NAME_SORTS[s.key])));
  const [rows, [totals]] = await Promise.all([
    db
      .select({ name: events.name, source: events.source, occurrences, firstSeen, lastSeen })
      .from(events)
      .where(where)
      .groupBy(events.name, events.source)
      .orderBy(...order, asc(events.name))
      .limit(limit)
      .offset(offset),
    db
      .select({
        n: sql<number>`count(distinct (${events.name}, ${events.source}))`.mapWith(Number),
      })
      .from(events)
      .where(where),
  ]);
  return {
    rows: rows.map((r) => ({ ...r, firstSeen: r.firstSeen!, lastSeen: r.lastSeen! })),
    total: totals!.n,
  };
}
