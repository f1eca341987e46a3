// Wire schemas of the sandbox clock (till's addition; shaped like Stripe's test clocks, per
// organization): show, advance (to a time or by seconds, forward only), reset.
import { z } from "zod";
import { timestampInput } from "../../lib/wire.ts";

export const clockQuery = z.object({ organization_id: z.uuid().optional() });

/**
 * The most one advance moves the clock. An advance runs everything due on the way, so an unbounded
 * one (a year 9999 target) would make one request renew every subscription for millennia.
 */
export const MAX_ADVANCE_SECONDS = 20 * 366 * 86_400;

export const clockAdvance = z
  .object({
    organization_id: z.uuid().nullish(),
    to: timestampInput.optional(),
    seconds: z
      .number()
      .int()
      .min(0)
      .max(MAX_ADVANCE_SECONDS, {
        message: `The sandbox clock moves at most ${MAX_ADVANCE_SECONDS / 86_400} days (${MAX_ADVANCE_SECONDS} seconds) in one call.`,
      })
      .optional(),
  })
  .strict()
  .refine((v) => (v.to === undefined) !== (v.seconds === undefined), {
    message: "Give exactly one of `to` (an RFC 3339 time) or `seconds`.",
    path: ["to"],
  });
export type ClockAdvance = z.output<typeof clockAdvance>;

export const clockReset = z.object({ organization_id: z.uuid().nullish() }).strict();

export function clockOut(organizationId: string, now: Date, offsetMs: number) {
  return {
    organization_id: organizationId,
    now: now.toISOString(),
    // The clock never runs behind real time (an advance by 0 s can store a millisecond's lag).
    offset_seconds: Math.floor(Math.max(0, offsetMs) / 1000),
  };
}
