// The options of `till trigger` as a zod schema (see lib/flags.ts).
import { z } from "zod";
import { scalarOf } from "../lib/resource.ts";

/** `[fixture:]path=value`: where a change goes (resolved against the trigger's fixtures) and what. */
const change = z.string().transform((text, ctx) => {
  const eq = text.indexOf("=");
  if (eq <= 0) {
    ctx.addIssue({ code: "custom", message: `expects [fixture:]path=value, got "${text}".` });
    return z.NEVER;
  }
  return { text, target: text.slice(0, eq), value: scalarOf(text.slice(eq + 1)) };
});
export type FixtureChange = z.output<typeof change>;

export const triggerFlags = z.object({
  list: z.boolean().optional(),
  override: z.array(change).optional(),
  add: z.array(change).optional(),
  org: z.string().optional(),
});
