// SQL of the delivery worker: fanning committed outbox rows out to endpoint events, loading what a
// batch of jobs needs, the FIFO question, recording attempts, and disabling failing endpoints.
import { and, desc, eq, inArray, isNull, lt, sql } from "drizzle-orm";
import { fromDrizzle, type Db as BossDb, type DrizzleTransactionLike } from "pg-boss";
import { anyOf, arrayLiteral } from "../../../db/bulk.ts";
import { rowsOf, type Db, type Tx } from "../../../db/client.ts";
import {
  member,
  user,
  webhookDeliveries,
  webhookEndpointEvents,
  webhookEndpoints,
  webhookEvents,
} from "../../../db/schema/index.ts";
import type { EndpointEventStatus } from "../../../db/schema/index.ts";
import type { OrgScope } from "../../lib/org-scope.ts";
import { inScope } from "../../lib/org-scope-sql.ts";
import type { EventPayload } from "./events.ts";
import type { EndpointEventRow, EndpointRow } from "./repository.ts";

export interface OutboxRow {
  id: string;
  seq: number;
  organizationId: string;
  type: string;
}

/**
 * Committed, not yet fanned-out outbox rows, oldest first, locked for this transaction. Without
 * their payloads: most events go to no endpoint, and those that do are read with payloadsOf.
 */
export async function claimUndispatched(tx: Tx, limit: number): Promise<OutboxRow[]> {
  const e = webhookEvents;
  return tx
    .select({ id: e.id, seq: e.seq, organizationId: e.organizationId, type: e.type })
    .from(e)
    .where(isNull(e.dispatchedAt))
    .orderBy(e.seq)
    .limit(limit)
    .for("update", { skipLocked: true });
}

/**
 * The payloads of outbox rows, by id, as the text they were recorded as: a raw endpoint is sent
 * exactly that, with no parse and stringify of every payload on the way.
 */
export async function payloadsOf(tx: Tx, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await tx
    .select({ id: webhookEvents.id, payload: sql<string>`${webhookEvents.payload}::text` })
    .from(webhookEvents)
    .where(anyOf(webhookEvents.id, ids));
  return new Map(rows.map((r) => [r.id, r.payload]));
}

/** The enabled endpoints of the scope (the organizations of the outbox rows being dispatched). */
export async function enabledEndpoints(tx: Db, scope: OrgScope): Promise<EndpointRow[]> {
  if (scope.length === 0) return [];
  return tx
    .select()
    .from(webhookEndpoints)
    .where(
      and(inScope(webhookEndpoints.organizationId, scope), eq(webhookEndpoints.enabled, true)),
    );
}

export async function insertEndpointEvents(
  tx: Tx,
  values: (typeof webhookEndpointEvents.$inferInsert)[],
): Promise<{ id: string; endpointId: string; seq: number }[]> {
  if (values.length === 0) return [];
  return tx.insert(webhookEndpointEvents).values(values).onConflictDoNothing().returning({
    id: webhookEndpointEvents.id,
    endpointId: webhookEndpointEvents.endpointId,
    seq: webhookEndpointEvents.seq,
  });
}

export async function markDispatched(tx: Tx, ids: string[], at: Date): Promise<void> {
  if (ids.length === 0) return;
  await tx.update(webhookEvents).set({ dispatchedAt: at }).where(anyOf(webhookEvents.id, ids));
}

export interface DeliveryTarget {
  event: EndpointEventRow;
  endpoint: EndpointRow;
}

export async function loadTargets(db: Db, ids: string[]): Promise<DeliveryTarget[]> {
  if (ids.length === 0) return [];
  return db
    .select({ event: webhookEndpointEvents, endpoint: webhookEndpoints })
    .from(webhookEndpointEvents)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookEndpointEvents.endpointId))
    .where(anyOf(webhookEndpointEvents.id, ids));
}

/**
 * For each endpoint, the lowest seq among its events still waiting for a first attempt, leaving out
 * the ones this worker already holds (it sends those in order itself). One index probe per endpoint.
 */
