// The events' maintenance jobs.
// - Partitions: daily (and once when a worker starts) it creates the monthly partitions of events
//   for the current month and the next two, so events normally land in their month's partition; one
//   arriving for an uncovered month lands in the DEFAULT partition and is moved when its month is
//   created.
// - Dedup retention: daily, with EVENT_DEDUP_RETENTION_DAYS set, the external ids claimed before
//   that window are deleted, so event_dedup stops growing with every id ever ingested.
import type { Db } from "../../../db/client.ts";
import { JOB_HEARTBEAT_SECONDS, type JobDefinition } from "../../jobs/queue.ts";
import type { Clock } from "../../lib/clock.ts";
import type { Logger } from "../../lib/logger.ts";
import { ensureEventPartitions, pruneEventDedup } from "./partition-repository.ts";

export const ENSURE_PARTITIONS_JOB = "events.ensure-partitions";
export const PRUNE_DEDUP_JOB = "events.prune-dedup";
const DAY_MS = 86_400_000;

export function ensurePartitionsJob(deps: { db: Db; clock: Clock; log: Logger }): JobDefinition {
  return {
    name: ENSURE_PARTITIONS_JOB,
    queue: { retryLimit: 3, retryDelay: 60, heartbeatSeconds: JOB_HEARTBEAT_SECONDS },
    schedule: "17 3 * * *",
    async handle() {
      const done = await ensureEventPartitions(deps.db, deps.clock.now());
      for (const p of done.filter((d) => d.created)) deps.log.info(p, "events partition created");
      return done;
    },
  };
}

export function pruneDedupJob(deps: {
  db: Db;
  clock: Clock;
  log: Logger;
  retentionDays: number;
}): JobDefinition {
  return {
    name: PRUNE_DEDUP_JOB,
    queue: { retryLimit: 3, retryDelay: 60, heartbeatSeconds: JOB_HEARTBEAT_SECONDS },
    schedule: "47 3 * * *",
    async handle() {
      if (deps.retentionDays <= 0) return { deleted: 0, done: true };
      const before = new Date(deps.clock.now().getTime() - deps.retentionDays * DAY_MS);
      const result = await pruneEventDedup(deps.db, before);
      if (result.deleted > 0)
        deps.log.info({ ...result, before }, "event external ids past retention deleted");
      return result;
    },
  };
}
