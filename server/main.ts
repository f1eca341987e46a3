// start(config): database, migrations, job queue and HTTP server, and a stop() that drains them in
// reverse order. The CLI wires stop() to SIGINT/SIGTERM; tests call it directly.
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Express } from "express";
import { migrate, openDb, type Database } from "../db/client.ts";
import { createApp } from "./app.ts";
import { seedDemo, type DemoSeed } from "./demo/seed.ts";
import { queueUrl, type Config } from "./config.ts";
import { startQueue, type JobDefinition, type QueueHandle } from "./jobs/queue.ts";
import { noopJob } from "./jobs/system.ts";
import { answerClientErrors } from "./lib/client-error.ts";
import { createSecretBox } from "./lib/secret-box.ts";
import { expireCheckoutsJob } from "./modules/checkouts/jobs.ts";
import { RECONCILE_CHECKOUTS_JOB, reconcileCheckoutsJob } from "./modules/checkouts/reconcile.ts";
import { reconcileDraftOrdersJob } from "./modules/draft-orders/reconcile.ts";
import { reconcileChangeChargesJob } from "./modules/subscriptions/change-reconcile.ts";
import { revokeSubscriptionJob } from "./modules/subscriptions/revoke-now.ts";
import { reconcileRefundsJob } from "./modules/refunds/reconcile.ts";
import type { CheckoutDeps } from "./modules/checkouts/service.ts";
import { applyGrantsJob } from "./modules/grants/jobs.ts";
import { receiptMailJob } from "./modules/invoices/receipt-mail.ts";
import { paymentFailedMailJob } from "./modules/subscriptions/payment-failed-mail.ts";
import {
  ENSURE_PARTITIONS_JOB,
  ensurePartitionsJob,
  pruneDedupJob,
} from "./modules/events/jobs.ts";
import { refreshRollupsJob } from "./modules/meters/jobs.ts";
import { createProcessor } from "./modules/payments/factory.ts";
import {
  subscriptionCatchUpJob,
  SUBSCRIPTION_DUE_JOB,
  subscriptionDueJob,
  wakeOverdue,
} from "./modules/subscriptions/jobs.ts";
import { createTaxCalculator } from "./modules/tax/calculator.ts";
import { systemClock, type Clock } from "./lib/clock.ts";
import { createLogger, type Logger } from "./lib/logger.ts";
import { createAuth, type Auth } from "./modules/auth/auth.ts";
import { promoteListedAdmins } from "./modules/auth/platform-admins.ts";
import { retryMailJob } from "./modules/email/jobs.ts";
import { createMailer } from "./modules/email/mailer.ts";
import { ensureProfile } from "./modules/organizations/repository.ts";
import { assertOrganizationDeletable } from "./modules/organizations/service.ts";
import { createWebhooks, type WebhooksRuntime } from "./modules/webhooks/jobs.ts";

export interface StartOptions {
  /** An already-open database (tests hand in a clone of the migrated template). */
  database?: Database;
  log?: Logger;
  clock?: Clock;
  /** Serve HTTP (default true); `till worker` only works jobs. */
  http?: boolean;
  /** Work jobs in this process (default true). */
  worker?: boolean;
}

export interface RunningServer {
  url: string;
  app: Express | null;
  database: Database;
  auth: Auth;
  queue: QueueHandle;
  webhooks: WebhooksRuntime;
  log: Logger;
  /** Milliseconds since the process started (readyMs) and spent in each phase. */
  timings: { loadMs: number; migrateMs: number; queueMs: number; readyMs: number };
  /** Whether this server serves the demo store at /demo. */
  demo: boolean;
  stop(): Promise<void>;
}

