// The one outbox function: every state change calls it inside its own transaction, so an event is
// recorded exactly when the change commits and never for a change that rolled back. A change made
// by a single statement may instead embed outboxInsert in that statement (a data-modifying CTE),
// which is atomic by itself.
import type { Db } from "../../../db/client.ts";
import { webhookEvents } from "../../../db/schema/index.ts";
import type { Clock } from "../../lib/clock.ts";

export interface OutboxEvent {
  organizationId: string;
  type: string;
  data: unknown;
}

/** The outbox row's insert, not yet run. */
export function outboxInsert(db: Db, clock: Clock, event: OutboxEvent) {
  const timestamp = clock.now().toISOString();
  return db
    .insert(webhookEvents)
    .values({
      organizationId: event.organizationId,
      type: event.type,
      payload: { type: event.type, timestamp, data: event.data },
    })
    .returning({ id: webhookEvents.id });
}

export type OutboxInsert = ReturnType<typeof outboxInsert>;

export async function recordEvent(tx: Db, clock: Clock, event: OutboxEvent): Promise<string> {
  const [row] = await outboxInsert(tx, clock, event);
  return row!.id;
}
