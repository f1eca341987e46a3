// The engine's one entry point: whatever is due on a subscription as of `at` (renewal, meter
// cycle, trial end, payment retry, end or pause at period end, resume). Called by the pg-boss job
// when the row's time comes and by the sandbox clock while it moves; every branch re-checks the
// row under a lock, so a call with nothing due, or a second call for the same boundary, changes
// nothing.
import { organizationClock } from "../sandbox-clock/queries.ts";
import type { BillingDeps } from "./deps.ts";
import { retryPayment } from "./dunning.ts";
import { meterCycleDue, settleMeterCycle } from "./meter-cycle.ts";
import { endAtPeriodEnd, pauseAtPeriodEnd, resumeSubscription } from "./period-end.ts";
import { renewSubscription } from "./renewal.ts";
import { renewableInBatch, renewBatch } from "./renewal-batch.ts";
import * as repo from "./repository.ts";

export type DueOutcome =
  | "none"
  | "renewed"
  | "metered"
  | "retried"
  | "ended"
  | "paused"
  | "resumed";

export async function runDue(deps: BillingDeps, id: string, at: Date): Promise<DueOutcome> {
  const s = await repo.subscriptionByIdForJob(deps.db, id);
  if (!s?.nextActionAt || s.nextActionAt > at) return "none";
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
 * runDue for many subscriptions (a batch of wake-up jobs): the plain renewals of each organization
 * go through the set-based batch path; everything else, and any row the batch found held by
 * another worker or could not write, runs one by one. Throws the first failure after the rest is
 * done, so the jobs are retried and the finished ones find nothing due.
 */
export async function runDueMany(deps: BillingDeps, ids: string[]): Promise<void> {
  const rows = await repo.subscriptionsByIdsForJob(deps.db, ids);
  const errors: unknown[] = [];
  const single: { id: string; at: Date }[] = [];
  for (const organizationId of new Set(rows.map((r) => r.organizationId))) {
    const at = (await organizationClock(deps.db, deps.clock, organizationId)).now();
    const ofOrg = rows.filter((r) => r.organizationId === organizationId);
    const batch = ofOrg.filter((r) => renewableInBatch(r, at));
    for (const r of ofOrg) if (!batch.includes(r)) single.push({ id: r.id, at });
    try {
      const result = await renewBatch(deps, batch, at);
      for (const id of result.leftOver) single.push({ id, at });
      errors.push(...result.errors);
    } catch {
      // The batch's transaction rolled back as a whole: each renews on its own (its charge is
      // answered again under the same key), so one bad row cannot hold up the others.
      for (const r of batch) single.push({ id: r.id, at });
    }
  }
  const lanes = Array.from({ length: Math.min(SINGLE_CONCURRENCY, single.length) }, async () => {
    for (let next = single.shift(); next; next = single.shift())
      await runDue(deps, next.id, next.at).catch((err: unknown) => errors.push(err));
  });
  await Promise.all(lanes);
  if (errors.length > 0) throw errors[0];
}

const SINGLE_CONCURRENCY = 16;
