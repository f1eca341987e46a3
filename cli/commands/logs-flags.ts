// The options of `till logs tail` and `till init webhook-handler` as zod schemas (see
// lib/flags.ts).
import { z } from "zod";
import { oneOf } from "../lib/choices.ts";

/** A comma-separated flag as its trimmed, non-empty parts. */
const commaList = z
  .string()
  .optional()
  .transform((v) =>
    (v ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
  );

const isStatusCode = (s: string) => /^[1-5](\d\d|xx)$/.test(s);

export const logsTailFlags = z.object({
  status: commaList
    .transform((codes) => codes.map((s) => s.toLowerCase()))
    .refine((codes) => codes.every(isStatusCode), {
      error: (issue) =>
        `takes codes like 404, 4xx or 5xx; got "${(issue.input as string[]).find((s) => !isStatusCode(s))}"`,
    }),
  method: commaList.transform((methods) => methods.map((m) => m.toUpperCase())),
  path: z.string().min(1).optional(),
  org: z.string().optional(),
});
export type LogsTailFlags = z.output<typeof logsTailFlags>;

export const initFlags = z.object({
  lang: z.enum(["ts"], { error: oneOf(["ts"]) }),
  dir: z.string().min(1),
  force: z.boolean().optional(),
});
