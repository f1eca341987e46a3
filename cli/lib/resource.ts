// The list / get / delete commands every resource shares, so each resource file only says what is
// particular to it: its columns, filters and the flags that build a create or update body.
import type { Command } from "commander";
import type { z } from "zod";
import { contextOf, organizationParam, type CommandContext } from "./command.ts";
import { AbortError, EXIT } from "./errors.ts";
import { renderFields, renderTable, type Column } from "./output.ts";
import type { Query } from "./api.ts";

export interface ResourceSpec<T> {
  /** Collection path with Polar's trailing slash, e.g. "/v1/products/". */
  path: string;
  noun: string;
  /** When not noun + "s" (delivery → deliveries). */
  plural?: string;
  columns: Column<T>[];
  /** Fields shown by `get` when not --json. */
  fields?: (row: T) => [string, unknown][];
}

export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** key=value pairs from repeatable flags; numbers and booleans keep their type, as Polar's metadata. */
export function parsePairs(
  pairs: string[] | undefined,
  flag: string,
): Record<string, string | number | boolean> | undefined {
  if (!pairs || pairs.length === 0) return undefined;
  const out: Record<string, string | number | boolean> = {};
  for (const pair of pairs) {
    const i = pair.indexOf("=");
    if (i <= 0)
      throw new AbortError(`${flag} expects key=value, got "${pair}".`, { exitCode: EXIT.usage });
    out[pair.slice(0, i)] = scalarOf(pair.slice(i + 1));
  }
  return out;
}

/** Text typed on the command line as the JSON value it spells: true, false, a number, or itself. */
export function scalarOf(raw: string): string | number | boolean {
  if (raw === "true") return true;
  if (raw === "false") return false;
  return /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
}

/** The command's words after `till`, e.g. "webhooks endpoints list". */
export function commandPath(cmd: Command): string {
  const words: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) words.unshift(c.name());
  return words.join(" ");
}

/** Adds an Examples section to a command's --help; each line is the words after `till`. */
export function examples(cmd: Command, ...lines: string[]): Command {
  const path = commandPath(cmd);
  return cmd.addHelpText(
    "after",
    `\nExample${lines.length > 1 ? "s" : ""}:\n${lines.map((l) => `  $ till ${path}${l ? ` ${l}` : ""}`).join("\n")}\n`,
  );
}

export function plural(spec: { noun: string; plural?: string }): string {
  return spec.plural ?? `${spec.noun}s`;
}

export function addListCommand<T>(
  group: Command,
  spec: ResourceSpec<T>,
  filters: (cmd: Command) => Command = (c) => c,
  toQuery: (flags: Record<string, unknown>) => Query = () => ({}),
  /** The filter flags that take an id (once, or repeated), checked as UUIDs like every `<id>`. */
  idFilters: string[] = [],
  /** Schemas of the other filter flags, loaded with the action: a bad value stops before a request. */
  filterFlags: () => Promise<Record<string, z.ZodType>> = async () => ({}),
): void {
  const cmd = group
    .command("list")
    .description(`list ${plural(spec)}`)
    .option("--limit <n>", "items per page (max 100)", "10")
    .option("--page <n>", "page number", "1")
    .option("--org <id-or-slug>", "organization (default: the profile's)");
  examples(cmd, "", "--limit 50 --page 2", "--json | jq '.items[].id'");
  filters(cmd).action(async (raw: Record<string, unknown>, c: Command) => {
    const [{ listFlags, parseFlags, uuid }, { z }] = await Promise.all([
      import("./flags.ts"),
      import("zod"),
    ]);
    const flags = parseFlags(listFlags, raw);
    // A repeatable flag (collected into an array) checks each id it was given.
    const ids = Object.fromEntries(
      idFilters.map((key) => [key, Array.isArray(raw[key]) ? uuid.array() : uuid.optional()]),
    );
    const filters = parseFlags(z.looseObject({ ...ids, ...(await filterFlags()) }), raw);
    const ctx = await contextOf(c);
    const query: Query = {
      page: flags.page,
      limit: flags.limit,
      organization_id: await organizationParam(ctx, flags.org, { announce: true }),
      ...toQuery(filters),
    };
    const res = await ctx
      .api()
      .get<{ items: T[]; pagination: { total_count: number; max_page: number } }>(spec.path, query);
    const { total_count, max_page } = res.pagination;
    const footer = `page ${flags.page} of ${Math.max(max_page, 1)} · ${total_count} ${total_count === 1 ? spec.noun : plural(spec)}`;
    await printTable(ctx, res, res.items, spec.columns, footer);
  });
}

/** The command's `<id>`, checked to be a UUID as the server reads every resource id. */
export async function idOf(cmd: Command): Promise<{ id: string }> {
  const { idArgs, parseArgs } = await import("./flags.ts");
  return parseArgs(idArgs, cmd);
}

export function addGetCommand<T>(group: Command, spec: ResourceSpec<T>): void {
  const cmd = group.command("get <id>").description(`show one ${spec.noun}`);
  examples(cmd, "<id>", "<id> --json");
  cmd.action(async (_id: string, _f, c: Command) => {
    const { id } = await idOf(c);
    const ctx = await contextOf(c);
    const row = await ctx.api().get<T>(`${spec.path}${id}`);
    printOne(ctx, spec, row);
  });
}

export function addDeleteCommand<T>(group: Command, spec: ResourceSpec<T>, verb = "delete"): void {
  const cmd = group.command(`${verb} <id>`).description(`${verb} a ${spec.noun}`);
  examples(cmd, "<id>");
  cmd.action(async (_id: string, _f, c: Command) => {
    const { id } = await idOf(c);
    const ctx = await contextOf(c);
    await ctx.api().delete(`${spec.path}${id}`);
    ctx.out.result({ id, deleted: true }, () => `Deleted ${spec.noun} ${id}.`);
  });
}

/**
 * A table: Ink on a colour TTY; aligned plain text in a pipe or without colour (NO_COLOR,
 * --no-color: Ink's styles ignore NO_COLOR, so it is not used then); `data` as JSON with --json.
 */
export async function printTable<T>(
  ctx: CommandContext,
  data: unknown,
  rows: T[],
  columns: Column<T>[],
  footer?: string,
): Promise<void> {
  if (ctx.out.tty && ctx.out.color && !ctx.out.json) {
    const { renderInkTable } = await import("../ui/render.ts");
    return renderInkTable(rows, columns, footer);
  }
  ctx.out.result(
    data,
    () => `${renderTable(rows, columns, ctx.out)}${footer ? `\n${ctx.out.dim(footer)}` : ""}`,
  );
}

export function printOne<T>(
  ctx: CommandContext,
  spec: ResourceSpec<T>,
  row: T,
  headline?: string,
): void {
  ctx.out.result(row, () => {
    const body = spec.fields
      ? renderFields(spec.fields(row), ctx.out)
      : renderTable([row], spec.columns, ctx.out);
    return headline ? `${headline}\n${body}` : body;
  });
}
