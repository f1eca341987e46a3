// `till open dashboard|checkout <id>|portal <customer>|docs|webhooks`.
import type { Command } from "commander";
import { OPEN_TARGETS } from "../lib/choices.ts";
import { contextOf } from "../lib/command.ts";

export function configureOpenCommand(program: Command): void {
  program
    .command("open <what> [id]")
    .description(
      `open a page in the browser: ${OPEN_TARGETS.join(", ")} (prints the URL with --json)`,
    )
    .addHelpText(
      "after",
      "\nExamples:\n  $ till open dashboard\n  $ till open checkout <checkout-id>\n  $ till open portal <customer-id>\n  $ till open webhooks --json\n",
    )
    .action(async (_what: string, _id: string | undefined, _f, c: Command) => {
      const [{ parseArgs }, { openArgs }] = await Promise.all([
        import("../lib/flags.ts"),
        import("./open-flags.ts"),
      ]);
      const { what, id } = parseArgs(openArgs, c);
      const ctx = await contextOf(c);
      const server = ctx.session.server;
      let url: string;
      if (what === "dashboard") url = `${server}/`;
      // The server's own reference (its OpenAPI document rendered), true to what it serves.
      else if (what === "docs") url = `${server}/docs`;
      else if (what === "webhooks") url = `${server}/webhooks`;
      else if (what === "checkout")
        url = (await ctx.api().get<{ url: string }>(`/v1/checkouts/${id}`)).url;
      else {
        const session = await ctx
          .api()
          .post<{ customer_portal_url: string }>("/v1/customer-sessions/", { customer_id: id });
        url = session.customer_portal_url;
      }
      if (ctx.out.json) {
        ctx.out.result({ url }, () => url);
        return;
      }
      const { openUrl } = await import("../services/browser.ts");
      openUrl(ctx, url);
    });
}
