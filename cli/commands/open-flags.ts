// The arguments of `till open` as a zod schema (see lib/flags.ts).
import { z } from "zod";
import { OPEN_TARGETS, oneOf } from "../lib/choices.ts";
import { uuid } from "../lib/flags.ts";

/** The page of one checkout or customer: its id is required. */
const onePage = (what: "checkout" | "portal", noun: string) =>
  z.object({
    what: z.literal(what),
    id: z.string({ error: `the ${what} page needs the ${noun}'s id` }).pipe(uuid),
  });

export const openArgs = z.discriminatedUnion(
  "what",
  [
    onePage("checkout", "checkout"),
    onePage("portal", "customer"),
    z.object({
      what: z.enum(OPEN_TARGETS).exclude(["checkout", "portal"]),
      id: z.undefined({ error: "this page takes no id" }).optional(),
    }),
  ],
  { error: oneOf(OPEN_TARGETS) },
);
