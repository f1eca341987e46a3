// The one outbox function: every state change calls it inside its own transaction, so an event is
// recorded exactly when the change commits and never for a change that rolled back.
import type { Db } from "../../../db/client.ts";
import { webhookEvents } from "../../../db/schema/index.ts";
import type { Clock } from "../../lib/clock.ts";

export interface OutboxEvent {
  organizationId: string;
  type: string;
  data: unknown;
}

export async function recordEvent(tx: Db, clock: Clock, event: OutboxEvent): Promise<string> {
  const timestamp = clock.now().toISOString();
  const [row] = await tx
    .insert(webhookEvents)
    .values({
      organizationId: event.organizationId,
      type: event.type,
      payload: { type: event.type, timestamp, data: event.data },
    })
    .returning({ id: webhookEvents.id });
  return row!.id;
}
