// `till orgs list|switch|create` and `till tokens create|list|delete`.
import type { Command } from "commander";
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
    .action(async (ref: string, _f, cmd: Command) => {
      const { switchOrg } = await import("../services/orgs.ts");
      await switchOrg(await contextOf(cmd), ref);
    });
  orgs
    .command("create")
    .description("create an organization (you become its owner) and switch to it")
    .requiredOption("--name <name>", "display name")
    .option("--slug <slug>", "URL slug (default: from the name)")
    .addHelpText("after", '\nExample:\n  $ till orgs create --name "Acme Inc" --slug acme\n')
    .action(async (flags, cmd: Command) => {
      const { createOrg } = await import("../services/orgs.ts");
      await createOrg(await contextOf(cmd), { name: String(flags.name), slug: flags.slug });
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
    .action(async (flags, cmd: Command) => {
      const { createToken } = await import("../services/orgs.ts");
      await createToken(
        await contextOf(cmd),
        flags as { scope: string[]; comment: string; expiresIn?: string; org?: string },
      );
    });
  tokens
    .command("list")
    .description("list organization access tokens")
    .action(async (_f, cmd: Command) => {
      const { listTokens } = await import("../services/orgs.ts");
      await listTokens(await contextOf(cmd));
    });
  tokens
    .command("delete <id>")
    .description("revoke an organization access token")
    .action(async (id: string, _f, cmd: Command) => {
      const { deleteToken } = await import("../services/orgs.ts");
      await deleteToken(await contextOf(cmd), id);
    });
}
