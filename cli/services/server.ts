// Runs the server or worker in this process and ties its lifetime to SIGINT/SIGTERM: the first
// signal drains gracefully, a second one exits at once.
import { loadConfig, queueUrl, type Command } from "../../server/config.ts";
import { createLogger } from "../../server/lib/logger.ts";
import { surviveLostConnections } from "../../server/lib/lost-connections.ts";

interface ServerFlags {
  port?: string | undefined;
  host?: string | undefined;
  worker: boolean;
}

export async function runServer(
  command: Extract<Command, "dev" | "serve" | "worker">,
  flags: ServerFlags,
): Promise<void> {
  const config = loadConfig({ command, overrides: { PORT: flags.port, HOST: flags.host } });
  const log = createLogger(config.log);
  surviveLostConnections((err) =>
    log.warn({ err }, "a database connection was lost with no statement waiting on it"),
  );
  const { start } = await import("../../server/main.ts");
  const server = await start(config, { http: command !== "worker", worker: flags.worker, log });

  const dbLabel =
    config.database.kind === "postgres"
      ? "PostgreSQL (DATABASE_URL)"
      : `embedded PGlite at ${config.database.dataDir}`;
  const lines =
    command === "worker"
      ? [`till worker is running (${config.mode} mode)`, `  Database   ${dbLabel}`]
      : [
          `till is running in ${config.mode} mode`,
          `  API        ${server.url}/v1/`,
          `  Dashboard  ${server.url}/`,
          ...(server.demo ? [`  Demo store ${server.url}/demo`] : []),
          `  Ready      ${server.url}/readyz`,
          `  Database   ${dbLabel}`,
        ];
  lines.push(
    `  Started in ${server.timings.readyMs} ms (loading code ${server.timings.loadMs} ms, migrations ${server.timings.migrateMs} ms, queue ${server.timings.queueMs} ms)`,
  );
  process.stdout.write(`${lines.join("\n")}\n`);
  log.info({ url: server.url, mode: config.mode, ...server.timings }, "ready");

  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn({ signal }, "second signal: exiting now");
      process.exit(130);
    }
    stopping = true;
    log.info({ signal }, "shutting down");
    server.stop().then(
      () => {
        log.info("stopped");
        log.flush?.();
        process.exit(0);
      },
      (err: unknown) => {
        log.error({ err }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
}

export async function runMigrations(): Promise<void> {
  const config = loadConfig({ command: "migrate" });
  const { openDb, migrate } = await import("../../db/client.ts");
  const { migrateQueue } = await import("../../server/jobs/queue.ts");
  const database = await openDb(config.database);
  try {
    await migrate(database);
    await migrateQueue(database, queueUrl(config));
    process.stdout.write("Migrations applied.\n");
  } finally {
    await database.close();
  }
}
