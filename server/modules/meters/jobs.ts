// The rollup job: every minute, one rollup tick (rollups.ts) consumes the events committed since the
// last one. Reads never wait for it: events not rolled up yet are read raw, so a longer lag costs
// read time, never correctness.
import type { Db } from "../../../db/client.ts";
import { JOB_HEARTBEAT_SECONDS, type JobDefinition } from "../../jobs/queue.ts";
import type { Logger } from "../../lib/logger.ts";
import { refreshRollups } from "./rollups.ts";

export const REFRESH_ROLLUPS_JOB = "meters.refresh-rollups";

export function refreshRollupsJob(deps: { db: Db; log: Logger }): JobDefinition {
  return {
    name: REFRESH_ROLLUPS_JOB,
    queue: { retryLimit: 0, heartbeatSeconds: JOB_HEARTBEAT_SECONDS },
    schedule: "* * * * *",
    async handle() {
      const result = await refreshRollups(deps.db);
      if (result.reset > 0) deps.log.info(result, "meter rollups reset for a rebuild");
      return result;
    },
  };
}
