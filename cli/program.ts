// The till command tree: one commander program; each command group configures itself from its own
// file and loads its implementation only when run, so `till --help` stays fast.
import { Command } from "commander";
import pkg from "../package.json" with { type: "json" };
import { configureApiCommand } from "./commands/api.ts";
import { configureAuthCommands } from "./commands/auth.ts";
import { configureClockCommand } from "./commands/clock.ts";
import { configureCompletionCommand } from "./commands/completion.ts";
import { configureCustomerCommands } from "./commands/customers.ts";
import { configureInitCommand } from "./commands/init.ts";
import { configureListenCommand } from "./commands/listen.ts";
import { addExamples } from "./commands/examples.ts";
import { configureLogsCommand } from "./commands/logs.ts";
import { configureMeterCommands } from "./commands/meters.ts";
import { configureOpenCommand } from "./commands/open.ts";
import { configureOpsCommands } from "./commands/ops.ts";
import { configureOrgCommands } from "./commands/orgs.ts";
import { configureProfileCommands } from "./commands/profiles.ts";
import { configureProductCommands } from "./commands/products.ts";
import { configureSalesCommands } from "./commands/sales.ts";
import { configureServerCommands } from "./commands/server.ts";
import { configureTriggerCommands } from "./commands/trigger.ts";

export function buildProgram(): Command {
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
  configureProfileCommands(program);
  configureProductCommands(program);
  configureMeterCommands(program);
  configureCustomerCommands(program);
  configureSalesCommands(program);
  configureOpsCommands(program);
  configureTriggerCommands(program);
  configureClockCommand(program);
  configureOpenCommand(program);
  configureApiCommand(program);
  configureListenCommand(program);
  configureInitCommand(program);
  configureLogsCommand(program);
  configureServerCommands(program);
  configureCompletionCommand(program);

  addExamples(program);

  // Every subcommand, however deep, reports usage errors through the same exit path.
  const override = (cmd: Command): void => {
    cmd.exitOverride();
    for (const sub of cmd.commands) override(sub);
  };
  override(program);
  return program;
}
