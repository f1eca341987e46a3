// Recognises PostgreSQL errors by SQLSTATE through drizzle's wrapping, whichever driver raised them,
// so a race that slips past a service's pre-check still answers 4xx, never 500.

/** The error and its causes, outermost first (drizzle wraps the driver's error). */
function* causes(err: unknown): Generator<Record<string, unknown>> {
  for (
    let e: unknown = err, depth = 0;
    e && typeof e === "object" && depth < 5;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    yield e as Record<string, unknown>;
  }
}

export function pgErrorCode(err: unknown): string | null {
  for (const e of causes(err))
    if (typeof e.code === "string" && /^[0-9A-Z]{5}$/.test(e.code)) return e.code;
  return null;
}

/** A unique index refused the row (two requests raced past the application's own check). */
export function isUniqueViolation(err: unknown): boolean {
  return pgErrorCode(err) === "23505";
}

/** The violated unique constraint's name, or null when the error is not a unique violation. */
export function uniqueViolation(err: unknown): string | null {
  for (const e of causes(err))
    if (e.code === "23505") return String(e.constraint_name ?? e.constraint ?? "");
  return null;
}

// postgres.js's own codes for a connection it could not open or lost, and Node's socket errors.
const CONNECTION_CODES = new Set([
  "CONNECT_TIMEOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
]);
// SQLSTATEs that say "not now" rather than "wrong": connection exceptions (class 08), the server
// shutting down or starting (57P01-57P03), too many connections, a statement or lock timeout.
const TRANSIENT_STATES = /^(08...|57P0[1-3]|53300|57014|55P03)$/;

/** The database is unreachable, restarting or too slow: the request may succeed if retried. */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (const e of causes(err)) {
    if (typeof e.code !== "string") continue;
    if (CONNECTION_CODES.has(e.code) || TRANSIENT_STATES.test(e.code)) return true;
  }
  return false;
}

/** The server could not be reached or refused to serve (down, restarting, full), unlike a slow query. */
export function isDatabaseUnreachable(err: unknown): boolean {
  for (const e of causes(err)) {
    if (typeof e.code !== "string") continue;
    if (CONNECTION_CODES.has(e.code) || /^(08...|57P0[1-3]|53300)$/.test(e.code)) return true;
  }
  return false;
}
