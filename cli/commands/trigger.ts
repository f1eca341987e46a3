// `till trigger <event>` and `till open dashboard|checkout <id>`.
import type { Command } from "commander";
import { contextOf } from "../lib/command.ts";
import { AbortError, EXIT } from "../lib/errors.ts";

export function configureTriggerCommands(program: Command): void {
  program
    .command("trigger <event>")
    .description("fire a webhook event with real sandbox objects (sandbox servers only)")
    .addHelpText(
      "after",
      "\nExamples:\n  $ till trigger order.paid\n  $ till trigger subscription.canceled --json\n",
    )
    .action(async (event: string, _f, c: Command) => {
      const { trigger } = await import("../services/trigger.ts");
      await trigger(await contextOf(c), event);
    });

  program
    .command("open <what> [id]")
    .description("open the dashboard, or a checkout's page, in the browser")
    .addHelpText(
      "after",
      "\nExamples:\n  $ till open dashboard\n  $ till open checkout <checkout-id>\n",
    )
    .action(async (what: string, id: string | undefined, _f, c: Command) => {
      const ctx = await contextOf(c);
      const { openUrl } = await import("../services/browser.ts");
      if (what === "dashboard") return openUrl(ctx, `${ctx.session.server}/`);
      if (what === "checkout") {
        if (!id)
          throw new AbortError("Give the checkout id: till open checkout <id>.", {
            exitCode: EXIT.usage,
          });
        const checkout = await ctx
          .api()
          .get<{ url: string }>(`/v1/checkouts/${encodeURIComponent(id)}`);
        return openUrl(ctx, checkout.url);
      }
      throw new AbortError(`Cannot open "${what}": use dashboard or checkout.`, {
        exitCode: EXIT.usage,
      });
    });
}
