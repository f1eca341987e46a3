// `till completion bash|zsh|fish`: completion scripts generated from the command tree itself, so
// they never drift from the real commands and flags.
import type { Command } from "commander";
import { AbortError, EXIT } from "../lib/errors.ts";

interface Node {
  path: string[];
  subcommands: string[];
  flags: string[];
}

function walk(cmd: Command, path: string[] = []): Node[] {
  const flags = cmd.options.flatMap((o) =>
    [o.long, o.short].filter((f): f is string => Boolean(f)),
  );
  const node: Node = {
    path,
    subcommands: cmd.commands.map((c) => c.name()),
    flags: [...flags, "--help"],
  };
  return [node, ...cmd.commands.flatMap((c) => walk(c, [...path, c.name()]))];
}

export function completionScript(program: Command, shell: string): string {
  const nodes = walk(program);
  const globals = nodes[0]!.flags;
  switch (shell) {
    case "bash": {
      const cases = nodes
        .map(
          (n) =>
            `    "${n.path.join(" ")}") words="${[...n.subcommands, ...n.flags, ...globals].join(" ")}" ;;`,
        )
        .join("\n");
      return `# till bash completion: eval "$(till completion bash)"
_till() {
  local cur path words i
  cur="\${COMP_WORDS[COMP_CWORD]}"
  path=""
  for ((i=1; i<COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in -*) ;; *) path="\${path:+$path }\${COMP_WORDS[i]}" ;; esac
  done
  case "$path" in
${cases}
    *) words="${globals.join(" ")}" ;;
  esac
  COMPREPLY=( $(compgen -W "$words" -- "$cur") )
}
complete -F _till till
`;
    }
    case "zsh":
      return `# till zsh completion: eval "$(till completion zsh)"
autoload -U +X bashcompinit && bashcompinit
${completionScript(program, "bash")}`;
    case "fish":
      return [
        "# till fish completion: till completion fish | source",
        ...nodes.flatMap((n) => {
          const condition =
            n.path.length === 0
              ? "__fish_use_subcommand"
              : `__fish_seen_subcommand_from ${n.path[n.path.length - 1]}`;
          return [
            ...n.subcommands.map((s) => `complete -c till -f -n '${condition}' -a '${s}'`),
            ...n.flags
              .filter((f) => f.startsWith("--"))
              .map((f) => `complete -c till -f -n '${condition}' -l '${f.slice(2)}'`),
          ];
        }),
        "",
      ].join("\n");
    default:
      throw new AbortError(`Unknown shell "${shell}": use bash, zsh or fish.`, {
        exitCode: EXIT.usage,
      });
  }
}

export function configureCompletionCommand(program: Command): void {
  program
    .command("completion <shell>")
    .description("print a shell completion script (bash, zsh or fish)")
    .addHelpText(
      "after",
      '\nExamples:\n  $ eval "$(till completion bash)"      # in ~/.bashrc\n  $ till completion fish | source\n',
    )
    .action((shell: string) => {
      process.stdout.write(completionScript(program, shell));
    });
}
