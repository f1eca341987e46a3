// Commander hands a command's options over untyped. Each action re-reads them with a zod schema
// (loaded lazily with the action, so `till --help` does not pay for zod): a bad value is a usage
// error (exit 2) that names the flag, and the action works on typed values.
import type { z } from "zod";
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
