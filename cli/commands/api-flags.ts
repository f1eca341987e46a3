// The arguments of `till api` as a zod schema (see lib/flags.ts).
import { z } from "zod";
import { oneOf } from "../lib/choices.ts";
import { nonEmptyText } from "../lib/flags.ts";

const METHODS = ["get", "post", "patch", "delete"] as const;

export const apiArgs = z.object({
  method: z
    .string()
    .transform((m) => m.toLowerCase())
    .pipe(z.enum(METHODS, { error: oneOf(METHODS) })),
  // The server is the profile's: a full URL here would be sent as a path on it.
  path: nonEmptyText
    .refine((p) => !/^[a-z][a-z0-9+.-]*:\/\//i.test(p), {
      error: "must be a path on the server, e.g. /v1/products/, not a URL",
    })
    .transform((p) => (p.startsWith("/") ? p : `/${p}`)),
});
