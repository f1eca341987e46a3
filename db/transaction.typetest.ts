// Checked by `npm run typecheck`, never run: whoever opens a transaction owns it. A write that must
// commit with its change (an outbox event, a row lock) takes the `Tx` it is handed, the bare pool
// does not pass for one, and a `Tx` cannot open a transaction of its own.
import { systemClock } from "../server/lib/clock.ts";
import { recordEvent, recordEvents } from "../server/modules/webhooks/outbox.ts";
import { type Db, inTransaction, type Tx } from "./client.ts";

const event = { organizationId: "o", type: "order.created", data: {} };

export async function typeChecks(db: Db, tx: Tx) {
  // @ts-expect-error an event is recorded only inside the change's transaction
  await recordEvent(db, systemClock, event);
  // @ts-expect-error also several at once
  await recordEvents(db, systemClock, [event]);
  // @ts-expect-error a transaction inside a transaction (a hidden savepoint) is refused
  await inTransaction(tx, async () => {});
  // @ts-expect-error nor can a Tx be forged from the pool without a cast
  const forged: Tx = db;

  await inTransaction(db, (inner) => recordEvent(inner, systemClock, event));
  await recordEvents(tx, systemClock, [event]);
  // A Tx reads wherever the pool does.
  const reader = (handle: Db) => handle;
  return [reader(tx), forged];
}