export async function start(
  config: Readonly<Config>,
  options: StartOptions = {},
): Promise<RunningServer> {
  const t0 = performance.now();
  const log = options.log ?? createLogger(config.log);
  const clock = options.clock ?? systemClock;
  const database = options.database ?? (await openDb(config.database));
  // Run in order on stop; each is given the time left before the grace period ends.
  const cleanup: Step[] = [(left) => database.close(left)];
  try {
    const m0 = performance.now();
    await migrate(database);
    const migrateMs = performance.now() - m0;

    const secretBox = createSecretBox(config.authSecret);
    const mailer = await createMailer({ config, db: database.db, log });
    const webhooks = createWebhooks({ config, database, clock, log, mailer });
    const worker = options.worker ?? true;
    const processor = createProcessor(config.payments, database.db);
    const tax = createTaxCalculator(config.taxRates);
    // The reconciler fulfils orders, which queue benefit grants: it gets the queue once started.
    const checkoutJobDeps: CheckoutDeps = {
      db: database.db,
      clock,
      config,
      secretBox,
      tax,
      processor,
      queue: null,
    };
    // The queue is handed to the engine once started (jobs are defined before it exists).
    const billing = {
      db: database.db,
      clock,
      baseUrl: config.baseUrl,
      queue: null as QueueHandle | null,
      processor,
      tax,
      mailer,
      retryDays: config.dunningRetryDays,
    };
    const jobs: JobDefinition[] = [
      subscriptionDueJob(billing) as JobDefinition,
      subscriptionCatchUpJob(billing),
      revokeSubscriptionJob(billing) as JobDefinition,
      noopJob as JobDefinition,
      expireCheckoutsJob({ db: database.db, clock, config, secretBox }),
      reconcileCheckoutsJob(checkoutJobDeps, log),
      // A getter: the queue is handed to `billing` once started.
      reconcileDraftOrdersJob(
        {
          ...billing,
          get queue() {
            return billing.queue;
          },
          reconcileAfterSeconds: config.payments.reconcileAfterSeconds,
        },
        log,
      ),
      reconcileChangeChargesJob(
        { ...billing, reconcileAfterSeconds: config.payments.reconcileAfterSeconds },
        log,
      ),
      // A getter: the queue (receipt mails) is handed to `billing` once started.
      reconcileRefundsJob(
        {
          ...billing,
          get queue() {
            return billing.queue;
          },
          reconcileAfterSeconds: config.payments.reconcileAfterSeconds,
        },
        log,
      ),
      applyGrantsJob({ db: database.db, clock, log, config: config.grants }) as JobDefinition,
      refreshRollupsJob({ db: database.db, log }),
      ensurePartitionsJob({ db: database.db, clock, log }),
      pruneDedupJob({
        db: database.db,
        clock,
        log,
        retentionDays: config.eventDedupRetentionDays,
      }),
      receiptMailJob({ db: database.db, clock, baseUrl: config.baseUrl, mailer }) as JobDefinition,
      paymentFailedMailJob({ clock, baseUrl: config.baseUrl, mailer }) as JobDefinition,
      retryMailJob({ clock, log, mailer }),
    ];

    const q0 = performance.now();
    const queue = await startQueue({
      database,
      databaseUrl: queueUrl(config),
      log,
      jobs: [...jobs, ...webhooks.jobs],
      worker,
    });
    const queueMs = performance.now() - q0;
    cleanup.unshift((left) => queue.stop(left));
    checkoutJobDeps.queue = queue;
    // A restart after a crash resolves what the crash left confirmed as soon as it is stale, rather
    // than at the next minute of the schedule.
    if (worker)
      await queue.boss.send(
        RECONCILE_CHECKOUTS_JOB,
        {},
        {
          startAfter: config.payments.reconcileAfterSeconds + 1,
          singletonKey: "after-start",
        },
      );
    // The months ahead exist from the first start, not only after the first daily run.
    if (worker) await queue.boss.send(ENSURE_PARTITIONS_JOB, {}, { singletonKey: "after-start" });
    billing.queue = queue;
    // Boundaries that passed while no worker ran (or whose worker died) are woken at once.
    if (worker && (await wakeOverdue(billing)) > 0) queue.fetchNow(SUBSCRIPTION_DUE_JOB);
    // Before the queue stops: attempts in flight are recorded with their jobs' completion.
    cleanup.unshift(() => webhooks.stop());
    await webhooks.start(queue, { worker });

    const auth = createAuth({
      config,
      db: database.db,
      mailer,
      hooks: {
        afterCreateOrganization: (org) => ensureProfile(database.db, org.id),
        beforeDeleteOrganization: (id) => assertOrganizationDeletable(database.db, id),
      },
    });
    await promoteListedAdmins(database.db, config, log);

    let app: Express | null = null;
    let url = "";
    let demo: Promise<DemoSeed> | null = null;
    let seedDemoNow = () => {};
    if (options.http ?? true) {
      // Seeded once the server listens, not before: start-up does not wait for it, and /demo waits
      // for the seed on its first request.
      if (config.demo) {
        let inFlight: Promise<unknown> = Promise.resolve();
        demo = new Promise<DemoSeed>((resolve, reject) => {
          seedDemoNow = () => {
            const seeding = seedDemoLogged(config, { db: database.db, clock, auth }, log);
            inFlight = seeding.catch(() => undefined);
            seeding.then(resolve, reject);
          };
        });
        // A failed seed is logged; /demo reports it when asked.
        demo.catch(() => undefined);
        // Stopping waits for a seed in flight, so it never writes to a closed database.
        cleanup.unshift(() => inFlight.then(() => undefined));
      }
      app = createApp({
        demo,
        config,
        database,
        log,
        clock,
        queue,
        auth,
        webhooks,
        secretBox,
        tax,
        processor,
        mailer,
      });
      const server = await listen(app, config.port, config.host);
      const { port } = server.address() as AddressInfo;
      url = config.port === 0 ? `http://localhost:${port}` : config.baseUrl;
      cleanup.unshift((left) => closeHttp(server, left, log));
      // Live streams never finish on their own: end them so the HTTP server can close.
      cleanup.unshift(async () => webhooks.streams.closeAll());
    }
    // performance.now() counts from the process's start, so readyMs includes loading the code
    // (loadMs: everything before start() was called).
    const timings = {
      loadMs: round(t0),
      migrateMs: round(migrateMs),
      queueMs: round(queueMs),
      readyMs: round(performance.now()),
    };
    setImmediate(seedDemoNow);
    return {
      url,
      app,
      database,
      auth,
      queue,
      webhooks,
      log,
      timings,
      demo: demo !== null,
      stop: once(() => runAll(cleanup, log, config.shutdownGraceMs)),
    };
  } catch (err) {
    await runAll(cleanup, log, config.shutdownGraceMs);
    throw err;
  }
}

