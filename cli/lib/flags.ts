// Commander hands a command's options and arguments over untyped. Each action re-reads them with a
// zod schema (loaded lazily with the action, so `till --help` does not pay for zod): a bad value is
// a usage error (exit 2) that names the flag or argument, and the action works on typed values.
import type { Command } from "commander";
import { z } from "zod";
import { AbortError, EXIT } from "./errors.ts";

/** `unitAmount` → `--unit-amount`. */
export function flagName(key: string): string {
  return `--${kebab(key)}`;
}

/** `eventId` → `<event-id>`, as the command's usage line shows it. */
export function argumentName(key: string): string {
  return `<${kebab(key)}>`;
}

function kebab(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

function parseNamed<S extends z.ZodType>(
  schema: S,
  input: unknown,
  nameOf: (key: string) => string,
): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const key = issue.path[0];
  throw new AbortError(`${typeof key === "string" ? `${nameOf(key)}: ` : ""}${issue.message}`, {
    exitCode: EXIT.usage,
  });
}

export function parseFlags<S extends z.ZodType>(schema: S, flags: unknown): z.output<S> {
  return parseNamed(schema, flags, flagName);
}

/**
 * The command's positional arguments, keyed by their usage names in camelCase (`<event-id>` →
 * `eventId`), read from commander itself so the keys cannot drift from the usage line.
 */
export function parseArgs<S extends z.ZodType>(schema: S, cmd: Command): z.output<S> {
  const values = Object.fromEntries(
    cmd.registeredArguments.map((arg, i) => [
      arg.name().replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()),
      cmd.processedArgs[i],
    ]),
  );
  return parseNamed(schema, values, argumentName);
}

/** A count given as text (`--limit 50`, `--months 3`): a whole number of at least 1. */
export const positiveInteger = z.coerce
  .number({ error: "must be a number" })
  .int({ error: "must be a whole number" })
  .min(1, { error: "must be at least 1" });

/**
 * An amount of money in minor units (`--amount 500` for 5.00). Decimal digits only: coercing would
 * read "5.00", typed as dollars, as 5 cents.
 */
export const minorUnits = z
  .string()
  .regex(/^\d+$/, "is in minor units (cents) and must be a whole number, e.g. 500 for 5.00")
  .transform(Number)
  .pipe(z.number().min(1, { error: "must be at least 1" }));

/** The page flags every list command shares. */
export const listFlags = z.looseObject({
  limit: positiveInteger.max(100, { error: "must be at most 100" }),
  page: positiveInteger,
  org: z.string().optional(),
});

/** An id the server reads as a UUID (every resource id): a typo fails here, before any request. */
export const uuid = z.uuid({
  error: (issue) => `must be an id (a UUID), got "${String(issue.input)}"`,
});

/** The `<id>` of get, delete, update and the other verbs on one resource. */
export const idArgs = z.object({ id: uuid });

/** The `<event-id>` of a webhook event to send again. */
export const eventIdArgs = z.object({ eventId: uuid });

/** Free text that must not be empty (a name, a key, a file). */
export const nonEmptyText = z.string().min(1, { error: "must not be empty" });
