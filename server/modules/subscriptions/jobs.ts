// The pg-boss side of the engine: one job per organization and second of its clock wakes the
// subscriptions whose boundary falls in that second, and the sandbox clock's advance runs
// everything due up to its target in time order before it answers.
import { JOB_HEARTBEAT_SECONDS, type JobDefinition } from "../../jobs/queue.ts";
import type { Clock } from "../../lib/clock.ts";
import type { OrgScope } from "../../lib/org-scope.ts";
import type { BillingDeps } from "./deps.ts";
import { SubscriptionLocked } from "./lease.ts";
import { RENEWAL_BATCH_SIZE, runDue, runDueMany, runDueWindow, type DueOutcome } from "./due.ts";
import { renewBatch } from "./renewal-batch.ts";
import { renewableInBatch } from "./renewal-rows.ts";
import * as repo from "./repository.ts";
import { type DueJob, dueJobKey, SUBSCRIPTION_DUE_JOB } from "./schedule.ts";

export { SUBSCRIPTION_DUE_JOB };

export function subscriptionDueJob(deps: BillingDeps): JobDefinition<DueJob> {
  return {
    name: SUBSCRIPTION_DUE_JOB,
    // A worker that dies mid-renewal stops its heartbeat, and pg-boss hands the job out again
    // within about a minute; the renewal's unique order key and the charge's idempotency key make
    // the re-run safe. A live worker keeps its window however long it takes (thousands of
    // renewals), up to the expiry, which only bounds a worker that hangs.
    // `short`: one queued job per singleton key (the organization and its window), so the
    // catch-up below and a re-scheduled boundary never queue the same work twice.
    queue: {
      policy: "short",
      retryLimit: 10,
      retryDelay: 5,
      heartbeatSeconds: JOB_HEARTBEAT_SECONDS,
      expireInSeconds: 15 * 60,
    },
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
    queue: { retryLimit: 1, heartbeatSeconds: JOB_HEARTBEAT_SECONDS },
    schedule: "* * * * *",
    handle: async () => ({ woken: await wakeOverdue(deps) }),
  };
}

const LEASE_WAIT_MS = 250;
const MAX_LEASE_WAITS = 40;
const DAY_MS = 86_400_000;
const SHORTEST_DAYS = { day: 1, week: 7, month: 28, year: 365 } as const;

/**
 * The plain renewals leading `due` (in time order) that one batch may make, each as of its own
 * time: a row renewed moves on by at least its shortest period (a day when it has meter cycles or
 * a change of plan waiting) or to its first payment retry, so a batch ends before the earliest
 * time any of its rows could be due again, and the work of all the subscriptions still comes in
 * time order.
 */
function renewalWindow(
  deps: BillingDeps,
  due: { row: repo.SubscriptionRow; at: Date }[],
): repo.SubscriptionRow[] {
  const retryMs = (deps.retryDays[0] ?? 0) * DAY_MS;
  const first = due[0]!.at.getTime();
  let end = first + retryMs;
  const window: repo.SubscriptionRow[] = [];
  for (const { row, at } of due) {
    if (at.getTime() > first && at.getTime() >= end) break;
    // A change of plan applied at this renewal may bring any interval: a day, at the shortest.
    const days =
      row.currentMeterPeriodEnd || row.pendingUpdate
        ? 1
        : SHORTEST_DAYS[row.recurringInterval as keyof typeof SHORTEST_DAYS] *
          row.recurringIntervalCount;
    end = Math.min(end, first + days * DAY_MS);
    if (at.getTime() > first && at.getTime() >= end) break;
    window.push(row);
  }
  return window;
}

/**
 * Runs the work due in the scope (the organization whose clock moves) up to `target`, earliest
 * first, each piece as of its own due time (a renewal due on the 1st is made on the 1st, and a
 * retry it schedules for the 4th runs in the same pass when the target is later). Returns how
 * many pieces did something, and, when an aborted `signal` stopped it between pieces, the time
 * up to which everything due is done.
 */
export async function runDueUntil(
  deps: BillingDeps,
  scope: OrgScope,
  now: Clock,
  target: Date,
  signal?: AbortSignal,
): Promise<{ done: number; stoppedAt?: Date }> {
  let done = 0;
  let waits = 0;
  const wait = async (err: unknown) => {
    if (!(err instanceof SubscriptionLocked) || ++waits > MAX_LEASE_WAITS) throw err;
    await new Promise((r) => setTimeout(r, LEASE_WAIT_MS));
  };
  // Bounded: every step moves a subscription's next_action_at forward or clears it, or waits out
  // a change holding a subscription (a request's lease lasts as long as the request).
  for (let guard = 0; guard < 100_000; guard++) {
    const due = await repo.dueInScope(deps.db, scope, target, RENEWAL_BATCH_SIZE);
    const first = due[0];
    if (!first) break;
    // Stopped between pieces (each is committed or not): all due before the first left is done.
    if (signal?.aborted) return { done, stoppedAt: new Date(first.nextActionAt.getTime() - 1) };
    const current = now.now();
    const timeOf = new Map(
      due.map((d) => {
        // biome-ignore lint/complexity/useMathMinMax: Math.max would turn the Dates into numbers
        const start = d.nextActionAt > current ? d.nextActionAt : current;
        return [d.id, start > target ? target : start];
      }),
    );
    const rows = new Map(
      (
        await repo.subscriptionsByIds(
          deps.db,
          scope,
          due.map((d) => d.id),
        )
      ).map((r) => [r.id, r]),
    );
    const batchable = (d: { id: string }) => {
      const row = rows.get(d.id);
      return row !== undefined && renewableInBatch(row, timeOf.get(d.id)!);
    };
    // The leading run of one kind: plain renewals as one batch, else other work one by one; what
    // follows waits for the next pass, so work of different kinds keeps its time order.
    const end = due.findIndex((d) => batchable(d) !== batchable(first));
    const run = end === -1 ? due : due.slice(0, end);
    let oneByOne = run.filter((d) => d.nextActionAt.getTime() === first.nextActionAt.getTime());
    if (batchable(first)) {
      const batch = renewalWindow(
        deps,
        run.map((d) => ({ row: rows.get(d.id)!, at: timeOf.get(d.id)! })),
      );
      const result = await renewBatch(deps, batch, (id) => timeOf.get(id)!);
      const locked = result.errors.find((e) => e instanceof SubscriptionLocked);
      if (result.errors.length > 0 && !locked) throw result.errors[0];
      done += result.renewed.length;
      if (locked) {
        await wait(locked);
        continue;
      }
      const renewed = new Set(result.renewed);
      oneByOne = batch
        .filter((r) => !renewed.has(r.id))
        .map((r) => ({
          id: r.id,
          nextActionAt: r.nextActionAt!,
        }));
    }
    for (const next of oneByOne) {
      const outcome: DueOutcome | "wait" = await runDue(deps, next.id, timeOf.get(next.id)!).catch(
        async (err: unknown) => {
          await wait(err);
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
  return { done };
}
