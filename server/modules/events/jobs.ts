// The partition job: daily (and once when a worker starts) it creates the monthly partitions of
// events for the current month and the next two, so events normally land in their month's
// partition; one arriving for an uncovered month lands in the DEFAULT partition and is moved when
// its month is created.
import type { Db } from "../../../db/client.ts";
import type { JobDefinition } from "../../jobs/queue.ts";
import type { Clock } from "../../lib/clock.ts";
import type { Logger } from "../../lib/logger.ts";
import { ensureEventPartitions } from "./partition-repository.ts";

export const ENSURE_PARTITIONS_JOB = "events.ensure-partitions";

export function ensurePartitionsJob(deps: { db: Db; clock: Clock; log: Logger }): JobDefinition {
  return {
    name: ENSURE_PARTITIONS_JOB,
    queue: { retryLimit: 3, retryDelay: 60 },
    schedule: "17 3 * * *",
    async handle() {
      const done = await ensureEventPartitions(deps.db, deps.clock.now());
      for (const p of done.filter((d) => d.created)) deps.log.info(p, "events partition created");
      return done;
    },
  };
}
