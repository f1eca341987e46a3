// `till profiles list|use|remove` and `till config`.
import type { Command } from "commander";
import { contextOf } from "../lib/command.ts";

export function configureProfileCommands(program: Command): void {
  const profiles = program
    .command("profiles")
    .description("saved logins (one per server or account), and which one is used");
  profiles
    .command("list")
    .description("list saved profiles; * marks the one in use")
    .addHelpText("after", "\nExamples:\n  $ till profiles list\n  $ till profiles list --json\n")
    .action(async (_f, c: Command) => {
      const { listProfiles } = await import("../services/profiles.ts");
      await listProfiles(await contextOf(c));
    });
  profiles
    .command("use <name>")
    .description("use this profile when neither --profile nor TILL_PROFILE names one")
    .addHelpText("after", "\nExample:\n  $ till profiles use staging\n")
    .action(async (_name: string, _f, c: Command) => {
      const [{ parseArgs }, { profileArgs }, { useProfile }] = await Promise.all([
        import("../lib/flags.ts"),
        import("./profiles-flags.ts"),
        import("../services/profiles.ts"),
      ]);
      const { name } = parseArgs(profileArgs, c);
      await useProfile(await contextOf(c), name);
    });
  profiles
    .command("remove <name>")
    .description("forget a saved profile and its token (without signing out on the server)")
    .addHelpText("after", "\nExample:\n  $ till profiles remove staging\n")
    .action(async (_name: string, _f, c: Command) => {
      const [{ parseArgs }, { profileArgs }, { removeSavedProfile }] = await Promise.all([
        import("../lib/flags.ts"),
        import("./profiles-flags.ts"),
        import("../services/profiles.ts"),
      ]);
      const { name } = parseArgs(profileArgs, c);
      await removeSavedProfile(await contextOf(c), name);
    });

  program
    .command("config")
    .description("show the settings in effect: profile, server, token source, files")
    .addHelpText(
      "after",
      "\nExamples:\n  $ till config\n  $ TILL_SERVER=http://localhost:3000 till config --json\n",
    )
    .action(async (_f, c: Command) => {
      const { showConfig } = await import("../services/profiles.ts");
      await showConfig(await contextOf(c));
    });
}
