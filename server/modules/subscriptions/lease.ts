// One change of a subscription at a time, across processes: an API or portal change, a retry after
// a new card, and the engine's renewals take the subscription's lease before they charge anything
// and give it back when done, so a change can no longer race a charge (two upgrades both charged,
// a revoke undone by the renewal in flight). A holder that dies lets it lapse after LEASE_SECONDS.
// A change that finds it held answers 409 SubscriptionLocked, as Polar does; the engine leaves the
// row to its job's retry.
import type { Db } from "../../../db/client.ts";
import { ApiError } from "../../lib/errors.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import { releaseLeases, takeLeases } from "./lease-repository.ts";
import type { SubscriptionRow } from "./repository.ts";

export const LEASE_SECONDS = 120;

export class SubscriptionLocked extends ApiError {
  constructor() {
    super(
      409,
      "SubscriptionLocked",
      "This subscription is pending an update and cannot be modified at the moment. Try again shortly.",
    );
  }
}

/** Runs `fn` on the subscription as it is once leased; SubscriptionLocked when another holds it. */
export async function withLease<T>(
  db: Db,
  s: { id: string; organizationId: string },
  fn: (leased: SubscriptionRow) => Promise<T>,
): Promise<T> {
  const [leased] = await takeLeases(db, scopeOfResource(s), [s.id], LEASE_SECONDS);
  if (!leased) throw new SubscriptionLocked();
  try {
    return await fn(leased);
  } finally {
    await releaseLeases(db, [s.id]);
  }
}

/** Leases what it can of `subs`: the rows as they are now, and the ids another holds. */
export async function leaseMany(
  db: Db,
  subs: { id: string; organizationId: string }[],
): Promise<{ leased: SubscriptionRow[]; held: string[] }> {
  if (subs.length === 0) return { leased: [], held: [] };
  const ids = subs.map((s) => s.id);
  const leased = await takeLeases(db, scopeOfResource(...subs), ids, LEASE_SECONDS);
  const got = new Set(leased.map((r) => r.id));
  return { leased, held: ids.filter((id) => !got.has(id)) };
}

export { releaseLeases };
