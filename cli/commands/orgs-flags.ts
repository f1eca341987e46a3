// The options of `till orgs create` and `till tokens create`, and the argument of `till orgs
// switch`, as zod schemas (see lib/flags.ts).
import { z } from "zod";
import { SCOPES } from "../../server/lib/scopes.ts";
import { nonEmptyText } from "../lib/flags.ts";

// ISO 8601 durations as the API reads them (P30D, PT12H, P1W) or plain seconds.
const DURATION = /^(?:\d+|P(?:\d+W)?(?:\d+D)?(?:T(?:\d+H)?(?:\d+M)?(?:\d+(?:\.\d+)?S)?)?)$/;

export const orgCreateFlags = z.object({
  name: z.string().min(1),
  slug: z
    .string()
    .regex(/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/, "must be lowercase letters, digits and dashes")
    .min(3, { error: "must be at least 3 characters" })
    .max(64, { error: "must be at most 64 characters" })
    .optional(),
});

/** One of Polar's scopes; a misspelt one names its resource's scopes, or the resources there are. */
const scope = z.string().superRefine((text, ctx) => {
  if ((SCOPES as readonly string[]).includes(text)) return;
  const resource = text.split(":")[0]!;
  const same = SCOPES.filter((s) => s.startsWith(`${resource}:`));
  const resources = [...new Set(SCOPES.filter((s) => s.includes(":")).map((s) => s.split(":")[0]))];
  ctx.addIssue({
    code: "custom",
    message: same.length
      ? `unknown scope "${text}"; ${resource} has ${same.join(", ")}`
      : `unknown scope "${text}"; scopes are <resource>:read or <resource>:write, with resource one of ${resources.join(", ")}`,
  });
});

export const tokenCreateFlags = z.object({
  scope: z.array(scope).min(1),
  comment: z.string().min(1).max(200),
  expiresIn: z
    .string()
    .refine(
      (v) => DURATION.test(v) && v !== "P" && !v.endsWith("T"),
      "must be an ISO 8601 duration such as P30D or PT12H, or a number of seconds",
    )
    .optional(),
  org: z.string().optional(),
});

// An id or a slug: slugs made through other routes need not follow orgs create's rule, so any
// non-empty text goes to the lookup, which says when nothing matches.
export const orgSwitchArgs = z.object({ idOrSlug: nonEmptyText });
