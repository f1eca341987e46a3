// The delivery jobs a worker holds, kept claimed while it lives and handed back soon after it dies.
// A held job carries a heartbeat that the worker refreshes; a job whose heartbeat has gone stale
// belongs to a worker that is gone, and any worker's sweep puts it back in the queue (pg-boss's own
// monitor would too, but only once a minute). On embedded PGlite the process is the only one on the
// database, so at start every job still active is an orphan of the previous run and goes back at once.
// A job whose workers died RETRY_LIMIT times (one that kills its worker, say) is not handed back
// again: pg-boss would give up on it quietly, so its event is ended as failed with it.
import type { PgBoss } from "pg-boss";
import { type Db, inTransaction } from "../../../db/client.ts";
import type { Clock } from "../../lib/clock.ts";
import type { Logger } from "../../lib/logger.ts";
import { activeJobs, bossDb, endPending } from "./delivery-repository.ts";
import { DELIVER_JOB } from "./job-names.ts";

type JobAttempt = { id: string; retryCount: number };
type Orphan = JobAttempt & { eventId: string | null };

/** pg-boss's smallest heartbeat: a job not touched for this long is an orphan. */
export const HEARTBEAT_SECONDS = 10;
/** pg-boss retries of a delivery job, each one a worker that died holding it (attempts that fail are new jobs). */
export const RETRY_LIMIT = 5;
const TOUCH_EVERY_MS = 3_000;
const SWEEP_EVERY_MS = 4_000;

export interface ClaimsDeps {
  db: Db;
  boss: PgBoss;
  clock: Clock;
  log: Logger;
}

export class Claims {
  readonly #d: ClaimsDeps;
  #touchedAt = Date.now();
  #sweptAt = 0;

  constructor(deps: ClaimsDeps) {
    this.#d = deps;
  }

  /** Hands back every active delivery job; only for a process alone on its database, at start. */
  async recoverAll(): Promise<number> {
    return this.#handBack(
      await activeJobs(this.#d.db, DELIVER_JOB, { staleOnly: false }),
      "its worker stopped",
    );
  }

  /** Keeps `held` claimed and, now and then, hands back other workers' orphans. */
  async tend(held: JobAttempt[]): Promise<void> {
    const now = Date.now();
    if (now - this.#touchedAt >= TOUCH_EVERY_MS) {
      this.#touchedAt = now;
      if (held.length > 0)
        await this.#d.boss
          .touch(DELIVER_JOB, held)
          .catch((err: unknown) => this.#d.log.warn({ err }, "touching delivery jobs failed"));
    }
    if (now - this.#sweptAt >= SWEEP_EVERY_MS) {
      this.#sweptAt = now;
      const mine = new Set(held.map((j) => j.id));
      const stale = await activeJobs(this.#d.db, DELIVER_JOB, { staleOnly: true });
      await this.#handBack(
        stale.filter((j) => !mine.has(j.id)),
        "its worker stopped sending heartbeats",
      );
    }
  }

  // Failing a job puts it back as a retry (the queue's retryDelay is 0), claimable by any worker.
  async #handBack(jobs: Orphan[], why: string): Promise<number> {
    if (jobs.length === 0) return 0;
    const attempt = ({ id, retryCount }: Orphan): JobAttempt => ({ id, retryCount });
    const again = jobs.filter((j) => j.retryCount < RETRY_LIMIT);
    const spent = jobs.filter((j) => j.retryCount >= RETRY_LIMIT);
    if (again.length > 0) {
      await this.#d.boss.fail(DELIVER_JOB, again.map(attempt), { message: `handed back: ${why}` });
      this.#d.log.info({ count: again.length }, `delivery jobs handed back: ${why}`);
    }
    if (spent.length > 0) {
      const { given, eventIds } = await inTransaction(this.#d.db, async (tx) => {
        // No output object: through this transaction's driver (postgres.js) pg-boss's jsonb parameter
        // would go unserialized; the log line below carries the reason.
        const result = await this.#d.boss.fail(DELIVER_JOB, spent.map(attempt), null, {
          db: bossDb(tx),
        });
        // Only the jobs pg-boss failed: one claimed again meanwhile has a live worker.
        const settled = new Set(
          (result as { settled?: string[] }).settled ?? spent.map((j) => j.id),
        );
        const failed = spent.filter((j) => settled.has(j.id));
        const ids = failed.flatMap((j) => (j.eventId ? [j.eventId] : []));
        await endPending(tx, ids, "failed", this.#d.clock.now());
        return { given: failed.length, eventIds: ids };
      });
      if (given > 0)
        this.#d.log.error(
          { count: given, eventIds },
          `webhook deliveries given up: ${why}, ${RETRY_LIMIT + 1} times`,
        );
    }
    return jobs.length;
  }
}
