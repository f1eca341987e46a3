// Jobs that belong to no domain. `system.noop` proves end to end that a queued job is worked.
import type { JobDefinition } from "./queue.ts";

export const NOOP_JOB = "system.noop";

export interface NoopData {
  note?: string;
}

export const noopJob: JobDefinition<NoopData> = {
  name: NOOP_JOB,
  queue: { retryLimit: 0 },
  work: { pollingIntervalSeconds: 0.5 },
  async handle(jobs) {
    return { ok: true, count: jobs.length };
  },
};
