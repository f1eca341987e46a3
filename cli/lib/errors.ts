// Expected failures print one clear message and exit with their code (1 error, 2 usage, 4 not
// logged in or token rejected); anything else is a bug and prints its stack.
export const EXIT = { ok: 0, error: 1, usage: 2, auth: 4 } as const;

export class AbortError extends Error {
  override name = "AbortError";
  readonly hint: string | undefined;
  readonly exitCode: number;

  constructor(message: string, options: { hint?: string; exitCode?: number } = {}) {
    super(message);
    this.hint = options.hint;
    this.exitCode = options.exitCode ?? EXIT.error;
  }
}

/** An error answer from the till API, with Polar's error name and detail. */
export class ApiResponseError extends AbortError {
  override name = "ApiResponseError";
  readonly status: number;
  readonly error: string;
  readonly detail: unknown;

  constructor(status: number, error: string, detail: unknown) {
    super(`${error}: ${describeDetail(detail)}`, {
      exitCode: status === 401 ? EXIT.auth : EXIT.error,
      ...(status === 401 ? { hint: "Run `till login`, or set TILL_TOKEN to a valid token." } : {}),
    });
    this.status = status;
    this.error = error;
    this.detail = detail;
  }
}

function describeDetail(detail: unknown): string {
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail)) {
    return detail
      .map(
        (d: { loc?: unknown[]; msg?: string }) =>
          `${(d.loc ?? []).filter((p) => p !== "body" && p !== "query").join(".") || "request"}: ${d.msg ?? "invalid"}`,
      )
      .join("; ");
  }
  return JSON.stringify(detail);
}

const SYSTEM_MESSAGES: Record<string, string> = {
  ENOENT: "no such file or directory",
  EACCES: "permission denied",
  EISDIR: "is a directory, not a file",
  ENOTDIR: "not a directory",
  EEXIST: "already exists",
  ENOSPC: "no space left on the device",
  EROFS: "read-only file system",
  ECONNREFUSED: "connection refused",
};

const EXPECTED = new Set([
  "AbortError",
  "ApiResponseError",
  "ConfigError",
  "PortInUseError",
  "DataDirInUseError",
]);

export function reportFatal(err: unknown, json = false): number {
  if (err instanceof Error && EXPECTED.has(err.name)) {
    const code = err instanceof AbortError ? err.exitCode : EXIT.error;
    if (json && err instanceof ApiResponseError) {
      process.stderr.write(
        `${JSON.stringify({ error: err.error, detail: err.detail, status: err.status })}\n`,
      );
    } else {
      process.stderr.write(`Error: ${err.message}\n`);
      if (err instanceof AbortError && err.hint) process.stderr.write(`${err.hint}\n`);
    }
    return code;
  }
  // The network and the file system fail in ordinary ways: one line saying what and where.
  const sys = err as { code?: unknown; syscall?: unknown; path?: unknown; message?: string };
  if (err instanceof Error && typeof sys.code === "string" && typeof sys.syscall === "string") {
    const what = SYSTEM_MESSAGES[sys.code] ?? sys.message;
    process.stderr.write(
      `Error: ${typeof sys.path === "string" ? `${sys.path}: ` : ""}${what ?? sys.code}\n`,
    );
    return EXIT.error;
  }
  if (err instanceof TypeError && err.message === "fetch failed") {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    process.stderr.write(
      `Error: network request failed (${cause?.code ?? cause?.message ?? "unknown"}).\n`,
    );
    return EXIT.error;
  }
  process.stderr.write(
    `Unexpected error (this is a bug in till):\n${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  return EXIT.error;
}
