// The options of `till customers create` and `till customers update` as zod schemas (see
// lib/flags.ts).
import { z } from "zod";

const email = z.email({ error: "must be an email address" });

export const customerCreateFlags = z.object({
  email,
  name: z.string().optional(),
  externalId: z.string().min(1).optional(),
  metadata: z.array(z.string()).optional(),
  org: z.string().optional(),
});

export const customerUpdateFlags = z.object({
  email: email.optional(),
  name: z.string().optional(),
  externalId: z.string().min(1).optional(),
});
