// Recognises PostgreSQL errors by SQLSTATE through drizzle's wrapping, whichever driver raised them.
export function pgErrorCode(err: unknown): string | null {
  for (let e: unknown = err, depth = 0; e && typeof e === "object" && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return null;
}

/** A unique index refused the row (two requests raced past the application's own check). */
export function isUniqueViolation(err: unknown): boolean {
  return pgErrorCode(err) === "23505";
}
