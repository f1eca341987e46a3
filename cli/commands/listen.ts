// `till listen`.
import { type Command, Option } from "commander";
import { contextOf, requireOrganization, requireUserToken } from "../lib/command.ts";

export function configureListenCommand(program: Command): void {
  program
    .command("listen")
    .description(
      "stream your organization's webhook events and forward them to a local URL, signed",
    )
    .option(
      "-f, --forward-to <url>",
      "local URL to POST each event to, e.g. http://localhost:3000/webhooks",
    )
    .option(
      "-e, --events <types>",
      "only these event types, comma-separated; * is a wildcard (e.g. order.paid,subscription.*)",
    )
    .option("--print-json", "print each event's full payload")
    .option(
      "--print-secret",
      "print the signing secret and exit (for scripts; {secret} with --json)",
    )
    .option(
      "--replay <n>",
      "first resend the organization's last n events (1-1000), then follow live ones",
    )
    .option("--org <id-or-slug>", "organization (default: the profile's)")
    .addOption(new Option("--max-events <n>", "exit after forwarding this many events").hideHelp())
    .addHelpText(
      "after",
      "\nExamples:\n  $ till listen --forward-to http://localhost:3000/webhooks\n  $ till listen --events 'subscription.*' --print-json\n  $ till listen --replay 5 --forward-to http://localhost:3000/webhooks\n  $ till listen --events order.paid --json | jq .\n  $ export WEBHOOK_SECRET=$(till listen --print-secret)\n\nVerify forwarded requests in your app with the printed whsec_ secret (Standard Webhooks,\nor @polar-sh/sdk's validateEvent). Listen starts even if nothing listens at --forward-to yet:\neach event is retried with backoff until your app answers, and none is dropped.\n",
    )
    .action(async (raw: unknown, c: Command) => {
      const [{ parseFlags }, { listenFlags }] = await Promise.all([
        import("../lib/flags.ts"),
        import("./listen-flags.ts"),
      ]);
      const flags = parseFlags(listenFlags, raw);
      const ctx = await contextOf(c);
      requireUserToken(
        ctx,
        "`till listen` needs a signed-in user: the live stream and its signing secret are per user, and an organization token (TILL_TOKEN) cannot open them.",
        "Run `till login` (and unset TILL_TOKEN), or deliver to a public URL with `till webhooks endpoints create`.",
      );
      const organizationId = await requireOrganization(ctx, flags.org, {
        announce: !flags.printSecret,
      });
      const { listen } = await import("../services/listen.ts");
      await listen(ctx, {
        forwardTo: flags.forwardTo ?? null,
        events: flags.events,
        printSecret: Boolean(flags.printSecret),
        printJson: Boolean(flags.printJson),
        organizationId,
        maxEvents: flags.maxEvents ?? null,
        replay: flags.replay ?? null,
      });
    });
}
