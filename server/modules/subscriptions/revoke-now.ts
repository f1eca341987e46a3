// A subscription revoked now for another module's use case (a lost dispute), with the same events
// as PATCH `revoke`. A renewal or change in flight holds the subscription's lease and would write
// its period over the revocation when it finishes; so a leased subscription is revoked by a job
// that takes the lease, tried again until the holder has given it back.
import { sql } from "drizzle-orm";
import { fromDrizzle } from "pg-boss";
import { inTransaction, type Tx } from "../../../db/client.ts";
import { JOB_HEARTBEAT_SECONDS, type JobDefinition } from "../../jobs/queue.ts";
import type { Clock } from "../../lib/clock.ts";
import { type OrgScope, scopeOfResource } from "../../lib/org-scope.ts";
import { organizationClock } from "../sandbox-clock/queries.ts";
import { recordCustomerState, recordSubscriptionEvents } from "./events.ts";
import { withLease } from "./lease.ts";
import { leaseHeld } from "./lease-repository.ts";
import * as repo from "./repository.ts";
import { hasEnded } from "./schemas.ts";
import type { SubscriptionDeps } from "./service.ts";
import { applyChange } from "./update.ts";

export const REVOKE_SUBSCRIPTION_JOB = "subscriptions.revoke";

interface RevokeJob {
  organizationId: string;
  subscriptionId: string;
}

/**
 * Revokes the subscription inside the caller's transaction: "revoked", "ended" when it had already
 * ended (or is not in the scope, that of the row the caller revokes it through), or "queued" when
 * another holds its lease and the job will revoke it. `leased`: the caller holds the lease itself.
 */
export async function revokeSubscriptionNow(
  tx: Tx,
  deps: SubscriptionDeps,
  clock: Clock,
  scope: OrgScope,
  id: string,
  leased = false,
): Promise<"revoked" | "ended" | "queued"> {
  const s = await repo.lockSubscription(tx, scope, id);
  if (!s || hasEnded(s.status)) return "ended";
  // Under the row lock: no lease can be taken until this transaction ends.
  if (!leased && deps.queue && (await leaseHeld(tx, s.id))) {
    const db = fromDrizzle(tx as unknown as Parameters<typeof fromDrizzle>[0], sql);
    const job: RevokeJob = { organizationId: s.organizationId, subscriptionId: s.id };
    await deps.queue.boss.send(REVOKE_SUBSCRIPTION_JOB, job, {
      db,
      retryLimit: 1_000,
      retryDelay: 5,
    });
    return "queued";
  }
  const change = (await applyChange(tx, deps, clock, s, { revoke: true }))!;
  await recordSubscriptionEvents(tx, { clock, baseUrl: deps.baseUrl }, change.row, change.events);
  await recordCustomerState(tx, clock, s);
  return "revoked";
}

/** The queued revocation: under the lease, or failed (SubscriptionLocked) and tried again. */
export function revokeSubscriptionJob(deps: SubscriptionDeps): JobDefinition<RevokeJob> {
  return {
    name: REVOKE_SUBSCRIPTION_JOB,
    queue: { heartbeatSeconds: JOB_HEARTBEAT_SECONDS },
    handle: async (jobs) => {
      for (const { data } of jobs) {
        const target = { id: data.subscriptionId, organizationId: data.organizationId };
        await withLease(deps.db, target, () =>
          inTransaction(deps.db, async (tx) => {
            const clock = await organizationClock(tx, deps.clock, data.organizationId);
            await revokeSubscriptionNow(tx, deps, clock, scopeOfResource(target), target.id, true);
          }),
        );
      }
    },
  };
}