export async function oldestUnattempted(
  db: Db,
  endpointIds: string[],
  held: string[],
): Promise<Map<string, number>> {
  if (endpointIds.length === 0) return new Map();
  // One array parameter each, not one parameter per id: hundreds of parameters cost more to parse
  // and bind than the probes themselves.
  const uuids = (ids: string[]) => sql`${arrayLiteral(ids)}::uuid[]`;
  const result = await db.execute(sql`
    select ep.id as endpoint_id,
      (select e.seq from webhook_endpoint_events e
        where e.endpoint_id = ep.id and e.status = 'pending' and e.attempts = 0 and e.id <> all(${uuids(held)})
        order by e.seq limit 1) as seq
    from unnest(${uuids(endpointIds)}) as ep(id)`);
  const rows = rowsOf<{ endpoint_id: string; seq: string | number | null }>(result);
  return new Map(rows.filter((r) => r.seq !== null).map((r) => [r.endpoint_id, Number(r.seq)]));
}

export interface AttemptRecord {
  eventId: string;
  endpointId: string;
  organizationId: string;
  attempt: number;
  status: EndpointEventStatus;
  succeeded: boolean;
  httpCode: number | null;
  response: string | null;
  durationMs: number;
  at: Date;
}

/** One delivery row per attempt and the event's new state, in the caller's transaction. */
export async function recordAttempts(tx: Tx, records: AttemptRecord[]): Promise<void> {
  if (records.length === 0) return;
  await tx.insert(webhookDeliveries).values(
    records.map((r) => ({
      organizationId: r.organizationId,
      endpointId: r.endpointId,
      webhookEventId: r.eventId,
      attempt: r.attempt,
      succeeded: r.succeeded,
      httpCode: r.httpCode,
      response: r.response,
      durationMs: r.durationMs,
      createdAt: r.at,
    })),
  );
  const rows = sql.join(
    records.map(
      (r) =>
        sql`(${r.eventId}::uuid, ${r.status}::text, ${r.attempt}::int, ${r.httpCode}::int, ${r.at.toISOString()}::timestamptz)`,
    ),
    sql`, `,
  );
  // A succeeded event stays succeeded (a failed redelivery does not undo it); a skipped one stays skipped.
  await tx.execute(sql`
    update webhook_endpoint_events e set
      status = case when e.status in ('succeeded', 'skipped') then e.status else v.status end,
      attempts = greatest(e.attempts, v.attempts),
      last_http_code = v.code,
      modified_at = v.at
    from (values ${rows}) as v(id, status, attempts, code, at)
    where e.id = v.id`);
}

/** Ends events still pending: skipped (not to be sent), or failed (no job is left to send them). */
export async function endPending(
  tx: Tx,
  ids: string[],
  status: "skipped" | "failed",
  at: Date,
): Promise<void> {
  if (ids.length === 0) return;
  await tx
    .update(webhookEndpointEvents)
    .set({ status, modifiedAt: at })
    .where(and(anyOf(webhookEndpointEvents.id, ids), eq(webhookEndpointEvents.status, "pending")));
}

/** Whether the endpoint's `n` most recently completed events all failed. */
export async function lastCompletedAllFailed(
  db: Db,
  endpointId: string,
  n: number,
): Promise<boolean> {
  const e = webhookEndpointEvents;
  const rows = await db
    .select({ status: e.status })
    .from(e)
    .where(and(eq(e.endpointId, endpointId), inArray(e.status, ["succeeded", "failed"])))
    .orderBy(desc(e.modifiedAt), desc(e.seq))
    .limit(n);
  return rows.length === n && rows.every((r) => r.status === "failed");
}

/** Disables an enabled endpoint and skips its pending events; null when it was not enabled. */
export async function disableEndpoint(
  tx: Tx,
  endpointId: string,
  at: Date,
): Promise<EndpointRow | null> {
  const [row] = await tx
    .update(webhookEndpoints)
    .set({ enabled: false, modifiedAt: at })
    .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.enabled, true)))
    .returning();
  if (!row) return null;
  await tx
    .update(webhookEndpointEvents)
    .set({ status: "skipped", modifiedAt: at })
    .where(
      and(
        eq(webhookEndpointEvents.endpointId, endpointId),
        eq(webhookEndpointEvents.status, "pending"),
      ),
    );
  return row;
}

export async function memberEmails(db: Db, organizationId: string): Promise<string[]> {
  const rows = await db
    .select({ email: user.email })
    .from(member)
    .innerJoin(user, eq(user.id, member.userId))
    .where(eq(member.organizationId, organizationId));
  return rows.map((r) => r.email);
}

