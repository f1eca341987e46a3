// The webhooks runtime of one process: the NOTIFY hub (every instance, for the live stream), and in
// a process that works jobs the dispatcher, the delivery worker and the daily archival job.
import { randomUUID } from "node:crypto";
import type { Database } from "../../../db/client.ts";
import type { Config } from "../../config.ts";
import { JOB_HEARTBEAT_SECONDS, type JobDefinition, type QueueHandle } from "../../jobs/queue.ts";
import type { Clock } from "../../lib/clock.ts";
import type { Logger } from "../../lib/logger.ts";
import type { Mailer } from "../email/mailer.ts";
import { archiveBefore } from "./delivery-repository.ts";
import { HEARTBEAT_SECONDS, RETRY_LIMIT } from "./claims.ts";
import { Sender } from "./attempt.ts";
import { Deliverer } from "./deliverer.ts";
import { Dispatcher } from "./dispatcher.ts";
import { ARCHIVE_JOB, DELIVER_JOB } from "./job-names.ts";
import { NotificationHub } from "./notifications.ts";
import { StreamRegistry } from "./stream.ts";
import { createResolver, type Resolver } from "./url-policy.ts";

export { ARCHIVE_JOB, DELIVER_JOB, type DeliverJobData } from "./job-names.ts";

const DAY_MS = 86_400_000;

export interface WebhooksDeps {
  config: Readonly<Config>;
  database: Database;
  clock: Clock;
  log: Logger;
  mailer: Mailer;
}

export interface WebhooksRuntime {
  jobs: JobDefinition[];
  hub: NotificationHub;
  resolver: Resolver;
  streams: StreamRegistry;
  /** Starts listening; with `worker`, also dispatching and delivering. */
  start(queue: QueueHandle, options: { worker: boolean }): Promise<void>;
  stop(): Promise<void>;
}

export function createWebhooks(deps: WebhooksDeps): WebhooksRuntime {
  const { config, database, clock, log } = deps;
  const hub = new NotificationHub(database, log);
  const resolver = createResolver(config.webhooks.dnsServers);
  const streams = new StreamRegistry();
  const sender = new Sender({
    mode: config.mode,
    timeoutMs: config.webhooks.timeoutMs,
    resolver,
    pipelining: config.webhooks.pipelining,
  });
  let dispatcher: Dispatcher | null = null;
  let deliverer: Deliverer | null = null;

  const archiveJob: JobDefinition = {
    name: ARCHIVE_JOB,
    queue: { retryLimit: 3, retryDelay: 60, heartbeatSeconds: JOB_HEARTBEAT_SECONDS },
    async handle() {
      const now = clock.now();
      const result = await archiveBefore(
        database.db,
        new Date(now.getTime() - config.webhooks.retentionDays * DAY_MS),
        now,
      );
      log.info(result, "archived webhook payloads past retention");
      return result;
    },
  };

  return {
    jobs: [archiveJob],
    hub,
    resolver,
    streams,
    async start(queue, { worker }) {
      await hub.start();
      const { boss } = queue;
      // Attempts are retried by the worker itself (its own backoff); pg-boss only retries a job
      // whose worker died before finishing it.
      // Held jobs carry a heartbeat (claims.ts), so a dead worker's jobs come back within seconds.
      const options = {
        retryLimit: RETRY_LIMIT,
        retryDelay: 0,
        expireInSeconds: config.webhooks.jobExpireSeconds,
        heartbeatSeconds: HEARTBEAT_SECONDS,
        deleteAfterSeconds: 7 * 86_400,
      };
      await boss.createQueue(DELIVER_JOB, options);
      await boss.updateQueue(DELIVER_JOB, options);
      // updateQueue evicts pg-boss's cached queue row, and a cold cache is refilled through pg-boss's
      // own connection. Inside our transactions (insert/complete with { db: tx }) that refill would
      // wait for the transaction on PGlite's single connection: a deadlock. Refill it now, outside.
      await boss.complete(DELIVER_JOB, randomUUID());
      if (!worker) return;
      await boss.schedule(ARCHIVE_JOB, "17 3 * * *");
      // Embedded PGlite serves this process alone: orphaned jobs are handed back at start, and the
      // dispatcher hands new jobs to the deliverer directly.
      const alone = database.driver === "pglite";
      const d = new Deliverer({
        db: database.db,
        boss,
        config,
        clock,
        log,
        sender,
        mailer: deps.mailer,
        hub,
        embedded: alone,
      });
      const embedded = alone ? { jobsCreated: () => d.jobsCreated() } : undefined;
      deliverer = d;
      dispatcher = new Dispatcher({
        db: database.db,
        boss,
        clock,
        log,
        hub,
        ...(embedded ? { embedded } : {}),
      });
      deliverer.start();
      dispatcher.start();
    },
    async stop() {
      await dispatcher?.stop();
      await deliverer?.stop();
      await sender.close();
      await hub.stop();
    },
  };
}
