// `till api get|post|patch|delete <path>`: any endpoint, authenticated as the current profile, like
// `gh api` or `stripe get`: for the endpoints that have no command of their own.
import type { Command } from "commander";
import { contextOf, organizationParam } from "../lib/command.ts";
import { collect } from "../lib/resource.ts";

export function configureApiCommand(program: Command): void {
  program
    .command("api <method> <path>")
    .description("call any API endpoint with your credentials and print the JSON answer")
    .option(
      "-d, --data <key=value|@file.json|json>",
      "a field (repeatable; dots nest, e.g. -d prices.0.price_amount=1500), a JSON file (@file.json, @- for stdin) or a JSON body; query parameters for get",
      collect,
    )
    .option(
      "--org <id-or-slug>",
      "organization to name in a GET's query or a POST's body (default: the profile's, when the server asks for one)",
    )
    .addHelpText(
      "after",
      "\nExamples:\n  $ till api get /v1/products/ -d limit=5\n  $ till api post /v1/customers/ -d email=jane@example.com -d metadata.plan=pro\n  $ till api patch /v1/products/<id> --data @product.json\n  $ till api delete /v1/customers/<id>\n",
    )
    .action(
      async (
        _method: string,
        _path: string,
        flags: { data?: string[]; org?: string },
        c: Command,
      ) => {
        const [{ parseArgs }, { apiArgs }, { buildQuery, buildRequestData, organizationFilling }] =
          await Promise.all([
            import("../lib/flags.ts"),
            import("./api-flags.ts"),
            import("../services/api-call.ts"),
          ]);
        const { method: verb, path: target } = parseArgs(apiArgs, c);
        const ctx = await contextOf(c);
        const items = flags.data ?? [];
        const api = organizationFilling(
          ctx.api(),
          () => organizationParam(ctx, flags.org, { announce: true }),
          flags.org !== undefined,
        );
        let res: unknown;
        if (verb === "get") res = await api.get(target, buildQuery(items));
        else if (verb === "delete") res = await api.delete(target);
        else if (verb === "patch") res = await api.patch(target, buildRequestData(items));
        else res = await api.post(target, buildRequestData(items));
        // The answer is JSON whatever the flags: pretty on a terminal, one line in a pipe.
        const text = res === undefined ? "" : JSON.stringify(res, null, ctx.out.tty ? 2 : 0);
        if (text) process.stdout.write(`${text}\n`);
      },
    );
}
