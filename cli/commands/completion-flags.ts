// The argument of `till completion` as a zod schema (see lib/flags.ts).
import { z } from "zod";
import { oneOf, SHELLS } from "../lib/choices.ts";

export const completionArgs = z.object({ shell: z.enum(SHELLS, { error: oneOf(SHELLS) }) });
