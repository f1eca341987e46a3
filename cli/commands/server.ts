// Server commands: `till dev` (sandbox, embedded database, server + worker), `till serve`
// (production HTTP server, worker included unless --no-worker), `till worker` and `till migrate`.
import type { Command } from "commander";

// Flags go to the config module as overrides; it validates them with the variables they replace.
const serverFlags = {
  parse: (f: { port?: string; host?: string; worker?: boolean }) => ({
    port: f.port,
    host: f.host,
    worker: f.worker !== false,
  }),
};

export function configureServerCommands(program: Command): void {
  program
    .command("dev")
    .description("run till locally in sandbox mode: API, dashboard and worker on embedded Postgres")
    .option("-p, --port <port>", "port to listen on (default 8080, or PORT)")
    .option("--host <host>", "interface to bind (default 127.0.0.1)")
    .addHelpText("after", "\nExample:\n  $ till dev --port 3000\n")
    .action(async (flags) => {
      const { runServer } = await import("../services/server.ts");
      await runServer("dev", serverFlags.parse(flags));
    });

  program
    .command("serve")
    .description("run the production server (AUTH_SECRET required; DATABASE_URL for PostgreSQL)")
    .option("-p, --port <port>", "port to listen on (default 8080, or PORT)")
    .option("--host <host>", "interface to bind (default 0.0.0.0)")
    .option("--no-worker", "serve HTTP only; run `till worker` processes for jobs")
    .addHelpText(
      "after",
      "\nExample:\n  $ DATABASE_URL=postgres://till@db/till AUTH_SECRET=... till serve\n",
    )
    .action(async (flags) => {
      const { runServer } = await import("../services/server.ts");
      await runServer("serve", serverFlags.parse(flags));
    });

  program
    .command("worker")
    .description("work background jobs (webhook delivery, renewals, expiries) without serving HTTP")
    .addHelpText(
      "after",
      "\nExample:\n  $ DATABASE_URL=postgres://till@db/till AUTH_SECRET=... till worker\n",
    )
    .action(async () => {
      const { runServer } = await import("../services/server.ts");
      await runServer("worker", { worker: true });
    });

  program
    .command("migrate")
    .description("apply database migrations (the server also applies them at start)")
    .addHelpText("after", "\nExample:\n  $ DATABASE_URL=postgres://till@db/till till migrate\n")
    .action(async () => {
      const { runMigrations } = await import("../services/server.ts");
      await runMigrations();
    });
}
