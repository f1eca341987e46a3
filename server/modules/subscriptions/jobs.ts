// The pg-boss side of the engine: one job per due boundary wakes the subscription at that time (on
// the organization's clock), and the sandbox clock's advance runs everything due up to its target
// in time order before it answers.
import type { JobDefinition } from "../../jobs/queue.ts";
import type { Clock } from "../../lib/clock.ts";
import { organizationClock } from "../sandbox-clock/queries.ts";
import type { BillingDeps } from "./deps.ts";
import { runDue, type DueOutcome } from "./due.ts";
import * as repo from "./repository.ts";
import { dueJobKey, SUBSCRIPTION_DUE_JOB } from "./schedule.ts";

export { SUBSCRIPTION_DUE_JOB };

export function subscriptionDueJob(deps: BillingDeps): JobDefinition<{ subscriptionId: string }> {
  return {
    name: SUBSCRIPTION_DUE_JOB,
    // A worker that dies mid-renewal leaves its job active; pg-boss hands it out again after this,
    // and the renewal's unique order key and the charge's idempotency key make the re-run safe.
    // `short`: one queued job per singleton key (the subscription and its due time), so the
    // catch-up below and a re-scheduled boundary never queue the same work twice.
    queue: { policy: "short", retryLimit: 10, retryDelay: 5, expireInSeconds: 60 },
    // Many subscriptions fall due at the same instant (the 1st of the month): a batch is renewed
    // concurrently, each in its own transactions, and full batches are fetched back to back.
    work: { pollingIntervalSeconds: 1, batchSize: 16, burstWhenBatchFull: true },
    async handle(jobs) {
      const results = await Promise.allSettled(
        jobs.map(async (job) => {
          const s = await repo.subscriptionById(deps.db, job.data.subscriptionId);
          if (!s) return;
          const clock = await organizationClock(deps.db, deps.clock, s.organizationId);
          await runDue(deps, s.id, clock.now());
        }),
      );
      // A failed one fails the batch: pg-boss retries them all, and those done find nothing due.
      const failed = results.find((r) => r.status === "rejected");
      if (failed) throw failed.reason;
    },
  };
}

export const SUBSCRIPTION_CATCH_UP_JOB = "subscriptions.catch-up";

/**
 * Wakes every subscription whose boundary has passed in real time: after a worker died holding
 * jobs, or a restart, their work is not left waiting for pg-boss to expire the dead jobs. An index
 * range over next_action_at, not a scan of every row; a wake-up with nothing due does nothing.
 */
export async function wakeOverdue(deps: BillingDeps): Promise<number> {
  if (!deps.queue) return 0;
  const due = await repo.overdue(deps.db, deps.clock.now(), 20_000);
  if (due.length > 0)
    await deps.queue.boss.insert(
      SUBSCRIPTION_DUE_JOB,
      due.map((d) => ({
        data: { subscriptionId: d.id },
        singletonKey: dueJobKey(d.id, d.nextActionAt),
      })),
    );
  return due.length;
}

export function subscriptionCatchUpJob(deps: BillingDeps): JobDefinition {
  return {
    name: SUBSCRIPTION_CATCH_UP_JOB,
    queue: { retryLimit: 1 },
    schedule: "* * * * *",
    handle: async () => ({ woken: await wakeOverdue(deps) }),
  };
}

/**
 * Runs the organization's work due up to `target`, earliest first, each piece as of its own due
 * time (a renewal due on the 1st is made on the 1st, and a retry it schedules for the 4th runs in
 * the same pass when the target is later). Returns how many pieces did something.
 */
export async function runDueUntil(
  deps: BillingDeps,
  organizationId: string,
  now: Clock,
  target: Date,
): Promise<number> {
  let done = 0;
  // Bounded: every step moves a subscription's next_action_at forward or clears it.
  for (let guard = 0; guard < 100_000; guard++) {
    const [next] = await repo.dueOfOrganization(deps.db, organizationId, target, 1);
    if (!next) break;
    const current = now.now();
    const at = next.nextActionAt > current ? next.nextActionAt : current;
    const outcome: DueOutcome = await runDue(deps, next.id, at > target ? target : at);
    if (outcome === "none") {
      // Nothing to do at its time (a stale boundary): move it on so the loop does too.
      await repo.resyncStaleAction(deps.db, next.id, next.nextActionAt);
    } else done++;
  }
  return done;
}
