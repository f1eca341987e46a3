// Commander hands a command's options over untyped. Each action re-reads them with a zod schema
// (loaded lazily with the action, so `till --help` does not pay for zod): a bad value is a usage
// error (exit 2) that names the flag, and the action works on typed values.
import { z } from "zod";
import { AbortError, EXIT } from "./errors.ts";

/** `unitAmount` → `--unit-amount`. */
export function flagName(key: string): string {
  return `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

export function parseFlags<S extends z.ZodType>(schema: S, flags: unknown): z.output<S> {
  const result = schema.safeParse(flags);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const key = issue.path[0];
  throw new AbortError(`${typeof key === "string" ? `${flagName(key)}: ` : ""}${issue.message}`, {
    exitCode: EXIT.usage,
  });
}

/** A count given as text (`--limit 50`, `--months 3`): a whole number of at least 1. */
export const positiveInteger = z.coerce
  .number({ error: "must be a number" })
  .int({ error: "must be a whole number" })
  .min(1, { error: "must be at least 1" });

/** The page flags every list command shares. */
export const listFlags = z.looseObject({
  limit: positiveInteger.max(100, { error: "must be at most 100" }),
  page: positiveInteger,
  org: z.string().optional(),
});
