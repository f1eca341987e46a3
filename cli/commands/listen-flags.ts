// The options of `till listen` as a zod schema (see lib/flags.ts).
import { z } from "zod";
import { positiveInteger } from "../lib/flags.ts";

export const listenFlags = z.object({
  forwardTo: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).optional(),
  // Comma-separated event types; * is a wildcard.
  events: z
    .string()
    .optional()
    .transform((v) =>
      v
        ? v
            .split(",")
            .map((s) => s.trim())
            .filter(Boolean)
        : null,
    ),
  printJson: z.boolean().optional(),
  printSecret: z.boolean().optional(),
  replay: positiveInteger.max(1000, { error: "must be at most 1000" }).optional(),
  org: z.string().optional(),
  maxEvents: positiveInteger.optional(),
});
