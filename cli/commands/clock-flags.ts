// The argument of `till clock advance` as a zod schema (see lib/flags.ts).
import { z } from "zod";

const SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** Months (added to the clock's own now, clamped to month ends), seconds, or a target time. */
export type Advance = { months: number } | { seconds: number } | { to: string };

/** "1mo", "2y", "14d", "36h", "90m", "30s", or an RFC 3339 time. */
const when = z.string().transform((text, ctx): Advance => {
  const m = /^(\d+)(mo|y|w|d|h|m|s)$/.exec(text.trim());
  if (m) {
    const n = Number(m[1]);
    if (m[2] === "mo") return { months: n };
    if (m[2] === "y") return { months: 12 * n };
    return { seconds: n * SECONDS[m[2]!]! };
  }
  if (/^\d{4}-\d{2}-\d{2}T/.test(text) && !Number.isNaN(Date.parse(text))) return { to: text };
  ctx.addIssue({
    code: "custom",
    message: `must be a duration (1mo, 1y, 2w, 14d, 36h, 90m, 30s) or an RFC 3339 time; got "${text}"`,
  });
  return z.NEVER;
});

export const clockAdvanceArgs = z.object({ when });