function seedDemoLogged(
  config: Readonly<Config>,
  deps: { db: Database["db"]; clock: Clock; auth: Auth },
  log: Logger,
): Promise<DemoSeed> {
  const t0 = performance.now();
  const seeding = seedDemo({ ...deps, config });
  seeding.then(
    (seed) =>
      log.info(
        { organizationId: seed.organizationId, ms: round(performance.now() - t0) },
        "demo store seeded",
      ),
    (err: unknown) => log.warn({ err }, "demo store not seeded; /demo is unavailable"),
  );
  return seeding;
}

export class PortInUseError extends Error {
  override name = "PortInUseError";
}

function listen(app: Express, port: number, host: string): Promise<http.Server> {
  const server = http.createServer(app);
  // Keep-alive longer than common load balancers' idle timeouts, so they close first.
  server.keepAliveTimeout = 65_000;
  answerClientErrors(server);
  return new Promise((resolve, reject) => {
    server.once("error", (err: NodeJS.ErrnoException) => {
      reject(
        err.code === "EADDRINUSE"
          ? new PortInUseError(
              `Port ${port} on ${host} is already in use. Set PORT to another port.`,
            )
          : err,
      );
    });
    server.listen(port, host, () => resolve(server));
  });
}

/**
 * Stops accepting and lets in-flight requests finish within the grace period, then cuts the rest.
 * Idle keep-alive connections close at once, busy ones as soon as their response is sent (and
 * answers written meanwhile say `Connection: close`), so a keep-alive client cannot hold the
 * server open until the grace period ends.
 */
export function closeHttp(server: http.Server, graceMs: number, log: Logger): Promise<void> {
  return new Promise((resolve) => {
    const closeAfterResponse = (_req: http.IncomingMessage, res: http.ServerResponse) => {
      if (!res.headersSent) res.setHeader("connection", "close");
    };
    server.on("request", closeAfterResponse);
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    const timer = setTimeout(() => {
      log.warn({ graceMs }, "grace period over; closing remaining connections");
      server.closeAllConnections();
    }, graceMs);
    server.close(() => {
      clearTimeout(timer);
      clearInterval(sweep);
      server.off("request", closeAfterResponse);
      resolve();
    });
    server.closeIdleConnections();
  });
}

type Step = (leftMs: number) => Promise<void>;

/**
 * Runs the shutdown steps in order within `graceMs` overall: a step still running at the deadline
 * is left behind, and the last one (closing the database) then cuts its queries off at once.
 */
async function runAll(steps: Step[], log: Logger, graceMs: number): Promise<void> {
  const deadline = performance.now() + graceMs;
  for (const step of steps) {
    const left = Math.max(0, deadline - performance.now());
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        step(left),
        new Promise<void>((resolve) => {
          // A little past the deadline: a step honouring its budget ends by itself first.
          timer = setTimeout(() => {
            log.warn({ graceMs }, "shutdown step still running at the deadline; moving on");
            resolve();
          }, left + 50);
        }),
      ]);
    } catch (err) {
      log.error({ err }, "error during shutdown");
    } finally {
      clearTimeout(timer);
    }
  }
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let p: Promise<void> | null = null;
  return () => (p ??= fn());
}

function round(ms: number): number {
  return Math.round(ms);
}
