// The engine's one entry point: whatever is due on a subscription as of `at` (renewal, meter
// cycle, trial end, payment retry, end or pause at period end, resume). Called by the pg-boss job
// when the row's time comes and by the sandbox clock while it moves; every branch re-checks the
// row under a lock, so a call with nothing due, or a second call for the same boundary, changes
// nothing.
import { inTransaction } from "../../../db/client.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import { dueMeterOrderOfSubscription } from "../orders/queries.ts";
import { organizationClock } from "../sandbox-clock/queries.ts";
import type { BillingDeps } from "./deps.ts";
import { retryPayment } from "./dunning.ts";
import { withLease } from "./lease.ts";
import { retryMeterOrder } from "./meter-dunning.ts";
import { meterCycleDue, settleMeterCycle } from "./meter-cycle.ts";
import { endAtPeriodEnd, pauseAtPeriodEnd, resumeSubscription } from "./period-end.ts";
import { renewSubscription } from "./renewal.ts";
import { renewBatch } from "./renewal-batch.ts";
import { renewableInBatch } from "./renewal-rows.ts";
import * as repo from "./repository.ts";
import { nextActionOf, scheduleNext, takesMeterRetries } from "./schedule.ts";

export type DueOutcome =
  | "none"
  | "renewed"
  | "metered"
  | "retried"
  | "ended"
  | "paused"
  | "resumed";

/**
 * `leased` when the caller holds the subscription's lease (a change that made it due now);
 * otherwise it is taken here, and SubscriptionLocked thrown when another holds it (the job retries).
 */
export async function runDue(
  deps: BillingDeps,
  id: string,
  at: Date,
  opts: { leased?: boolean } = {},
): Promise<DueOutcome> {
  const found = await repo.subscriptionByIdForJob(deps.db, id);
  if (!found?.nextActionAt || found.nextActionAt > at) return "none";
  if (opts.leased) return dueWork(deps, found, at);
  return withLease(deps.db, found, (s) =>
    s.nextActionAt && s.nextActionAt <= at ? dueWork(deps, s, at) : Promise.resolve("none"),
  );
}

async function dueWork(deps: BillingDeps, s: repo.SubscriptionRow, at: Date): Promise<DueOutcome> {
  // Woken before its own boundary: a declined meter-cycle settlement is due a retry.
  const boundary = nextActionOf(s);
  if (
    takesMeterRetries(s) &&
    (!boundary || (s.nextActionAt !== null && s.nextActionAt < boundary))
  ) {
    const owed = await dueMeterOrderOfSubscription(deps.db, s, at);
    if (owed) return (await retryMeterOrder(deps, s, owed, at)) ? "retried" : "none";
    // Paid or voided meanwhile (the portal pays pending orders): back to its own boundary.
    await inTransaction(deps.db, async (tx) => {
      const locked = await repo.lockSubscription(tx, scopeOfResource(s), s.id);
      if (locked) await scheduleNext(tx, deps.queue, locked);
    });
  }
  switch (s.status) {
    case "active":
    case "trialing":
      // A meter cycle ends strictly inside the period, so it always comes before the renewal.
      if (meterCycleDue(s, at)) return (await settleMeterCycle(deps, s, at)) ? "metered" : "none";
      if (s.currentPeriodEnd > at) return "none";
      if (s.cancelAtPeriodEnd) return (await endAtPeriodEnd(deps, s, at)) ? "ended" : "none";
      if (s.pauseAtPeriodEnd) return (await pauseAtPeriodEnd(deps, s, at)) ? "paused" : "none";
      return (await renewSubscription(deps, s, at)) ? "renewed" : "none";
    case "past_due":
      return (await retryPayment(deps, s, at)) ? "retried" : "none";
    case "paused":
      if (!s.resumesAt || s.resumesAt > at) return "none";
      return (await resumeSubscription(deps, s, at)) ? "resumed" : "none";
    default:
      return "none";
  }
}

/**
 * runDue for many subscriptions (a batch of wake-up jobs of the earlier one-per-subscription
 * shape): each organization's rows as runDueRows does them. Throws the first failure after the
 * rest is done, so the jobs are retried and the finished ones find nothing due.
 */
