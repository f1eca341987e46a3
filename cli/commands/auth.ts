// `till login`, `till logout`, `till whoami`.
import type { Command } from "commander";
import { contextOf } from "../lib/command.ts";

export function configureAuthCommands(program: Command): void {
  program
    .command("login")
    .description("log in through the browser with a one-time code (OAuth device flow)")
    .option("--org <id-or-slug>", "organization to use after logging in")
    .option("--no-browser", "never offer to open the browser")
    .addHelpText(
      "after",
      "\nExamples:\n  $ till login\n  $ till login --server https://billing.example.com --org acme\n\nIn CI, skip login: set TILL_TOKEN to an organization access token (till tokens create).\n",
    )
    .action(async (flags, cmd: Command) => {
      const { login } = await import("../services/account.ts");
      await login(await contextOf(cmd), {
        org: flags.org || undefined,
        browser: flags.browser !== false,
      });
    });

  program
    .command("logout")
    .description("sign out and forget this profile's token")
    .addHelpText("after", "\nExample:\n  $ till logout --profile staging\n")
    .action(async (_flags, cmd: Command) => {
      const { logout } = await import("../services/account.ts");
      await logout(await contextOf(cmd));
    });

  program
    .command("whoami")
    .description("show the server, user, organization and token in use")
    .addHelpText("after", "\nExample:\n  $ till whoami --json\n")
    .action(async (_flags, cmd: Command) => {
      const { whoami } = await import("../services/account.ts");
      await whoami(await contextOf(cmd));
    });
}
