// `till init webhook-handler`: writes a minimal webhook handler to start from.
import type { Command } from "commander";
import { contextOf } from "../lib/command.ts";

export function configureInitCommand(program: Command): void {
  program
    .command("init")
    .description("start a project from a template")
    .command("webhook-handler")
    .description("write a minimal Express handler that verifies till's webhooks (standardwebhooks)")
    .option("--lang <language>", "ts (TypeScript, run with Node's type stripping)", "ts")
    .option("--dir <path>", "where to write it", "till-webhook-handler")
    .option("--force", "overwrite files that exist")
    .addHelpText(
      "after",
      "\nExamples:\n  $ till init webhook-handler --lang ts\n  $ till init webhook-handler --dir hooks && cd hooks && npm install\n",
    )
    .action(async (raw: unknown, c: Command) => {
      const [{ parseFlags }, { initFlags }, { initWebhookHandler }] = await Promise.all([
        import("../lib/flags.ts"),
        import("./logs-flags.ts"),
        import("../services/init.ts"),
      ]);
      await initWebhookHandler(await contextOf(c), parseFlags(initFlags, raw));
    });
}
