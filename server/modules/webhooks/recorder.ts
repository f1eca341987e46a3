// Recording delivery attempts: outcomes that finish within a short window share one transaction
// that records the attempts, ends skipped deliveries, queues the next attempts' jobs and completes
// the jobs, so an attempt is recorded exactly once with its job's completion. Endpoints whose
// recent attempts all failed are then disabled.
import type { Job, JobInsert, PgBoss } from "pg-boss";
import { inTransaction } from "../../../db/client.ts";
import type { Config } from "../../config.ts";
import { retryDelayMs } from "./backoff.ts";
import * as repo from "./delivery-repository.ts";
import type { AttemptRecord, DeliveryTarget } from "./delivery-repository.ts";
import type { AttemptResult } from "./attempt.ts";
import { type DisableDeps, disableIfFailing } from "./disable.ts";
import { DELIVER_JOB, type DeliverJobData, priorityOf } from "./job-names.ts";

// Attempts that finish within this window are recorded in one transaction.
const FLUSH_WINDOW_MS = 15;
const FLUSH_BATCH = 100;

export interface Outcome {
  job: Job<DeliverJobData>;
  record?: AttemptRecord;
  skip?: string;
  next?: JobInsert<DeliverJobData>;
}

/** What an attempt's result means: its record, and the next attempt's job when one is due. */
export function attemptOutcome(
  job: Job<DeliverJobData>,
  { event, endpoint }: DeliveryTarget,
  result: AttemptResult,
  config: Readonly<Config>,
  now: Date,
): Outcome {
  const attempt = job.data.redeliver ? event.attempts + 1 : job.data.attempt;
  let status = event.status;
  let next: JobInsert<DeliverJobData> | undefined;
  if (result.succeeded) status = "succeeded";
  else if (!job.data.redeliver) {
    if (attempt >= config.webhooks.maxAttempts) status = "failed";
    else {
      status = "pending";
      next = {
        data: { id: event.id, attempt: attempt + 1 },
        group: { id: endpoint.id },
        priority: priorityOf(event.seq),
        startAfter: new Date(Date.now() + retryDelayMs(config.webhooks.retryBaseMs, attempt)),
      };
    }
  }
  const record: AttemptRecord = {
    eventId: event.id,
    endpointId: endpoint.id,
    organizationId: event.organizationId,
    attempt,
    status,
    succeeded: result.succeeded,
    httpCode: result.httpCode,
    response: result.response,
    durationMs: result.durationMs,
    at: now,
  };
  return { job, record, ...(next ? { next } : {}) };
}

interface RecorderHooks {
  stopped: () => boolean;
  /** A batch is recorded (or failed to be): the deliverer lets go of its events. */
  recorded: (batch: Outcome[]) => void;
  kick: () => void;
}

export class AttemptRecorder {
  readonly #d: DisableDeps & { boss: PgBoss };
  readonly #hooks: RecorderHooks;
  readonly #outcomes: Outcome[] = [];
  #flushing: Promise<void> | null = null;

  constructor(deps: DisableDeps & { boss: PgBoss }, hooks: RecorderHooks) {
    this.#d = deps;
    this.#hooks = hooks;
  }

  settle(outcome: Outcome): void {
    this.#outcomes.push(outcome);
    this.#flushing ??= this.#flush().finally(() => {
      this.#flushing = null;
      if (this.#outcomes.length > 0) this.settle(this.#outcomes.pop()!);
    });
  }

  /** Waits until every outcome settled so far is recorded. */
  async drain(): Promise<void> {
    while (this.#flushing) await this.#flushing;
  }

  async #flush(): Promise<void> {
    // Let the attempts finishing together share one transaction.
    if (this.#outcomes.length < FLUSH_BATCH && !this.#hooks.stopped())
      await new Promise((r) => setTimeout(r, FLUSH_WINDOW_MS));
    while (this.#outcomes.length > 0) {
      const batch = this.#outcomes.splice(0, 500);
      const records = batch.flatMap((o) => (o.record ? [o.record] : []));
      const now = this.#d.clock.now();
      try {
        await inTransaction(this.#d.db, async (tx) => {
          await repo.recordAttempts(tx, records);
          await repo.endPending(
            tx,
            batch.flatMap((o) => (o.skip ? [o.skip] : [])),
            "skipped",
            now,
          );
          const db = repo.bossDb(tx);
          const next = batch.flatMap((o) => (o.next ? [o.next] : []));
          if (next.length > 0) await this.#d.boss.insert(DELIVER_JOB, next, { db });
          await this.#d.boss.complete(
            DELIVER_JOB,
            batch.map((o) => ({ id: o.job.id, retryCount: o.job.retryCount })),
            null,
            { db },
          );
        });
      } catch (err) {
        // The jobs stay active and come back after they expire; the attempts will be made again.
        this.#d.log.error({ err, count: batch.length }, "recording webhook attempts failed");
      }
      this.#hooks.recorded(batch);
      const failedEndpoints = new Set(
        records.filter((r) => r.status === "failed").map((r) => r.endpointId),
      );
      for (const endpointId of failedEndpoints) await disableIfFailing(this.#d, endpointId);
    }
    if (!this.#hooks.stopped()) this.#hooks.kick();
  }
}
