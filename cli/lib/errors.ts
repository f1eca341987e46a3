// Expected failures (bad configuration, a port in use) print one clear line and exit 1; anything
// else is a bug and prints its stack.
export class AbortError extends Error {
  override name = "AbortError";
  readonly hint: string | undefined;
  readonly exitCode: number;

  constructor(message: string, options: { hint?: string; exitCode?: number } = {}) {
    super(message);
    this.hint = options.hint;
    this.exitCode = options.exitCode ?? 1;
  }
}

const EXPECTED = new Set(["AbortError", "ConfigError", "PortInUseError"]);

export function reportFatal(err: unknown): number {
  if (err instanceof Error && EXPECTED.has(err.name)) {
    process.stderr.write(`Error: ${err.message}\n`);
    if (err instanceof AbortError && err.hint) process.stderr.write(`${err.hint}\n`);
    return err instanceof AbortError ? err.exitCode : 1;
  }
  process.stderr.write(`Unexpected error (this is a bug in till):\n${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return 1;
}
