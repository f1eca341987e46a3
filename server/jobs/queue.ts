// The job queue: pg-boss on the same database as everything else, through its PGlite adapter when
// the database is embedded. Modules declare jobs; the queue creates their queues and, in a process
// that works jobs, their workers.
import { PgBoss, fromPglite, type Job, type Queue, type WorkOptions } from "pg-boss";
import type { Database } from "../../db/client.ts";
import type { Logger } from "../lib/logger.ts";

/** A job's heartbeat: pg-boss hands back the job of a worker silent this long (checked each minute). */
export const JOB_HEARTBEAT_SECONDS = 10;

export interface JobDefinition<T extends object = object> {
  name: string;
  /** Queue options, and its policy (e.g. `short`: one queued job per singleton key). */
  queue?: Omit<Queue, "name">;
  work?: WorkOptions;
  /** A cron expression: pg-boss runs the job on that schedule (once across all workers). */
  schedule?: string;
  handle(jobs: Job<T>[]): Promise<unknown>;
}

export interface QueueHandle {
  boss: PgBoss;
  send<T extends object>(name: string, data: T): Promise<string | null>;
  /** Has this process's worker of `name` fetch now rather than at its next poll (no-op without). */
  fetchNow(name: string): void;
  /** Stops; running handlers get `timeoutMs` (default 10 s) to finish. */
  stop(timeoutMs?: number): Promise<void>;
}

export interface StartQueueOptions {
  database: Database;
  databaseUrl: string | null;
  log: Logger;
  jobs: JobDefinition[];
  /** Whether this process works jobs (`till worker`, `till dev`) or only sends them. */
  worker: boolean;
}

export function createBoss(database: Database, databaseUrl: string | null): PgBoss {
  if (database.pglite) {
    return new PgBoss({ db: fromPglite(database.pglite), backend: "pglite" });
  }
  if (!databaseUrl) throw new Error("a PostgreSQL queue needs the database URL");
  return new PgBoss({ connectionString: databaseUrl, max: 4 });
}

/** Creates pg-boss's schema and stops; used by `till migrate` and the test template. */
export async function migrateQueue(database: Database, databaseUrl: string | null): Promise<void> {
  const boss = createBoss(database, databaseUrl);
  await boss.start();
  await boss.stop({ graceful: false, close: true });
}

export async function startQueue(options: StartQueueOptions): Promise<QueueHandle> {
  const { database, log } = options;
  const boss = createBoss(database, options.databaseUrl);
  boss.on("error", (err) => log.error({ err }, "queue error"));
  const started = performance.now();
  await boss.start();
  const workers = new Map<string, string>();
  for (const job of options.jobs) {
    await boss.createQueue(job.name, job.queue);
    // createQueue leaves a queue made by an earlier version as it was: a heartbeat or expiry
    // changed since is set here, or the jobs a killed worker held would wait out the whole expiry
    // (or a long job be handed out again under the old one).
    const { heartbeatSeconds, expireInSeconds } = job.queue ?? {};
    if (heartbeatSeconds || expireInSeconds)
      await boss.updateQueue(job.name, {
        ...(heartbeatSeconds ? { heartbeatSeconds } : {}),
        ...(expireInSeconds ? { expireInSeconds } : {}),
      });
    // createQueue drops pg-boss's cached queue entry, and the first send reloads it through pg-boss's
    // own connection: inside a caller's transaction on PGlite (one connection) that waits forever.
    // Completing a job id that does not exist loads the entry now and changes nothing.
    await boss.complete(job.name, "00000000-0000-0000-0000-000000000000");
    if (options.worker && job.schedule) await boss.schedule(job.name, job.schedule);
    if (options.worker) {
      const id = await boss.work(job.name, job.work ?? {}, async (jobs: Job<object>[]) => {
        return job.handle(jobs);
      });
      workers.set(job.name, id);
    }
  }
  log.debug(
    { ms: Math.round(performance.now() - started), worker: options.worker },
    "queue started",
  );
  return {
    boss,
    send: (name, data) => boss.send(name, data),
    fetchNow(name) {
      const id = workers.get(name);
      if (id) boss.notifyWorker(id);
    },
    async stop(timeoutMs = 10_000) {
      // graceful: let running handlers finish; the database itself is closed by the caller.
      await boss.stop({ graceful: true, timeout: Math.max(500, timeoutMs), close: true });
    },
  };
}
