// `till open dashboard|checkout <id>|portal <customer>|docs|webhooks`.
import type { Command } from "commander";
import { contextOf } from "../lib/command.ts";
import { AbortError, EXIT } from "../lib/errors.ts";

// till speaks Polar's API v1, so Polar's API reference documents every endpoint.
const DOCS_URL = "https://docs.polar.sh/api-reference/introduction";
const TARGETS = ["dashboard", "checkout", "portal", "docs", "webhooks"];

export function configureOpenCommand(program: Command): void {
  program
    .command("open <what> [id]")
    .description(`open a page in the browser: ${TARGETS.join(", ")} (prints the URL with --json)`)
    .addHelpText(
      "after",
      "\nExamples:\n  $ till open dashboard\n  $ till open checkout <checkout-id>\n  $ till open portal <customer-id>\n  $ till open webhooks --json\n",
    )
    .action(async (what: string, id: string | undefined, _f, c: Command) => {
      const ctx = await contextOf(c);
      const server = ctx.session.server;
      const needId = (noun: string) => {
        if (!id)
          throw new AbortError(`Give the ${noun} id: till open ${what} <id>.`, {
            exitCode: EXIT.usage,
          });
        return encodeURIComponent(id);
      };
      let url: string;
      if (what === "dashboard") url = `${server}/`;
      else if (what === "docs") url = DOCS_URL;
      else if (what === "webhooks") url = `${server}/webhooks`;
      else if (what === "checkout")
        url = (await ctx.api().get<{ url: string }>(`/v1/checkouts/${needId("checkout")}`)).url;
      else if (what === "portal") {
        const session = await ctx
          .api()
          .post<{ customer_portal_url: string }>("/v1/customer-sessions/", {
            customer_id: decodeURIComponent(needId("customer")),
          });
        url = session.customer_portal_url;
      } else
        throw new AbortError(`Cannot open "${what}": use ${TARGETS.join(", ")}.`, {
          exitCode: EXIT.usage,
        });
      if (ctx.out.json) {
        ctx.out.result({ url }, () => url);
        return;
      }
      const { openUrl } = await import("../services/browser.ts");
      openUrl(ctx, url);
    });
}
