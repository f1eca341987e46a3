// The delivery jobs a worker holds, kept claimed while it lives and handed back soon after it dies.
// A held job carries a heartbeat that the worker refreshes; a job whose heartbeat has gone stale
// belongs to a worker that is gone, and any worker's sweep puts it back in the queue (pg-boss's own
// monitor would too, but only once a minute). On embedded PGlite the process is the only one on the
// database, so at start every job still active is an orphan of the previous run and goes back at once.
import type { PgBoss } from "pg-boss";
import type { Db } from "../../../db/client.ts";
import type { Logger } from "../../lib/logger.ts";
import { activeJobs } from "./delivery-repository.ts";
import { DELIVER_JOB } from "./job-names.ts";

type JobAttempt = { id: string; retryCount: number };

/** pg-boss's smallest heartbeat: a job not touched for this long is an orphan. */
export const HEARTBEAT_SECONDS = 10;
const TOUCH_EVERY_MS = 3_000;
const SWEEP_EVERY_MS = 4_000;

export interface ClaimsDeps {
  db: Db;
  boss: PgBoss;
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
    return this.#handBack(await activeJobs(this.#d.db, DELIVER_JOB, { staleOnly: false }), "its worker stopped");
  }

  /** Keeps `held` claimed and, now and then, hands back other workers' orphans. */
  async tend(held: JobAttempt[]): Promise<void> {
    const now = Date.now();
    if (now - this.#touchedAt >= TOUCH_EVERY_MS) {
      this.#touchedAt = now;
      if (held.length > 0) await this.#d.boss.touch(DELIVER_JOB, held).catch((err: unknown) => this.#d.log.warn({ err }, "touching delivery jobs failed"));
    }
    if (now - this.#sweptAt >= SWEEP_EVERY_MS) {
      this.#sweptAt = now;
      const mine = new Set(held.map((j) => j.id));
      const stale = await activeJobs(this.#d.db, DELIVER_JOB, { staleOnly: true });
      await this.#handBack(stale.filter((j) => !mine.has(j.id)), "its worker stopped sending heartbeats");
    }
  }

  // Failing a job puts it back as a retry (the queue's retryDelay is 0), claimable by any worker.
  async #handBack(jobs: JobAttempt[], why: string): Promise<number> {
    if (jobs.length === 0) return 0;
    await this.#d.boss.fail(DELIVER_JOB, jobs, { message: `handed back: ${why}` });
    this.#d.log.info({ count: jobs.length }, `delivery jobs handed back: ${why}`);
    return jobs.length;
  }
}
