// The argument of `till profiles use|remove` as a zod schema (see lib/flags.ts).
import { z } from "zod";
import { nonEmptyText } from "../lib/flags.ts";

// Any name --profile accepts; whether it is saved is the service's question (it lists the saved).
export const profileArgs = z.object({ name: nonEmptyText });