export async function runDueMany(deps: BillingDeps, ids: string[]): Promise<void> {
  const rows = await repo.subscriptionsByIdsForJob(deps.db, ids);
  const errors: unknown[] = [];
  for (const organizationId of new Set(rows.map((r) => r.organizationId))) {
    const at = (await organizationClock(deps.db, deps.clock, organizationId)).now();
    const ofOrg = rows.filter((r) => r.organizationId === organizationId);
    const result = await runDueRows(deps, ofOrg, at);
    errors.push(...result.errors);
  }
  if (errors.length > 0) throw errors[0];
}

/**
 * Everything one organization has due in a wake-up job's window (repo.dueInWindow), read in pages
 * (RENEWAL_BATCH_SIZE rows), RENEWAL_LANES pages worked at once. A page's rows leave the window as
 * they are done (their next_action_at moves on), so the next read starts past them; the rows still
 * being worked on, and those a failure left as they were, are excluded from later reads. Throws
 * the first failure once the window is done, so the job is retried for what is left.
 */
export async function runDueWindow(
  deps: BillingDeps,
  organizationId: string,
  window: Date | null,
  page = RENEWAL_BATCH_SIZE,
): Promise<number> {
  const scope = scopeOfResource({ organizationId });
  const at = (await organizationClock(deps.db, deps.clock, organizationId)).now();
  const to = window && window < at ? window : at;
  const from = window ? new Date(window.getTime() - 1000) : null;
  const excluded = new Set<string>();
  const errors: unknown[] = [];
  let done = 0;
  let finished = false;
  // Pages are read one at a time, so a read excludes every row handed out before it.
  let reading: Promise<unknown> = Promise.resolve();
  const nextPage = (): Promise<repo.SubscriptionRow[]> => {
    const read = reading.then(async () => {
      if (finished) return [];
      const rows = await repo.dueInWindow(deps.db, scope, { from, to }, [...excluded], page);
      if (rows.length < page) finished = true;
      for (const r of rows) excluded.add(r.id);
      return rows;
    });
    reading = read.catch(() => undefined);
    return read;
  };
  const lane = async () => {
    for (let rows = await nextPage(); rows.length > 0; rows = await nextPage()) {
      const result = await runDueRows(deps, rows, at);
      errors.push(...result.errors);
      done += result.done.length;
      // Done rows have left the window; the others stay excluded so no read returns them again.
      for (const id of result.done) excluded.delete(id);
    }
  };
  await Promise.all(Array.from({ length: RENEWAL_LANES }, lane));
  if (errors.length > 0) throw errors[0];
  return done;
}

/** The most subscriptions one batch transaction renews: a window's page. */
export const RENEWAL_BATCH_SIZE = 200;

/**
 * Pages worked at once. A page alternates between this process (plans, payloads) and the
 * database (its statements); with three in flight one of them is nearly always on each side
 * (bench/renewals.ts: 10,000 due renewals, 5-7 % faster than two; four are within 3 % of three
 * on two cores).
 */
export const RENEWAL_LANES = 3;

/**
 * The due work of rows of one organization as of `at`: the plain renewals through the set-based
 * batch path, everything else, and any row the batch found held by another worker or could not
 * write, one by one. Answers the rows that did something and the failures.
 */
async function runDueRows(
  deps: BillingDeps,
  rows: repo.SubscriptionRow[],
  at: Date,
): Promise<{ done: string[]; errors: unknown[] }> {
  const errors: unknown[] = [];
  const done: string[] = [];
  const batch = rows.filter((r) => renewableInBatch(r, at));
  const single = rows.filter((r) => !batch.includes(r)).map((r) => r.id);
  try {
    const result = await renewBatch(deps, batch, at);
    done.push(...result.renewed);
    single.push(...result.leftOver);
    errors.push(...result.errors);
  } catch {
    // The batch's transaction rolled back as a whole: each renews on its own (its charge is
    // answered again under the same key), so one bad row cannot hold up the others.
    single.push(...batch.map((r) => r.id));
  }
  const lanes = Array.from({ length: Math.min(SINGLE_CONCURRENCY, single.length) }, async () => {
    for (let id = single.shift(); id; id = single.shift()) {
      const outcome = await runDue(deps, id, at).catch((err: unknown) => {
        errors.push(err);
        return "none" as const;
      });
      if (outcome !== "none") done.push(id);
    }
  });
  await Promise.all(lanes);
  return { done, errors };
}

const SINGLE_CONCURRENCY = 16;
