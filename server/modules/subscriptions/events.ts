// Recording a subscription's webhook events inside the transaction of its change, in Polar's order.
import type { Tx } from "../../../db/client.ts";
import type { Clock } from "../../lib/clock.ts";
import { recordEvent } from "../webhooks/outbox.ts";
import type { SubscriptionRow } from "./repository.ts";
import { recordCustomerState, serializeSubscription } from "./service.ts";

export async function recordSubscriptionEvents(
  tx: Tx,
  deps: { clock: Clock; baseUrl: string },
  row: SubscriptionRow,
  types: string[],
): Promise<void> {
  if (types.length === 0) return;
  const data = await serializeSubscription(tx, deps.baseUrl, row);
  for (const type of types)
    await recordEvent(tx, deps.clock, { organizationId: row.organizationId, type, data });
}

export { recordCustomerState };
