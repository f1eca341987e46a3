// The pg-boss side of the engine: one job per organization and second of its clock wakes the
// subscriptions whose boundary falls in that second, and the sandbox clock's advance runs
// everything due up to its target in time order before it answers.
import type { JobDefinition } from "../../jobs/queue.ts";
import type { Clock } from "../../lib/clock.ts";
import type { OrgScope } from "../../lib/org-scope.ts";
import type { BillingDeps } from "./deps.ts";
import { SubscriptionLocked } from "./lease.ts";
import { RENEWAL_BATCH_SIZE, runDue, runDueMany, runDueWindow, type DueOutcome } from "./due.ts";
import { renewableInBatch, renewBatch } from "./renewal-batch.ts";
import * as repo from "./repository.ts";
import { type DueJob, dueJobKey, SUBSCRIPTION_DUE_JOB } from "./schedule.ts";

export { SUBSCRIPTION_DUE_JOB };

export function subscriptionDueJob(deps: BillingDeps): JobDefinition<DueJob> {
  return {
    name: SUBSCRIPTION_DUE_JOB,
    // A worker that dies mid-renewal leaves its job active; pg-boss hands it out again after this,
    // and the renewal's unique order key and the charge's idempotency key make the re-run safe.
    // `short`: one queued job per singleton key (the organization and its window), so the
    // catch-up below and a re-scheduled boundary never queue the same work twice.
    queue: { policy: "short", retryLimit: 10, retryDelay: 5, expireInSeconds: 60 },
    // A job is a whole window of an organization (renewed in batches, due.ts), so a few at a
    // time; jobs of the earlier one-per-subscription shape are still taken, many at once.
    work: { pollingIntervalSeconds: 1, batchSize: 20, localConcurrency: 2 },
    async handle(jobs) {
      // A failure fails the whole batch of jobs: pg-boss retries them, and those done find
      // nothing due.
      const errors: unknown[] = [];
      const legacy = jobs.flatMap((j) =>
        "subscriptionId" in j.data ? [j.data.subscriptionId] : [],
      );
      if (legacy.length > 0)
        await runDueMany(deps, [...new Set(legacy)]).catch((e) => errors.push(e));
      const windows = new Map<string, { organizationId: string; window: Date | null }>();
      for (const { data } of jobs)
        if ("organizationId" in data)
          windows.set(`${data.organizationId}:${data.window}`, {
            organizationId: data.organizationId,
            window: data.window ? new Date(data.window) : null,
          });
      for (const w of windows.values())
        await runDueWindow(deps, w.organizationId, w.window).catch((e) => errors.push(e));
      if (errors.length > 0) throw errors[0];
    },
  };
}

export const SUBSCRIPTION_CATCH_UP_JOB = "subscriptions.catch-up";

/**
 * Wakes every organization with a subscription whose boundary has passed in real time: after a
 * worker died holding jobs, or a restart, their work is not left waiting for pg-boss to expire the
 * dead jobs. One job per organization sweeps all it has due (an index range over next_action_at,
 * not a scan of every row); a wake-up with nothing due does nothing.
 */
export async function wakeOverdue(deps: BillingDeps): Promise<number> {
  if (!deps.queue) return 0;
  const due = await repo.overdue(deps.db, deps.clock.now(), 20_000);
  if (due.length > 0)
    await deps.queue.boss.insert(
      SUBSCRIPTION_DUE_JOB,
      due.map((d) => ({
        data: { organizationId: d.organizationId, window: null } satisfies DueJob,
        singletonKey: dueJobKey(d.organizationId, null),
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

const LEASE_WAIT_MS = 250;
const MAX_LEASE_WAITS = 40;

/**
 * Runs the work due in the scope (the organization whose clock moves) up to `target`, earliest first, each piece as of its own due
 * time (a renewal due on the 1st is made on the 1st, and a retry it schedules for the 4th runs in
 * the same pass when the target is later). Returns how many pieces did something.
 */
export async function runDueUntil(
  deps: BillingDeps,
  scope: OrgScope,
  now: Clock,
  target: Date,
): Promise<number> {
  let done = 0;
  let waits = 0;
  // Bounded: every step moves a subscription's next_action_at forward or clears it, or waits out
  // a change holding a subscription (a request's lease lasts as long as the request).
  for (let guard = 0; guard < 100_000; guard++) {
    const due = await repo.dueInScope(deps.db, scope, target, RENEWAL_BATCH_SIZE);
    const first = due[0];
    if (!first) break;
    const current = now.now();
    // biome-ignore lint/complexity/useMathMinMax: Math.max would turn the Dates into numbers
    const start = first.nextActionAt > current ? first.nextActionAt : current;
    const at = start > target ? target : start;
    // Everything due at the same instant: its plain renewals as one batch, the rest one by one.
    const same = due.filter((d) => d.nextActionAt.getTime() === first.nextActionAt.getTime());
    const rows = await repo.subscriptionsByIds(
      deps.db,
      scope,
      same.map((d) => d.id),
    );
    const batch = rows.filter((r) => renewableInBatch(r, at));
    const result = await renewBatch(deps, batch, at);
    const locked = result.errors.find((e) => e instanceof SubscriptionLocked);
    if (result.errors.length > 0 && (!locked || ++waits > MAX_LEASE_WAITS)) throw result.errors[0];
    done += result.renewed.length;
    if (locked) {
      await new Promise((r) => setTimeout(r, LEASE_WAIT_MS));
      continue;
    }
    const renewed = new Set(result.renewed);
    for (const next of same.filter((d) => !renewed.has(d.id))) {
      const outcome: DueOutcome | "wait" = await runDue(deps, next.id, at).catch(
        async (err: unknown) => {
          if (!(err instanceof SubscriptionLocked) || ++waits > MAX_LEASE_WAITS) throw err;
          await new Promise((r) => setTimeout(r, LEASE_WAIT_MS));
          return "wait" as const;
        },
      );
      if (outcome === "wait") break;
      if (outcome === "none") {
        // Nothing to do at its time (a stale boundary): move it on so the loop does too.
        await repo.resyncStaleAction(deps.db, next.id, next.nextActionAt);
      } else done++;
    }
  }
  return done;
}
