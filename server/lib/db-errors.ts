// Recognizes a unique-index violation from either driver (postgres.js or PGlite, possibly wrapped by
// drizzle), so a race that slips past a service's pre-check still answers 422, never 500.
export function uniqueViolation(err: unknown): string | null {
  for (let e: unknown = err, depth = 0; e && typeof e === "object" && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const o = e as { code?: unknown; constraint_name?: unknown; constraint?: unknown };
    if (o.code === "23505") return String(o.constraint_name ?? o.constraint ?? "");
  }
  return null;
}
