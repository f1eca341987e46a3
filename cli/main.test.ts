import { describe, expect, it } from "vitest";
import pkg from "../package.json" with { type: "json" };
import { runTill, spawnTillServer, tempDir } from "../test/helpers/process.ts";

describe("till executable", () => {
  it("--version prints the package version and exits 0", async () => {
    const result = await runTill(["--version"]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout.trim()).toBe(pkg.version);
  });

  it("--help lists the server commands", async () => {
    const result = await runTill(["--help"]);
    expect(result.exitCode).toBe(0);
    for (const command of ["dev", "serve", "worker", "migrate"])
      expect(result.stdout).toMatch(new RegExp(`\\n\\s+${command}\\b`));
  });

  it("an unknown command or flag is a usage error: exit 2", async () => {
    expect((await runTill(["frobnicate"])).exitCode).toBe(2);
    expect((await runTill(["dev", "--bogus"])).exitCode).toBe(2);
  });

  it("a configuration error names the variable and exits 1 without a stack", async () => {
    const result = await runTill(["serve"], { PORT: "0" });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("AUTH_SECRET: required for `till serve`");
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it("`till migrate` applies migrations to a new embedded database", {
    timeout: 60_000,
  }, async () => {
    const result = await runTill(["migrate"], { TILL_DATA_DIR: "data" });
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("Migrations applied.");
  });

  it("a second process on one embedded database stops at once naming the first; a killed one's lock is taken over", {
    timeout: 120_000,
  }, async () => {
    const cwd = tempDir();
    const env = { TILL_DATA_DIR: "data", TILL_DEMO: "false", LOG_LEVEL: "warn" };
    const first = await spawnTillServer("dev", env, cwd);
    try {
      for (const args of [["dev"], ["migrate"]]) {
        const second = await runTill(args, { ...env, PORT: "0" }, cwd);
        expect(second.exitCode).toBe(1);
        expect(second.stderr.trim()).toBe(
          `Error: The embedded database at ${cwd}/data/db is in use by another till process (pid ${first.child.pid}). Stop it, or set TILL_DATA_DIR to another directory.`,
        );
      }
      expect((await fetch(`${first.url}/readyz`)).status).toBe(200);
    } finally {
      first.child.kill("SIGKILL");
      await first.child;
    }
    const after = await runTill(["migrate"], env, cwd);
    expect(after.stderr).toBe("");
    expect(after.exitCode).toBe(0);
  });
});

describe("till completion", () => {
  it("bash completion completes subcommands from the real command tree", async () => {
    const script = await runTill(["completion", "bash"]);
    expect(script.exitCode).toBe(0);
    const { execa } = await import("execa");
    const probe = await execa("bash", [
      "-c",
      `${script.stdout}\nCOMP_WORDS=(till products cr); COMP_CWORD=2; _till; echo "\${COMPREPLY[@]}"`,
    ]);
    expect(probe.stdout.trim()).toBe("create");
    // After an option's value the command path still counts: `--profile staging` is no command.
    const afterValue = await execa("bash", [
      "-c",
      `${script.stdout}\nCOMP_WORDS=(till --profile staging products cr); COMP_CWORD=4; _till; echo "\${COMPREPLY[@]}"`,
    ]);
    expect(afterValue.stdout.trim()).toBe("create");
    // Completing the value itself offers no commands.
    const value = await execa("bash", [
      "-c",
      `${script.stdout}\nCOMP_WORDS=(till products list --org ''); COMP_CWORD=4; _till; echo "[\${COMPREPLY[@]}]"`,
    ]);
    expect(value.stdout.trim()).toBe("[]");
  });

  it("an unknown shell is a usage error", async () => {
    const result = await runTill(["completion", "tcsh"]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("<shell>: must be one of bash, zsh or fish");
  });
});

describe("till --help", () => {
  it("every command that runs (leaves, and groups like `clock` that run too) shows an example, and no help text misspells a plural", async () => {
    const { buildProgram } = await import("./program.ts");
    type Cmd = ReturnType<typeof buildProgram>;
    const leaves: [string, Cmd][] = [];
    const walk = (c: Cmd, path: string[]) => {
      // A group with an action of its own (`till clock`) runs as well as holding subcommands.
      const runs = (c as unknown as { _actionHandler: unknown })._actionHandler != null;
      if (path.length > 0 && (c.commands.length === 0 || runs)) leaves.push([path.join(" "), c]);
      for (const sub of c.commands) walk(sub, [...path, sub.name()]);
    };
    walk(buildProgram(), []);
    expect(leaves.length).toBeGreaterThan(60);
    const missing: string[] = [];
    for (const [path, cmd] of leaves) {
      let text = "";
      cmd.configureOutput({ writeOut: (s) => (text += s), writeErr: (s) => (text += s) });
      cmd.outputHelp();
      if (!/\nExamples?:\n\s+\$ .*\btill\b/.test(text)) missing.push(path);
      expect(text).not.toMatch(/deliverys|entitys|propertys/);
    }
    expect(missing).toEqual([]);
  });
});
