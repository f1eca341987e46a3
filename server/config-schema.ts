// The environment's schema: every variable till reads, with its type, range and default. Parsing
// happens in config.ts (the only reader of process.env); this file only describes.
import { z } from "zod";

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

const emptyAsUndefined = (v: unknown) => (v === "" ? undefined : v);
const booleanString = z
  .enum(["true", "false", "1", "0"])
  .transform((v) => v === "true" || v === "1");

/** A whole number in [min, max] (unbounded above when max is left out); empty means the default. */
const int = (min: number, fallback: number, max = Number.MAX_SAFE_INTEGER) =>
  z.preprocess(emptyAsUndefined, z.coerce.number().int().min(min).max(max).default(fallback));

/** true/false/1/0; empty means the default. */
const flag = (fallback: boolean) => z.preprocess(emptyAsUndefined, booleanString.default(fallback));
/** true/false/1/0, or unset when empty (the setting then follows another one). */
const optionalFlag = () => z.preprocess(emptyAsUndefined, booleanString.optional());

/** A URL as an error may show it: without what precedes an `@` (user and password). */
const redacted = (url: string) => url.replace(/^([a-z][a-z0-9+.-]*:\/\/)?[^@/]*@/i, "$1…@");

/**
 * One or more replica URLs, comma-separated: each must be a postgres URL that parses, named by
 * its position (and without credentials) when it is not, so the wrong one of several is found.
 */
const readUrls = z.string().transform((value, ctx) => {
  const urls = value
    .split(",")
    .map((u) => u.trim())
    .filter((u) => u !== "");
  const where = (i: number) => (urls.length > 1 ? ` (URL ${i + 1} of ${urls.length})` : "");
  for (const [i, url] of urls.entries()) {
    let parsed: URL | null = null;
    try {
      parsed = new URL(url);
    } catch {}
    if (!/^postgres(ql)?:\/\//.test(url) || !parsed?.hostname) {
      ctx.addIssue({
        code: "custom",
        message: `must be a postgres:// or postgresql:// URL${where(i)}: ${JSON.stringify(redacted(url))}`,
      });
    } else if (urls.indexOf(url) !== i) {
      ctx.addIssue({ code: "custom", message: `lists ${redacted(url)} twice${where(i)}` });
    }
  }
  if (urls.length === 0) ctx.addIssue({ code: "custom", message: "names no URL" });
  return urls;
});

