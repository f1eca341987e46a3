// Expiry: every minute, open sessions past expires_at become expired, each with checkout.updated and
// checkout.expired in the same transaction. Reads do not wait for this job: an open session past
// its expiry already answers 410. The sandbox clock expires one organization's sessions as of the
// time it moves to.
import { inTransaction } from "../../../db/client.ts";
import { JOB_HEARTBEAT_SECONDS, type JobDefinition } from "../../jobs/queue.ts";
import type { OrgScope } from "../../lib/org-scope.ts";
import { recordEvent } from "../webhooks/outbox.ts";
import { checkoutEventData } from "./public.ts";
import * as repo from "./repository.ts";
import type { CheckoutDeps } from "./service.ts";

export const EXPIRE_CHECKOUTS_JOB = "checkouts.expire";

export type ExpiryDeps = Pick<CheckoutDeps, "db" | "clock" | "config" | "secretBox">;

/** Every organization's expired sessions, or (a sandbox clock's move) those of `only` as of `at`. */
export async function expireCheckouts(
  deps: ExpiryDeps,
  only?: { scope: OrgScope; at: Date },
): Promise<number> {
  return inTransaction(deps.db, async (tx) => {
    const expired = only
      ? await repo.expireDue(tx, only.scope, only.at)
      : await repo.expireDueForJob(tx, deps.clock.now());
    for (const row of expired) {
      const data = await checkoutEventData(deps, tx, row);
      await recordEvent(tx, deps.clock, {
        organizationId: row.organizationId,
        type: "checkout.updated",
        data,
      });
      await recordEvent(tx, deps.clock, {
        organizationId: row.organizationId,
        type: "checkout.expired",
        data,
      });
    }
    return expired.length;
  });
}

export function expireCheckoutsJob(deps: ExpiryDeps): JobDefinition {
  return {
    name: EXPIRE_CHECKOUTS_JOB,
    queue: { retryLimit: 3, heartbeatSeconds: JOB_HEARTBEAT_SECONDS },
    schedule: "* * * * *",
    handle: async () => ({ expired: await expireCheckouts(deps) }),
  };
}
