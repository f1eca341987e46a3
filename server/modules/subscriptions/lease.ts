// One change of a subscription at a time, across processes: an API or portal change, a retry after
// a new card, and the engine's renewals take the subscription's lease before they charge anything
// and give it back when done, so a change can no longer race a charge (two upgrades both charged,
// a revoke undone by the renewal in flight). A holder renews its leases every HEARTBEAT_MS however
// long its work takes; one that dies lets them lapse within LEASE_SECONDS. A change that finds a
// subscription held answers 409 SubscriptionLocked, as Polar does; the engine leaves the row to
// its job's retry.
import type { Db } from "../../../db/client.ts";
import { ApiError } from "../../lib/errors.ts";
import { startHeartbeat } from "../../lib/heartbeat.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import { releaseLeases, renewLeases, takeLeases } from "./lease-repository.ts";
import type { SubscriptionRow } from "./repository.ts";

export const LEASE_SECONDS = 30;
const HEARTBEAT_MS = (LEASE_SECONDS * 1000) / 3;

export class SubscriptionLocked extends ApiError {
  constructor() {
    super(
      409,
      "SubscriptionLocked",
      "This subscription is pending an update and cannot be modified at the moment. Try again shortly.",
    );
  }
}

/** Leases taken together: kept alive until given back. */
interface Held {
  /** Gives back those of `ids` still held, and stops renewing all of them. */
  release(ids: string[]): Promise<void>;
}

function hold(db: Db, rows: SubscriptionRow[]): Held {
  const ids = rows.map((r) => r.id);
  // One statement took them all: one end, the holder's token.
  let until = rows[0]?.lockedUntil ?? null;
  const stop = startHeartbeat(HEARTBEAT_MS, async () => {
    if (until) until = await renewLeases(db, ids, until, LEASE_SECONDS);
  });
  return {
    async release(which) {
      await stop();
      if (until) await releaseLeases(db, which, until);
    },
  };
}

/** Runs `fn` on the subscription as it is once leased; SubscriptionLocked when another holds it. */
export async function withLease<T>(
  db: Db,
  s: { id: string; organizationId: string },
  fn: (leased: SubscriptionRow) => Promise<T>,
): Promise<T> {
  const [leased] = await takeLeases(db, scopeOfResource(s), [s.id], LEASE_SECONDS);
  if (!leased) throw new SubscriptionLocked();
  const held = hold(db, [leased]);
  try {
    return await fn(leased);
  } finally {
    await held.release([s.id]);
  }
}

/**
 * Leases what it can of `subs`: the rows as they are now, the ids another holds, and the means to
 * give the leases back.
 */
export async function leaseMany(
  db: Db,
  subs: { id: string; organizationId: string }[],
): Promise<{ leased: SubscriptionRow[]; held: string[] } & Held> {
  if (subs.length === 0) return { leased: [], held: [], release: async () => undefined };
  const ids = subs.map((s) => s.id);
  const leased = await takeLeases(db, scopeOfResource(...subs), ids, LEASE_SECONDS);
  const got = new Set(leased.map((r) => r.id));
  return { leased, held: ids.filter((id) => !got.has(id)), ...hold(db, leased) };
}
