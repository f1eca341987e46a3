// `till orgs list|switch|create` and `till tokens create|list|delete`.
import type { Command } from "commander";
import { addListCommand, idOf } from "../lib/resource.ts";

interface AccessTokenRow {
  id: string;
  comment: string;
  scopes: string[];
  expires_at: string | null;
  last_used_at: string | null;
}
import { contextOf } from "../lib/command.ts";

export function configureOrgCommands(program: Command): void {
  const orgs = program.command("orgs").description("list, switch and create organizations");
  orgs
    .command("list")
    .description("list your organizations")
    .addHelpText("after", "\nExample:\n  $ till orgs list --json\n")
    .action(async (_f, cmd: Command) => {
      const { listOrgs } = await import("../services/orgs.ts");
      await listOrgs(await contextOf(cmd));
    });
  orgs
    .command("switch <id-or-slug>")
    .description("make an organization the default for this profile")
    .addHelpText("after", "\nExample:\n  $ till orgs switch acme\n")
    .action(async (_ref: string, _f, cmd: Command) => {
      const [{ parseArgs }, { orgSwitchArgs }, { switchOrg }] = await Promise.all([
        import("../lib/flags.ts"),
        import("./orgs-flags.ts"),
        import("../services/orgs.ts"),
      ]);
      const { idOrSlug } = parseArgs(orgSwitchArgs, cmd);
      await switchOrg(await contextOf(cmd), idOrSlug);
    });
  orgs
    .command("create")
    .description("create an organization (you become its owner) and switch to it")
    .requiredOption("--name <name>", "display name")
    .option("--slug <slug>", "URL slug (default: from the name)")
    .addHelpText("after", '\nExample:\n  $ till orgs create --name "Acme Inc" --slug acme\n')
    .action(async (raw: unknown, cmd: Command) => {
      const [{ parseFlags }, { orgCreateFlags }, { createOrg }] = await Promise.all([
        import("../lib/flags.ts"),
        import("./orgs-flags.ts"),
        import("../services/orgs.ts"),
      ]);
      await createOrg(await contextOf(cmd), parseFlags(orgCreateFlags, raw));
    });

  const tokens = program
    .command("tokens")
    .description("organization access tokens for CI and servers");
  tokens
    .command("create")
    .description("create an organization access token; it is printed once")
    .requiredOption("--scope <scope...>", "scopes, e.g. products:write events:write (repeatable)")
    .option("--comment <text>", "what the token is for", "created with till CLI")
    .option("--expires-in <duration>", "ISO 8601 duration (P30D) or seconds; default never")
    .option("--org <id-or-slug>", "organization (default: the profile's)")
    .addHelpText(
      "after",
      '\nExample:\n  $ till tokens create --scope products:write --scope events:write --expires-in P90D --comment "GitHub Actions"\n',
    )
    .action(async (raw: unknown, cmd: Command) => {
      const [{ parseFlags }, { tokenCreateFlags }, { createToken }] = await Promise.all([
        import("../lib/flags.ts"),
        import("./orgs-flags.ts"),
        import("../services/orgs.ts"),
      ]);
      await createToken(await contextOf(cmd), parseFlags(tokenCreateFlags, raw));
    });
  // The API's own page ({items, pagination}) with --json, like every other list.
  addListCommand(tokens, {
    path: "/v1/organization-access-tokens/",
    noun: "token",
    columns: [
      { header: "id", value: (t: AccessTokenRow) => t.id },
      { header: "comment", value: (t) => t.comment },
      { header: "scopes", value: (t) => t.scopes.join(",") },
      { header: "expires", value: (t) => t.expires_at ?? "never" },
      { header: "last used", value: (t) => t.last_used_at },
    ],
  });
  tokens
    .command("delete <id>")
    .description("revoke an organization access token")
    .action(async (_id: string, _f, cmd: Command) => {
      const { id } = await idOf(cmd);
      const { deleteToken } = await import("../services/orgs.ts");
      await deleteToken(await contextOf(cmd), id);
    });
}
