// What happens at a period end other than a renewal: a subscription canceled at period end ends
// there (canceled, ended_at, subscription.updated + canceled + revoked as Polar sends them at the
// end, benefits revoked, no renewal; its last usage and waiting prorations in a final order); one set to pause at period end pauses (no order) until
// resumes_at, when a new period starts with an immediate charge.
import { inTransaction } from "../../../db/client.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import { addInterval, type Interval } from "../../lib/periods.ts";
import { revokeBenefitsForSubscription } from "../grants/seam.ts";
import { revokeSeatsOfSubscription } from "../seats/subscription-end.ts";
import { fixedClock } from "../sandbox-clock/queries.ts";
import type { BillingDeps } from "./deps.ts";
import { recordCustomerState, recordSubscriptionEvents } from "./events.ts";
import { chargeFinal, writeFinal } from "./final-order.ts";
import { renewSubscription } from "./renewal.ts";
import * as repo from "./repository.ts";
import type { SubscriptionRow } from "./repository.ts";
import { scheduleAt, scheduleNext } from "./schedule.ts";

export async function endAtPeriodEnd(
  deps: BillingDeps,
  due: SubscriptionRow,
  at: Date,
): Promise<boolean> {
  const clock = fixedClock(at);
  const endsNow = (s: SubscriptionRow | null): s is SubscriptionRow =>
    !!s?.cancelAtPeriodEnd &&
    s.currentPeriodEnd <= at &&
    (s.status === "active" || s.status === "trialing" || s.status === "past_due");
  // Usage and prorations still owed are charged before the end is written (outside it).
  const final = endsNow(due) ? await chargeFinal(deps, due, at) : null;
  return inTransaction(deps.db, async (tx) => {
    const s = await repo.lockSubscription(tx, scopeOfResource(due), due.id);
    const ending = endsNow(s) && s.currentPeriodEnd.getTime() === due.currentPeriodEnd.getTime();
    if (final) await writeFinal(tx, deps, due, final, at, ending);
    if (!ending) return false;
    const ended = await scheduleAt(
      tx,
      deps.queue,
      await repo.updateSubscription(tx, s.id, {
        status: "canceled",
        endsAt: s.currentPeriodEnd,
        endedAt: s.currentPeriodEnd,
        // Billed by the final order.
        prorationAmount: 0,
        modifiedAt: at,
      }),
      null,
    );
    await recordSubscriptionEvents(tx, { clock, baseUrl: deps.baseUrl }, ended, [
      "subscription.updated",
      "subscription.canceled",
      "subscription.revoked",
    ]);
    await revokeBenefitsForSubscription(tx, { clock, queue: deps.queue }, ended);
    await revokeSeatsOfSubscription(tx, clock, ended);
    await recordCustomerState(tx, clock, s);
    return true;
  });
}

export async function pauseAtPeriodEnd(
  deps: BillingDeps,
  due: SubscriptionRow,
  at: Date,
): Promise<boolean> {
  const clock = fixedClock(at);
  return inTransaction(deps.db, async (tx) => {
    const s = await repo.lockSubscription(tx, scopeOfResource(due), due.id);
    if (!s?.pauseAtPeriodEnd || s.currentPeriodEnd > at) return false;
    const paused = await scheduleNext(
      tx,
      deps.queue,
      await repo.updateSubscription(tx, s.id, {
        status: "paused",
        pauseAtPeriodEnd: false,
        pausedAt: s.currentPeriodEnd,
        modifiedAt: at,
      }),
    );
    await recordSubscriptionEvents(tx, { clock, baseUrl: deps.baseUrl }, paused, [
      "subscription.updated",
      "subscription.paused",
    ]);
    await recordCustomerState(tx, clock, s);
    return true;
  });
}

/**
 * Resumes a paused subscription at `at`: a new period starts then and is renewed at once (the
 * charge for it), as Polar's resume. The paused period is moved so the renewal bills from `at`.
 */
export async function resumeSubscription(
  deps: BillingDeps,
  paused: SubscriptionRow,
  at: Date,
): Promise<boolean> {
  const clock = fixedClock(at);
  const resumed = await inTransaction(deps.db, async (tx) => {
    const s = await repo.lockSubscription(tx, scopeOfResource(paused), paused.id);
    if (s?.status !== "paused") return null;
    const updated = await repo.updateSubscription(tx, s.id, {
      status: "active",
      pausedAt: null,
      resumesAt: null,
      // The renewal below starts the new period at `at`.
      currentPeriodStart: at,
      currentPeriodEnd: at,
      anchorDay: at.getUTCDate(),
      modifiedAt: at,
    });
    // The events show the period the renewal below starts (paid or past due), as Polar's resume
    // does, rather than the empty one it starts from.
    const announced = {
      ...updated,
      currentPeriodEnd: addInterval(
        at,
        updated.recurringInterval as Interval,
        updated.recurringIntervalCount,
        updated.anchorDay,
      ),
    };
    await recordSubscriptionEvents(tx, { clock, baseUrl: deps.baseUrl }, announced, [
      "subscription.updated",
      "subscription.resumed",
    ]);
    return scheduleNext(tx, deps.queue, updated);
  });
  if (!resumed) return false;
  await renewSubscription(deps, resumed, at);
  return true;
}
