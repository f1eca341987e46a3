// The till command line: one commander program; each command group configures itself from its own
// file and loads its implementation only when run, so `till --help` stays fast.
import { Command, CommanderError } from "commander";
import pkg from "../package.json" with { type: "json" };
import { configureAuthCommands } from "./commands/auth.ts";
import { configureClockCommand } from "./commands/clock.ts";
import { configureCompletionCommand } from "./commands/completion.ts";
import { configureCustomerCommands } from "./commands/customers.ts";
import { configureListenCommand } from "./commands/listen.ts";
import { configureMeterCommands } from "./commands/meters.ts";
import { configureOpsCommands } from "./commands/ops.ts";
import { configureOrgCommands } from "./commands/orgs.ts";
import { configureProductCommands } from "./commands/products.ts";
import { configureSalesCommands } from "./commands/sales.ts";
import { configureServerCommands } from "./commands/server.ts";
import { configureTriggerCommands } from "./commands/trigger.ts";

const program = new Command("till")
  .description("till: self-hostable billing for developers (Polar API v1 compatible)")
  .version(pkg.version, "-v, --version", "print the version")
  .option("--json", "machine-readable JSON on stdout (NDJSON for streams)")
  .option("--no-color", "plain output without colours (also NO_COLOR)")
  .option("--profile <name>", "credentials profile (default: default, or TILL_PROFILE)")
  .option(
    "--server <url>",
    "till server URL (default: the profile's, TILL_SERVER, or http://localhost:8080)",
  )
  .showHelpAfterError("(run with --help for usage)")
  .exitOverride();

configureAuthCommands(program);
configureOrgCommands(program);
configureProductCommands(program);
configureMeterCommands(program);
configureCustomerCommands(program);
configureSalesCommands(program);
configureOpsCommands(program);
configureTriggerCommands(program);
configureClockCommand(program);
configureListenCommand(program);
configureServerCommands(program);
configureCompletionCommand(program);

// Every subcommand reports usage errors through the same exit path.
for (const cmd of program.commands) {
  cmd.exitOverride();
  for (const sub of cmd.commands) sub.exitOverride();
}

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    // help and version exit 0; usage errors exit 2 (commander already printed the message).
    process.exit(err.exitCode === 0 ? 0 : 2);
  }
  const { reportFatal } = await import("./lib/errors.ts");
  process.exit(reportFatal(err, process.argv.includes("--json")));
}
