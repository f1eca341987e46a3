// When the billing engine next works on a subscription, and the pg-boss job that wakes it then.
// The time is kept on the row (next_action_at, indexed per organization) so the sandbox clock can
// find what falls due while it moves; the job is sent in the caller's transaction, so it exists
// exactly when the change that made the work due committed. A job that wakes early or late finds
// the row's own time and does nothing, so extra jobs are harmless.
import { sql } from "drizzle-orm";
import { fromDrizzle } from "pg-boss";
import type { Tx } from "../../../db/client.ts";
import type { QueueHandle } from "../../jobs/queue.ts";
import { meterRetriesOf, pendingAttemptOf } from "../orders/queries.ts";
import { offsetOfOrganization } from "../sandbox-clock/queries.ts";
import type { SubscriptionRow } from "./repository.ts";
import * as repo from "./repository.ts";

export const SUBSCRIPTION_DUE_JOB = "subscriptions.due";

/**
 * The wake-up job's data. A job wakes an organization for one second of its clock: it runs the
 * work of every subscription whose next_action_at falls in (window − 1 s, window], so the
 * renewals due at one instant (the 1st of the month) are one job, not one per subscription.
 * `window: null` (the catch-up's) takes everything due up to the organization's now.
 * `subscriptionId` is the earlier shape (one job per subscription), still accepted.
 */
export type DueJob = { organizationId: string; window: string | null } | { subscriptionId: string };

/** The end of the one-second window `at` falls in (at itself when it is a whole second). */
export function windowOf(at: Date): Date {
  return new Date(Math.ceil(at.getTime() / 1000) * 1000);
}

/** One queued job per organization and window. */
export function dueJobKey(organizationId: string, window: Date | null): string {
  return `${organizationId}:${window ? window.toISOString() : "catch-up"}`;
}

/** The job that wakes the organization for the window of `at`, on the real clock. */
function wakeUpJob(organizationId: string, at: Date, offset: number) {
  const window = windowOf(at);
  return {
    data: { organizationId, window: window.toISOString() } satisfies DueJob,
    startAfter: new Date(window.getTime() - offset),
    singletonKey: dueJobKey(organizationId, window),
  };
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

/** The earlier of two times, either of which may be none. */
export function earliest(a: Date | null, b: Date | null | undefined): Date | null {
  if (!a || !b) return a ?? b ?? null;
  return a <= b ? a : b;
}

/**
 * Whether a pending meter-cycle order's retry wakes the subscription: always but while it is
 * past_due, when its own dunning comes first (the meter order's retries resume once it is paid).
 */
export function takesMeterRetries(s: Pick<SubscriptionRow, "status">): boolean {
  return s.status !== "past_due";
}

/**
 * Sets the subscription's next action to `at`, or to its pending meter-cycle order's retry when
 * that comes first, and sends the wake-up job.
 */
export async function scheduleAt(
  tx: Tx,
  queue: QueueHandle | null,
  s: SubscriptionRow,
  boundary: Date | null,
): Promise<SubscriptionRow> {
  const at = takesMeterRetries(s)
    ? earliest(boundary, (await meterRetriesOf(tx, [s])).get(s.id))
    : boundary;
  const updated =
    (s.nextActionAt?.getTime() ?? null) === (at?.getTime() ?? null)
      ? s
      : await repo.updateSubscription(tx, s.id, { nextActionAt: at });
  if (at && queue) {
    // The job's wake-up is real time: the organization's sandbox offset runs ahead of it.
    const offset = await offsetOfOrganization(tx, s.organizationId);
    const db = fromDrizzle(tx as unknown as Parameters<typeof fromDrizzle>[0], sql);
    const job = wakeUpJob(s.organizationId, at, offset);
    await queue.boss.send(SUBSCRIPTION_DUE_JOB, job.data, {
      db,
      startAfter: job.startAfter,
      singletonKey: job.singletonKey,
    });
  }
  return updated;
}

/**
 * Schedules the subscription's next boundary in its state. A past_due one waits for its pending
 * order's next attempt: `pendingAttemptAt` when the caller has it, else read from that order, so a
 * change made while it is past_due (its metadata, a discount, a plan) keeps its dunning going.
 */
export async function scheduleNext(
  tx: Tx,
  queue: QueueHandle | null,
  s: SubscriptionRow,
  pendingAttemptAt?: Date | null,
): Promise<SubscriptionRow> {
  const attemptAt =
    pendingAttemptAt !== undefined || s.status !== "past_due"
      ? (pendingAttemptAt ?? null)
      : await pendingAttemptOf(tx, s);
  return scheduleAt(tx, queue, s, nextActionOf(s, attemptAt));
}

/**
 * The wake-up jobs of many subscriptions of one organization whose next_action_at the caller has
 * already written (a batch of renewals): one insert of one job per window they fall in.
 */
export async function queueWakeUps(
  tx: Tx,
  queue: QueueHandle | null,
  organizationId: string,
  rows: SubscriptionRow[],
): Promise<void> {
  const due = rows.filter((r) => r.nextActionAt);
  if (!queue || due.length === 0) return;
  const offset = await offsetOfOrganization(tx, organizationId);
  const jobs = new Map<string, ReturnType<typeof wakeUpJob>>();
  for (const r of due) {
    const job = wakeUpJob(organizationId, r.nextActionAt!, offset);
    jobs.set(job.singletonKey, job);
  }
  const db = fromDrizzle(tx as unknown as Parameters<typeof fromDrizzle>[0], sql);
  await queue.boss.insert(SUBSCRIPTION_DUE_JOB, [...jobs.values()], { db });
}
