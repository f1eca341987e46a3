// When the billing engine next works on a subscription, and the pg-boss job that wakes it then.
// The time is kept on the row (next_action_at, indexed per organization) so the sandbox clock can
// find what falls due while it moves; the job is sent in the caller's transaction, so it exists
// exactly when the change that made the work due committed. A job that wakes early or late finds
// the row's own time and does nothing, so extra jobs are harmless.
import { sql } from "drizzle-orm";
import { fromDrizzle } from "pg-boss";
import type { Db } from "../../../db/client.ts";
import type { QueueHandle } from "../../jobs/queue.ts";
import { offsetOfOrganization } from "../sandbox-clock/queries.ts";
import type { SubscriptionRow } from "./repository.ts";
import * as repo from "./repository.ts";

export const SUBSCRIPTION_DUE_JOB = "subscriptions.due";

/** One queued job per subscription and boundary. */
export function dueJobKey(subscriptionId: string, at: Date): string {
  return `${subscriptionId}:${at.toISOString()}`;
}

/** The next boundary of a subscription in its current state; null when nothing will happen. */
export function nextActionOf(
  s: SubscriptionRow,
  pendingAttemptAt: Date | null = null,
): Date | null {
  switch (s.status) {
    case "active":
      // A meter cycle ending inside the period comes first; trials settle no meter cycles.
      return s.currentMeterPeriodEnd && s.currentMeterPeriodEnd < s.currentPeriodEnd
        ? s.currentMeterPeriodEnd
        : s.currentPeriodEnd;
    case "trialing":
      return s.currentPeriodEnd;
    case "past_due":
      return pendingAttemptAt;
    case "paused":
      return s.resumesAt;
    default:
      return null;
  }
}

export async function scheduleAt(
  tx: Db,
  queue: QueueHandle | null,
  s: SubscriptionRow,
  at: Date | null,
): Promise<SubscriptionRow> {
  const updated =
    (s.nextActionAt?.getTime() ?? null) === (at?.getTime() ?? null)
      ? s
      : await repo.updateSubscription(tx, s.id, { nextActionAt: at });
  if (at && queue) {
    // The job's wake-up is real time: the organization's sandbox offset runs ahead of it.
    const offset = await offsetOfOrganization(tx, s.organizationId);
    const db = fromDrizzle(tx as unknown as Parameters<typeof fromDrizzle>[0], sql);
    await queue.boss.send(
      SUBSCRIPTION_DUE_JOB,
      { subscriptionId: s.id },
      { db, startAfter: new Date(at.getTime() - offset), singletonKey: dueJobKey(s.id, at) },
    );
  }
  return updated;
}

export function scheduleNext(
  tx: Db,
  queue: QueueHandle | null,
  s: SubscriptionRow,
  pendingAttemptAt: Date | null = null,
): Promise<SubscriptionRow> {
  return scheduleAt(tx, queue, s, nextActionOf(s, pendingAttemptAt));
}

/**
 * The wake-up jobs of many subscriptions of one organization whose next_action_at the caller has
 * already written (a batch of renewals): one insert, each job keyed as scheduleAt keys it.
 */
export async function queueWakeUps(
  tx: Db,
  queue: QueueHandle | null,
  organizationId: string,
  rows: SubscriptionRow[],
): Promise<void> {
  const due = rows.filter((r) => r.nextActionAt);
  if (!queue || due.length === 0) return;
  const offset = await offsetOfOrganization(tx, organizationId);
  const db = fromDrizzle(tx as unknown as Parameters<typeof fromDrizzle>[0], sql);
  await queue.boss.insert(
    SUBSCRIPTION_DUE_JOB,
    due.map((r) => ({
      data: { subscriptionId: r.id },
      startAfter: new Date(r.nextActionAt!.getTime() - offset),
      singletonKey: dueJobKey(r.id, r.nextActionAt!),
    })),
    { db },
  );
}
