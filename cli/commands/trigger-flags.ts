// The options and argument of `till trigger`, and the argument of `till fixtures run`, as zod
// schemas (see lib/flags.ts).
import { z } from "zod";
import { nonEmptyText } from "../lib/flags.ts";
import { scalarOf } from "../lib/resource.ts";
import { TRIGGERS } from "../services/trigger-recipes.ts";

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

export const triggerArgs = z.object({
  // Optional: without an event, `till trigger` lists them as --list does.
  event: z
    .string()
    .refine((event) => Object.hasOwn(TRIGGERS, event), {
      error: (issue) =>
        `no trigger for "${String(issue.input)}"; available (till trigger --list): ${Object.keys(TRIGGERS).join(", ")}`,
    })
    .optional(),
});

export const fixturesRunArgs = z.object({ file: nonEmptyText });
