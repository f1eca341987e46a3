// The till command line: one commander program; each command group configures itself from its own
// file and loads its implementation only when run, so `till --help` stays fast.
import { Command, CommanderError } from "commander";
import pkg from "../package.json" with { type: "json" };
import { configureServerCommands } from "./commands/server.ts";

const program = new Command("till")
  .description("till: self-hostable billing for developers (Polar API v1 compatible)")
  .version(pkg.version, "-v, --version", "print the version")
  .showHelpAfterError("(run with --help for usage)")
  .exitOverride();

configureServerCommands(program);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    // help and version exit 0; usage errors exit 2 (commander already printed the message).
    process.exit(err.exitCode === 0 ? 0 : 2);
  }
  const { reportFatal } = await import("./lib/errors.ts");
  process.exit(reportFatal(err));
}
