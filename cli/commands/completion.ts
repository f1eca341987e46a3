// `till completion bash|zsh|fish`: completion scripts generated from the command tree itself, so
// they never drift from the real commands and flags.
import type { Command } from "commander";
import { SHELLS, type Shell } from "../lib/choices.ts";

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

/** Every option that takes a value: the word after it is that value, not a command. */
function valueFlags(cmd: Command): string[] {
  const own = cmd.options
    .filter((o) => o.required || o.optional)
    .flatMap((o) => [o.long, o.short].filter((f): f is string => Boolean(f)));
  return [...new Set([...own, ...cmd.commands.flatMap(valueFlags)])];
}

export function completionScript(program: Command, shell: Shell): string {
  const nodes = walk(program);
  const globals = nodes[0]!.flags;
  const takesValue = valueFlags(program);
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
  local cur path words i w skip valued
  cur="\${COMP_WORDS[COMP_CWORD]}"
  valued=" ${takesValue.join(" ")} "
  path=""
  skip=""
  for ((i=1; i<COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    if [[ -n "$skip" ]]; then skip=""; continue; fi
    case "$w" in
      -*=*) ;;
      -*) [[ "$valued" == *" $w "* ]] && skip=1 ;;
      *) path="\${path:+$path }$w" ;;
    esac
  done
  # The word being completed is an option's value (a name, a URL, an id): nothing to offer.
  if [[ -n "$skip" ]]; then COMPREPLY=(); return; fi
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
  }
}

export function configureCompletionCommand(program: Command): void {
  program
    .command("completion <shell>")
    .description(`print a shell completion script (${SHELLS.join(", ")})`)
    .addHelpText(
      "after",
      '\nExamples:\n  $ eval "$(till completion bash)"      # in ~/.bashrc\n  $ till completion fish | source\n',
    )
    .action(async (_shell: string, _f, c: Command) => {
      const [{ parseArgs }, { completionArgs }] = await Promise.all([
        import("../lib/flags.ts"),
        import("./completion-flags.ts"),
      ]);
      process.stdout.write(completionScript(program, parseArgs(completionArgs, c).shell));
    });
}
