// Where a command's output goes. --json: exactly one JSON document (or NDJSON for streams) on
// stdout and nothing else there. Otherwise readable lines; notes and progress go to stderr so
// pipes stay clean. Colour only on a TTY, never with NO_COLOR or --no-color.
import { majorUnits, minorPerMajor } from "../../server/lib/currency-units.ts";

export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
}

export interface Output {
  json: boolean;
  tty: boolean;
  color: boolean;
  /** Prints the command's result: JSON with --json, otherwise the rendered text. */
  result(data: unknown, render: () => string): void;
  /** A line for humans on stderr (never pollutes stdout). */
  note(message: string): void;
  bold(text: string): string;
  dim(text: string): string;
}

export function createOutput(options: {
  json: boolean;
  color: boolean;
  noColorEnv: boolean;
}): Output {
  const tty = Boolean(process.stdout.isTTY);
  const color = options.color && !options.noColorEnv && tty && !options.json;
  const wrap = (code: string, reset: string) => (text: string) =>
    color ? `\u001b[${code}m${text}\u001b[${reset}m` : text;
  return {
    json: options.json,
    tty,
    color,
    result(data, render) {
      process.stdout.write(
        options.json ? `${JSON.stringify(data, null, tty ? 2 : 0)}\n` : `${render()}\n`,
      );
    },
    note(message) {
      process.stderr.write(`${message}\n`);
    },
    bold: wrap("1", "22"),
    dim: wrap("2", "22"),
  };
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return "-";
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "object") return JSON.stringify(value);
  return String(value).replace(/\s+/g, " ");
}

/** A plain aligned table; the last column is not padded so long values do not leave trailing space. */
export function renderTable<T>(rows: T[], columns: Column<T>[], out: Pick<Output, "bold">): string {
  if (rows.length === 0) return "(none)";
  const cells = rows.map((row) => columns.map((c) => cell(c.value(row))));
  const widths = columns.map((c, i) =>
    Math.max(c.header.length, ...cells.map((r) => r[i]!.length)),
  );
  const line = (values: string[]) =>
    values.map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i]!))).join("  ");
  return [out.bold(line(columns.map((c) => c.header.toUpperCase()))), ...cells.map(line)].join(
    "\n",
  );
}

export function renderFields(fields: [string, unknown][], out: Pick<Output, "dim">): string {
  const width = Math.max(...fields.map(([k]) => k.length));
  return fields.map(([k, v]) => `${out.dim(k.padEnd(width))}  ${cell(v)}`).join("\n");
}

/** A price per unit in minor units as a decimal string ("0.5" cents): "0.005 USD". */
export function formatUnitMoney(unitAmount: string, currency = "usd"): string {
  const major = majorUnits(Number(unitAmount), currency);
  const digits = Math.max(2, (String(major).split(".")[1] ?? "").length);
  return `${major.toFixed(Math.min(digits, 12))} ${currency.toUpperCase()}`;
}

export function formatMoney(amount: number | null | undefined, currency = "usd"): string {
  if (amount === null || amount === undefined) return "-";
  const digits = minorPerMajor(currency) === 1 ? 0 : 2;
  return `${majorUnits(amount, currency).toFixed(digits)} ${currency.toUpperCase()}`;
}
