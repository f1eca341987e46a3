// `till trigger <event>`, `till fixtures run <file>` and `till open …`.
import type { Command } from "commander";
import { contextOf, organizationParam } from "../lib/command.ts";
import { collect } from "../lib/resource.ts";

export function configureTriggerCommands(program: Command): void {
  program
    .command("trigger [event]")
    .description("fire a webhook event with real sandbox objects (sandbox servers only)")
    .option("--list", "list the events that can be triggered")
    .option(
      "--override <fixture:path=value>",
      "change a request's parameter, e.g. product:name=Pro or price:amount=2000 (repeatable)",
      collect,
    )
    .option(
      "--add <[fixture:]path=value>",
      "add a parameter, e.g. metadata.plan=pro (every request with metadata; repeatable)",
      collect,
    )
    .option("--org <id-or-slug>", "organization (default: the profile's)")
    .addHelpText(
      "after",
      "\nExamples:\n  $ till trigger order.paid\n  $ till trigger subscription.canceled --json\n  $ till trigger order.paid --override product:name=Pro --override price:amount=2500 --add metadata.plan=pro\n  $ till trigger --list\n",
    )
    .action(async (_event: string | undefined, raw: unknown, c: Command) => {
      const [{ parseArgs, parseFlags }, { triggerArgs, triggerFlags }, { TRIGGERS, trigger }] =
        await Promise.all([
          import("../lib/flags.ts"),
          import("./trigger-flags.ts"),
          import("../services/trigger.ts"),
        ]);
      const { event } = parseArgs(triggerArgs, c);
      const flags = parseFlags(triggerFlags, raw);
      const ctx = await contextOf(c);
      if (flags.list || !event) {
        const events = Object.keys(TRIGGERS);
        ctx.out.result({ items: events }, () => events.join("\n"));
        return;
      }
      await trigger(ctx, event, {
        organizationId: await organizationParam(ctx, flags.org, { announce: true }),
        overrides: flags.override ?? [],
        adds: flags.add ?? [],
      });
    });

  program
    .command("fixtures")
    .description("run API requests from a JSON file")
    .command("run <file>")
    .description("run a fixtures file: requests in order, ${name:path} refers to earlier answers")
    .option(
      "--org <id-or-slug>",
      "organization named in each GET's query and POST's body (default: the profile's, when the server asks for one)",
    )
    .addHelpText(
      "after",
      '\nExample:\n  $ till fixtures run shop.json\n\nshop.json:\n  {"fixtures": [\n    {"name": "product", "method": "post", "path": "/v1/products/",\n     "params": {"name": "Pro", "prices": [{"amount_type": "fixed", "price_amount": 1500}]}},\n    {"name": "checkout", "method": "post", "path": "/v1/checkouts/",\n     "params": {"products": ["${product:id}"]}}\n  ]}\n',
    )
    .action(async (_file: string, flags: { org?: string }, c: Command) => {
      const [{ parseArgs }, { fixturesRunArgs }, { runFixturesFile }] = await Promise.all([
        import("../lib/flags.ts"),
        import("./trigger-flags.ts"),
        import("../services/fixtures.ts"),
      ]);
      const { file } = parseArgs(fixturesRunArgs, c);
      await runFixturesFile(await contextOf(c), file, flags.org);
    });
}
