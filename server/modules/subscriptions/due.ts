// The engine's one entry point: whatever is due on a subscription as of `at` (renewal, meter
// cycle, trial end, payment retry, end or pause at period end, resume). Called by the pg-boss job
// when the row's time comes and by the sandbox clock while it moves; every branch re-checks the
// row under a lock, so a call with nothing due, or a second call for the same boundary, changes
// nothing.
import type { BillingDeps } from "./deps.ts";
import { retryPayment } from "./dunning.ts";
import { meterCycleDue, settleMeterCycle } from "./meter-cycle.ts";
import { endAtPeriodEnd, pauseAtPeriodEnd, resumeSubscription } from "./period-end.ts";
import { renewSubscription } from "./renewal.ts";
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
  const s = await repo.subscriptionById(deps.db, id);
  if (!s?.nextActionAt || s.nextActionAt > at) return "none";
  switch (s.status) {
    case "active":
    case "trialing":
      // A meter cycle ends strictly inside the period, so it always comes before the renewal.
      if (meterCycleDue(s, at)) return (await settleMeterCycle(deps, s, at)) ? "metered" : "none";
      if (s.currentPeriodEnd > at) return "none";
      if (s.cancelAtPeriodEnd) return (await endAtPeriodEnd(deps, id, at)) ? "ended" : "none";
      if (s.pauseAtPeriodEnd) return (await pauseAtPeriodEnd(deps, id, at)) ? "paused" : "none";
      return (await renewSubscription(deps, s, at)) ? "renewed" : "none";
    case "past_due":
      return (await retryPayment(deps, s, at)) ? "retried" : "none";
    case "paused":
      if (!s.resumesAt || s.resumesAt > at) return "none";
      return (await resumeSubscription(deps, id, at)) ? "resumed" : "none";
    default:
      return "none";
  }
}
