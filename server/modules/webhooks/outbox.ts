// The one outbox function: every state change calls it inside its own transaction, so an event is
// recorded exactly when the change commits and never for a change that rolled back. A change made
// by a single statement may instead embed outboxInsert in that statement (a data-modifying CTE),
// which is atomic by itself.
// An event no enabled endpoint of its organization takes is recorded already dispatched: the
// dispatcher has nothing to fan out, so it never claims or updates it (a page of renewals records a
// thousand events). Like Polar, an event goes to the endpoints there are when it is recorded. It
// stays in the outbox for `till listen` and its replay either way.
import { type SQL, sql } from "drizzle-orm";
import type { Db, Tx } from "../../../db/client.ts";
import { webhookEndpoints, webhookEvents } from "../../../db/schema/index.ts";
import type { Clock } from "../../lib/clock.ts";

export interface OutboxEvent {
  organizationId: string;
  type: string;
  data: unknown;
  /** When the change happened, if not the clock's now (a batch of changes of different times). */
  at?: Date;
}

export type OutboxRow = Pick<
  typeof webhookEvents.$inferInsert,
  "organizationId" | "type" | "payload"
>;

/** The outbox row's columns, for a statement that takes them as placeholders. */
export const outboxTable = webhookEvents;

/** The outbox row of an event: its payload is the body of a raw delivery. */
export function outboxRow(clock: Clock, event: OutboxEvent): OutboxRow {
  const timestamp = (event.at ?? clock.now()).toISOString();
  return {
    organizationId: event.organizationId,
    type: event.type,
    payload: { type: event.type, timestamp, data: event.data },
  };
}

/**
 * A new outbox row's dispatched_at: null while an enabled endpoint of the organization subscribes
 * to the type (the dispatcher then fans it out), else now.
 */
function dispatchedAtOf(organizationId: SQL | string, type: SQL | string): SQL {
  return sql`case when exists (select 1 from ${webhookEndpoints} w
    where w.organization_id = ${organizationId} and w.enabled and ${type} = any(w.events))
    then null else now() end`;
}

/** The outbox row's insert, not yet run (values may be placeholders of a prepared statement). */
export function outboxInsert(db: Db, row: OutboxRow | { [K in keyof OutboxRow]: SQL }) {
  return db
    .insert(webhookEvents)
    .values({ ...row, dispatchedAt: dispatchedAtOf(row.organizationId, row.type) })
    .returning({ id: webhookEvents.id });
}

export async function recordEvent(tx: Tx, clock: Clock, event: OutboxEvent): Promise<string> {
  const [row] = await outboxInsert(tx, outboxRow(clock, event));
  return row!.id;
}

/**
 * Many events in one statement, recorded (and later delivered) in the order given. The columns go
 * as three texts split on U+0001, which JSON.stringify always escapes, so no value contains it:
 * PostgreSQL then parses each payload once, as it enters its json column, instead of first
 * parsing one document of all the rows (insertJsonRows) and then each payload again; a batch of
 * renewals records over a thousand events of a few kilobytes each.
 */
export async function recordEvents(tx: Tx, clock: Clock, events: OutboxEvent[]): Promise<void> {
  if (events.length === 0) return;
  const rows = events.map((e) => outboxRow(clock, e));
  const column = (f: (r: OutboxRow) => string) => rows.map(f).join(SEPARATOR);
  // Events of one change often carry the same object (order.created and order.paid, or
  // subscription.updated and subscription.cycled): it is serialized once, into the same bytes
  // JSON.stringify gives the whole payload.
  const serialized = new Map<unknown, string>();
  const payloadText = ({ payload }: OutboxRow) => {
    if (payload.data === null || typeof payload.data !== "object") return JSON.stringify(payload);
    let data = serialized.get(payload.data);
    if (data === undefined) {
      data = JSON.stringify(payload.data);
      serialized.set(payload.data, data);
    }
    return `{"type":${JSON.stringify(payload.type)},"timestamp":${JSON.stringify(payload.timestamp)},"data":${data}}`;
  };
  await tx.execute(sql`
    insert into ${webhookEvents} (organization_id, type, payload, dispatched_at)
    select o, t, p::json, ${dispatchedAtOf(sql`o`, sql`t`)}
    from unnest(
      string_to_array(${column((r) => r.organizationId)}::text, ${SEPARATOR})::uuid[],
      string_to_array(${column((r) => r.type)}::text, ${SEPARATOR}),
      string_to_array(${column(payloadText)}::text, ${SEPARATOR})
    ) with ordinality as r(o, t, p, n)
    order by n`);
}

const SEPARATOR = "\u0001";