/** Drops payloads older than the cutoff; the delivery log stays, marked archived. */
export async function archiveBefore(
  db: Db,
  cutoff: Date,
  at: Date,
): Promise<{ events: number; outbox: number }> {
  const archived = await db
    .update(webhookEndpointEvents)
    .set({ payload: null, archivedAt: at })
    .where(
      and(lt(webhookEndpointEvents.createdAt, cutoff), isNull(webhookEndpointEvents.archivedAt)),
    )
    .returning({ id: webhookEndpointEvents.id });
  const deleted = await db
    .delete(webhookEvents)
    .where(and(lt(webhookEvents.createdAt, cutoff), sql`${webhookEvents.dispatchedAt} is not null`))
    .returning({ id: webhookEvents.id });
  return { events: archived.length, outbox: deleted.length };
}

/**
 * Outbox rows of an organization after a seq (up to `through`, when given), in seq order: the live
 * stream's replay, and the rows of an announced range.
 */
export async function eventsAfter(
  db: Db,
  organizationId: string,
  afterSeq: number,
  limit: number,
  through?: number,
): Promise<{ id: string; seq: number; payload: EventPayload }[]> {
  return db
    .select({ id: webhookEvents.id, seq: webhookEvents.seq, payload: webhookEvents.payload })
    .from(webhookEvents)
    .where(
      and(
        eq(webhookEvents.organizationId, organizationId),
        sql`${webhookEvents.seq} > ${afterSeq}`,
        through === undefined ? undefined : sql`${webhookEvents.seq} <= ${through}`,
      ),
    )
    .orderBy(webhookEvents.seq)
    .limit(limit);
}

/** The payloads of an organization's events of `types` with seqs in [first, last], in seq order. */
export async function eventsOfTypes(
  db: Db,
  organizationId: string,
  types: readonly string[],
  first: number,
  last: number,
): Promise<EventPayload[]> {
  const rows = await db
    .select({ payload: webhookEvents.payload })
    .from(webhookEvents)
    .where(
      and(
        eq(webhookEvents.organizationId, organizationId),
        sql`${webhookEvents.seq} between ${first} and ${last}`,
        inArray(webhookEvents.type, [...types]),
      ),
    )
    .orderBy(webhookEvents.seq);
  return rows.map((r) => r.payload);
}

export async function latestSeq(db: Db, organizationId: string): Promise<number> {
  const [row] = await db
    .select({
      seq: sql<number | null>`max(${webhookEvents.seq})`.mapWith((v) =>
        v === null ? 0 : Number(v),
      ),
    })
    .from(webhookEvents)
    .where(eq(webhookEvents.organizationId, organizationId));
  return row?.seq ?? 0;
}

/** The seq just before the organization's last `count` events (0 when it has no more than that). */
export async function seqBeforeLast(
  db: Db,
  organizationId: string,
  count: number,
): Promise<number> {
  const rows = await db
    .select({ seq: webhookEvents.seq })
    .from(webhookEvents)
    .where(eq(webhookEvents.organizationId, organizationId))
    .orderBy(desc(webhookEvents.seq))
    .limit(count + 1);
  return rows.length > count ? Number(rows[count]!.seq) : 0;
}

/**
 * Active jobs of a pg-boss queue, as attempts (so failing one leaves it alone if it was claimed again
 * meanwhile); with staleOnly, those whose heartbeat is older than their heartbeat interval.
 */
export async function activeJobs(
  db: Db,
  queue: string,
  { staleOnly }: { staleOnly: boolean },
): Promise<{ id: string; retryCount: number; eventId: string | null }[]> {
  const stale = staleOnly
    ? sql`and heartbeat_seconds is not null and heartbeat_on + heartbeat_seconds * interval '1 second' < now()`
    : sql``;
  const rows = rowsOf<{ id: string; retry_count: number; event_id: string | null }>(
    await db.execute(
      sql`select id, retry_count, data->>'id' as event_id from pgboss.job where name = ${queue} and state = 'active' ${stale} limit 5000`,
    ),
  );
  return rows.map((r) => ({ id: r.id, retryCount: Number(r.retry_count), eventId: r.event_id }));
}

/** The transaction as pg-boss's database, so jobs are inserted and completed inside it. */
export function bossDb(tx: Tx): BossDb {
  return fromDrizzle(tx as unknown as DrizzleTransactionLike, sql);
}
