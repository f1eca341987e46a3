// The till command line: builds the command tree and runs it; expected errors exit with their code.
import { CommanderError } from "commander";
import { buildProgram } from "./program.ts";

const program = buildProgram();
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
