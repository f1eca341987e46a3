// `till logs tail`.
import type { Command } from "commander";
import { contextOf, requireOrganization, requireUserToken } from "../lib/command.ts";

export function configureLogsCommand(program: Command): void {
  program
    .command("logs")
    .description("your organization's API requests")
    .command("tail")
    .description("show the organization's API requests live, as they finish")
    .option("--status <codes>", "only these statuses: 404, 4xx, 5xx (comma-separated)")
    .option("--method <methods>", "only these methods, e.g. POST,PATCH")
    .option("--path <pattern>", "only paths matching, * is a wildcard, e.g. /v1/checkouts/*")
    .option("--org <id-or-slug>", "organization (default: the profile's)")
    .addHelpText(
      "after",
      "\nExamples:\n  $ till logs tail\n  $ till logs tail --status 4xx,5xx --method POST\n  $ till logs tail --path '/v1/products/*' --json | jq .status\n",
    )
    .action(async (raw: unknown, c: Command) => {
      const [{ parseFlags }, { logsTailFlags }] = await Promise.all([
        import("../lib/flags.ts"),
        import("./logs-flags.ts"),
      ]);
      const flags = parseFlags(logsTailFlags, raw);
      const ctx = await contextOf(c);
      requireUserToken(
        ctx,
        "`till logs tail` needs a signed-in user: the request log is a member's own view, and an organization token (TILL_TOKEN) cannot open it.",
        "Run `till login` (and unset TILL_TOKEN).",
      );
      const organizationId = await requireOrganization(ctx, flags.org, { announce: true });
      const { tailLogs } = await import("../services/logs.ts");
      await tailLogs(ctx, organizationId, flags);
    });
}
