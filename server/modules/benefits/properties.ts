// Per-type benefit properties: the request shapes (Polar's *CreateProperties); the checks that need
// the database or a secret are in resolve-properties.ts.
import { z } from "zod";

const INT32_MAX = 2147483647;
const positiveInt32 = z.number().int().min(1).max(INT32_MAX);

export const customProperties = z.object({ note: z.string().max(5000).nullish() });

export const discordProperties = z.object({
  guild_token: z.string().min(1),
  role_id: z.string().regex(/^\d{15,25}$/, "must be a Discord role id (a snowflake)"),
  kick_member: z.boolean(),
});

export const githubRepositoryProperties = z.object({
  repository_owner: z
    .string()
    .regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/, "must be a GitHub user or organization name"),
  repository_name: z.string().regex(/^[A-Za-z0-9_.-]{1,100}$/, "must be a GitHub repository name"),
  permission: z.enum(["pull", "triage", "push", "maintain", "admin"]),
});

export const downloadablesProperties = z
  .object({
    archived: z.record(z.uuid(), z.boolean()).default({}),
    files: z.array(z.uuid()).min(1).max(100),
  })
  .refine((p) => new Set(p.files).size === p.files.length, {
    message: "files must not repeat",
    path: ["files"],
  })
  .refine((p) => Object.keys(p.archived).every((id) => p.files.includes(id)), {
    message: "archived may only name files of the benefit",
    path: ["archived"],
  });

// A key's expiry is its grant time plus this; past the year 9999 it cannot be stored, and every
// grant of the benefit failed. A thousand years is far enough for any licence.
const MAX_EXPIRY_YEARS = 1000;
const DAYS_PER = { year: 366, month: 31, day: 1 } as const;
const licenseKeyExpiry = z
  .object({ ttl: positiveInt32, timeframe: z.enum(["year", "month", "day"]) })
  .refine((e) => e.ttl * DAYS_PER[e.timeframe] <= MAX_EXPIRY_YEARS * 366, {
    message: `Keys may expire at most ${MAX_EXPIRY_YEARS} years after they are granted.`,
    path: ["ttl"],
  });

export const licenseKeysProperties = z.object({
  prefix: z
    .string()
    .min(1)
    .max(32)
    .regex(/^[A-Za-z0-9_-]+$/, "must contain only letters, digits, dashes and underscores")
    .nullish(),
  expires: licenseKeyExpiry.nullish(),
  activations: z.object({ limit: positiveInt32, enable_customer_admin: z.boolean() }).nullish(),
  limit_usage: positiveInt32.nullish(),
});

export const meterCreditProperties = z.object({
  units: positiveInt32,
  rollover: z.boolean(),
  meter_id: z.uuid(),
});

export type BenefitPropertiesInput =
  | { type: "custom"; properties: z.output<typeof customProperties> }
  | { type: "discord"; properties: z.output<typeof discordProperties> }
  | { type: "github_repository"; properties: z.output<typeof githubRepositoryProperties> }
  | { type: "downloadables"; properties: z.output<typeof downloadablesProperties> }
  | { type: "license_keys"; properties: z.output<typeof licenseKeysProperties> }
  | { type: "meter_credit"; properties: z.output<typeof meterCreditProperties> };
