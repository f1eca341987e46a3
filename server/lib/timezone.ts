// Time zones named in requests (metrics, meter quantities, exports). PostgreSQL does the bucketing
// with `at time zone`, so a zone must mean the same to it as to the runtime that checks it.

/**
 * Whether `tz` is a time zone name (UTC, Europe/Paris, Etc/GMT+5) both the runtime and PostgreSQL
 * know. Intl also takes UTC offsets (`+05:00`), which PostgreSQL reads as POSIX zones with the sign
 * inverted (`+05:00` is five hours west of UTC there): those are refused, as Polar refuses them.
 */
export function isTimeZoneName(tz: string): boolean {
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat("en", { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    return false;
  }
  return !/^[+-]/.test(resolved);
}