export const envSchema = z.object({
  PORT: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(65535).optional()),
  HOST: z.preprocess(emptyAsUndefined, z.string().min(1).optional()),
  BASE_URL: z.preprocess(emptyAsUndefined, z.url({ protocol: /^https?$/ }).optional()),
  DATABASE_URL: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
      .optional(),
  ),
  DATABASE_DIRECT_URL: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
      .optional(),
  ),
  DATABASE_READ_URL: z.preprocess(emptyAsUndefined, readUrls.optional()),
  DATABASE_READ_MAX_LAG_MS: int(0, 10_000, 3_600_000),
  DATABASE_POOL_SIZE: int(1, 10, 500),
  DATABASE_CONNECT_TIMEOUT_MS: int(100, 5_000, 120_000),
  DATABASE_STATEMENT_TIMEOUT_MS: int(0, 30_000, 3_600_000),
  DATABASE_LOCK_TIMEOUT_MS: int(0, 5_000, 3_600_000),
  METRICS_TOKEN: z.preprocess(
    emptyAsUndefined,
    z.string().min(16, "must be at least 16 characters (try: openssl rand -hex 32)").optional(),
  ),
  TILL_DATA_DIR: z.preprocess(emptyAsUndefined, z.string().optional()),
  AUTH_SECRET: z.preprocess(
    emptyAsUndefined,
    z.string().min(32, "must be at least 32 characters (try: openssl rand -base64 32)").optional(),
  ),
  LOG_LEVEL: z.preprocess(emptyAsUndefined, z.enum(LOG_LEVELS).optional()),
  LOG_FORMAT: z.preprocess(emptyAsUndefined, z.enum(["json", "pretty"]).optional()),
  TILL_MODE: z.preprocess(emptyAsUndefined, z.enum(["sandbox", "production"]).optional()),
  SHUTDOWN_GRACE_MS: int(0, 10_000, 600_000),
  TRUSTED_ORIGINS: z.preprocess(emptyAsUndefined, z.string().optional()),
  TAX_RATES: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .regex(
        /^[A-Z]{2}:\d{1,5}(,[A-Z]{2}:\d{1,5})*$/,
        'must look like "DE:1900,FR:2000" (country:basis points)',
      )
      .optional(),
  ),
  CHECKOUT_TTL_SECONDS: int(60, 86400, 30 * 86400),
  SANDBOX_CLOCK_ADVANCE_TIMEOUT_SECONDS: int(1, 600, 600),
  DUNNING_RETRY_DAYS: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .regex(/^\d{1,3}(,\d{1,3}){0,9}$/, 'must look like "3,5,7" (days between payment attempts)')
      .default("3,5,7"),
  ),
  SMTP_URL: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .regex(/^smtps?:\/\//, "must be an smtp:// or smtps:// URL")
      .optional(),
  ),
  EMAIL_FROM: z.preprocess(
    emptyAsUndefined,
    z.string().min(3).default("till <no-reply@till.localhost>"),
  ),
  AUTH_REQUIRE_EMAIL_VERIFICATION: optionalFlag(),
  AUTH_DISABLE_SIGNUP: flag(false),
  AUTH_ALLOW_DELETE_USER: flag(true),
  AUTH_MIN_PASSWORD_LENGTH: int(1, 8, 256),
  AUTH_MAX_PASSWORD_LENGTH: int(8, 128, 1024),
  AUTH_RATE_LIMIT: optionalFlag(),
  AUTH_TRUST_PROXY: flag(false),
  AUTH_DELETE_USER_EMAIL_CONFIRMATION: flag(true),
  AUTH_ORGANIZATION_MEMBERSHIP_LIMIT: int(1, 100),
  AUTH_ORGANIZATION_INVITATION_LIMIT: int(1, 100),
  AUTH_ORGANIZATION_MAX_TEAMS: int(1, 50),
  AUTH_TEAM_MAX_MEMBERS: int(1, 100),
  AUTH_ALLOW_UNLINKING_ALL: flag(false),
  AUTH_ALLOW_USER_TO_CREATE_ORGANIZATION: z.preprocess(
    emptyAsUndefined,
    booleanString.default(true),
  ),
  AUTH_USER_MAX_ORGANIZATIONS: int(1, 100),
  AUTH_ORGANIZATION_MAX_ROLES: int(1, 50),
  TILL_ADMIN_EMAILS: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .transform((v) =>
        v
          .split(",")
          .map((s) => s.trim().toLowerCase())
          .filter(Boolean),
      )
      .pipe(z.array(z.email({ message: "must be comma-separated email addresses" })))
      .default([]),
  ),
  AUTH_DEVICE_CODE_EXPIRES_IN: z.preprocess(emptyAsUndefined, z.string().default("30m")),
  AUTH_DEVICE_POLL_INTERVAL: z.preprocess(emptyAsUndefined, z.string().default("5s")),
  CAPTCHA_PROVIDER: z.preprocess(
    emptyAsUndefined,
    z.enum(["cloudflare-turnstile", "google-recaptcha", "hcaptcha", "captchafox"]).optional(),
  ),
  CAPTCHA_SECRET_KEY: z.preprocess(emptyAsUndefined, z.string().optional()),
  CAPTCHA_ENDPOINTS: z.preprocess(emptyAsUndefined, z.string().optional()),
  CAPTCHA_SITE_VERIFY_URL: z.preprocess(emptyAsUndefined, z.url().optional()),
  FILES_MAX_SIZE: int(1, 512 * 1024 * 1024, Number.MAX_SAFE_INTEGER),
  FILES_UPLOAD_URL_TTL: int(10, 3600, 7 * 86_400),
  WEBHOOK_TIMEOUT_MS: int(100, 10_000, 60_000),
  WEBHOOK_MAX_ATTEMPTS: int(1, 10, 50),
  WEBHOOK_RETRY_BASE_MS: int(1, 4_000, 3_600_000),
  WEBHOOK_FIFO_WAIT_MS: int(0, 60_000, 3_600_000),
  WEBHOOK_CONCURRENCY: int(1, 16, 256),
  WEBHOOK_RETENTION_DAYS: int(1, 90, 3650),
  EVENT_DEDUP_RETENTION_DAYS: int(0, 0, 36_500),
  WEBHOOK_DISABLE_AFTER_FAILURES: int(1, 10, 1000),
  WEBHOOK_JOB_EXPIRE_SECONDS: int(2, 900, 86_400),
  WEBHOOK_PIPELINING: int(1, 1, 64),
  WEBHOOK_DNS_SERVERS: z.preprocess(emptyAsUndefined, z.string().optional()),
  DISCORD_API_URL: z.preprocess(
    emptyAsUndefined,
    z.url({ protocol: /^https?$/ }).default("https://discord.com/api/v10"),
  ),
  DISCORD_BOT_TOKEN: z.preprocess(emptyAsUndefined, z.string().optional()),
  GITHUB_API_URL: z.preprocess(
    emptyAsUndefined,
    z.url({ protocol: /^https?$/ }).default("https://api.github.com"),
  ),
  GITHUB_TOKEN: z.preprocess(emptyAsUndefined, z.string().optional()),
  GRANT_RETRY_LIMIT: int(0, 10, 100),
  GRANT_RETRY_DELAY_SECONDS: int(0, 30, 86_400),
  LICENSE_KEY_RATE_LIMIT: int(1, 60, 1_000_000),
  TILL_DEMO: optionalFlag(),
  DOWNLOAD_URL_TTL: int(10, 3600, 7 * 86_400),
  TILL_PAYMENTS: z.preprocess(emptyAsUndefined, z.enum(["sandbox", "stripe", "none"]).optional()),
  STRIPE_SECRET_KEY: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .regex(
        /^(sk|rk)_(test|live)_\w+$/,
        "must be a Stripe secret key (sk_live_... or sk_test_...)",
      )
      .optional(),
  ),
  STRIPE_PUBLISHABLE_KEY: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .regex(
        /^pk_(test|live)_\w+$/,
        "must be a Stripe publishable key (pk_live_... or pk_test_...)",
      )
      .optional(),
  ),
  STRIPE_WEBHOOK_SECRET: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .regex(/^whsec_\w+$/, "must be a Stripe webhook signing secret (whsec_...)")
      .optional(),
  ),
  STRIPE_API_BASE: z.preprocess(emptyAsUndefined, z.url({ protocol: /^https?$/ }).optional()),
  STRIPE_JS_URL: z.preprocess(
    emptyAsUndefined,
    z.url({ protocol: /^https?$/ }).default("https://js.stripe.com/endive/stripe.js"),
  ),
  PAYMENTS_RECONCILE_AFTER_SECONDS: int(1, 120, 86_400),
  INIT_CWD: z.string().optional(),
});
