// Configuration: the only reader of process.env. Parsed once with zod and frozen, so a wrong value
// fails at start with the variable's name instead of surfacing later as a confusing runtime error.
import path from "node:path";
import { z } from "zod";
import {
  ConfigError,
  devAuthSecret,
  socialProviders,
  type SocialProviderConfig,
} from "./config-sources.ts";

export { ConfigError, type SocialProviderConfig };

export type Command = "dev" | "serve" | "worker" | "migrate" | "test" | "cli";
export type Env = Record<string, string | undefined>;

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

const emptyAsUndefined = (v: unknown) => (v === "" ? undefined : v);
const booleanString = z
  .enum(["true", "false", "1", "0"])
  .transform((v) => v === "true" || v === "1");

const envSchema = z.object({
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
  DATABASE_POOL_SIZE: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(1).max(500).default(10),
  ),
  DATABASE_CONNECT_TIMEOUT_MS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(100).max(120_000).default(5_000),
  ),
  DATABASE_STATEMENT_TIMEOUT_MS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(0).max(3_600_000).default(30_000),
  ),
  DATABASE_LOCK_TIMEOUT_MS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(0).max(3_600_000).default(5_000),
  ),
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
  SHUTDOWN_GRACE_MS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(0).max(600_000).default(10_000),
  ),
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
  CHECKOUT_TTL_SECONDS: z.preprocess(
    emptyAsUndefined,
    z.coerce
      .number()
      .int()
      .min(60)
      .max(30 * 86400)
      .default(86400),
  ),
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
  AUTH_REQUIRE_EMAIL_VERIFICATION: z.preprocess(emptyAsUndefined, booleanString.optional()),
  AUTH_DISABLE_SIGNUP: z.preprocess(emptyAsUndefined, booleanString.default(false)),
  AUTH_ALLOW_DELETE_USER: z.preprocess(emptyAsUndefined, booleanString.default(true)),
  AUTH_MIN_PASSWORD_LENGTH: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(1).max(256).default(8),
  ),
  AUTH_MAX_PASSWORD_LENGTH: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(8).max(1024).default(128),
  ),
  AUTH_RATE_LIMIT: z.preprocess(emptyAsUndefined, booleanString.optional()),
  AUTH_TRUST_PROXY: z.preprocess(emptyAsUndefined, booleanString.default(false)),
  AUTH_DELETE_USER_EMAIL_CONFIRMATION: z.preprocess(emptyAsUndefined, booleanString.default(true)),
  AUTH_ORGANIZATION_MEMBERSHIP_LIMIT: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(1).default(100),
  ),
  AUTH_ORGANIZATION_INVITATION_LIMIT: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(1).default(100),
  ),
  AUTH_ORGANIZATION_MAX_TEAMS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(1).default(50),
  ),
  AUTH_TEAM_MAX_MEMBERS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(1).default(100),
  ),
  AUTH_ALLOW_UNLINKING_ALL: z.preprocess(emptyAsUndefined, booleanString.default(false)),
  AUTH_ALLOW_USER_TO_CREATE_ORGANIZATION: z.preprocess(
    emptyAsUndefined,
    booleanString.default(true),
  ),
  AUTH_USER_MAX_ORGANIZATIONS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(1).default(100),
  ),
  AUTH_ORGANIZATION_MAX_ROLES: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(1).default(50),
  ),
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
  FILES_MAX_SIZE: z.preprocess(
    emptyAsUndefined,
    z.coerce
      .number()
      .int()
      .min(1)
      .max(Number.MAX_SAFE_INTEGER)
      .default(512 * 1024 * 1024),
  ),
  FILES_UPLOAD_URL_TTL: z.preprocess(
    emptyAsUndefined,
    z.coerce
      .number()
      .int()
      .min(10)
      .max(7 * 86_400)
      .default(3600),
  ),
  WEBHOOK_TIMEOUT_MS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(100).max(60_000).default(10_000),
  ),
  WEBHOOK_MAX_ATTEMPTS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(1).max(50).default(10),
  ),
  WEBHOOK_RETRY_BASE_MS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(1).max(3_600_000).default(4_000),
  ),
  WEBHOOK_FIFO_WAIT_MS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(0).max(3_600_000).default(60_000),
  ),
  WEBHOOK_CONCURRENCY: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(1).max(256).default(16),
  ),
  WEBHOOK_RETENTION_DAYS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(1).max(3650).default(90),
  ),
  WEBHOOK_DISABLE_AFTER_FAILURES: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(1).max(1000).default(10),
  ),
  WEBHOOK_JOB_EXPIRE_SECONDS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(2).max(86_400).default(900),
  ),
  WEBHOOK_PIPELINING: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(1).max(64).default(1),
  ),
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
  GRANT_RETRY_LIMIT: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(0).max(100).default(10),
  ),
  GRANT_RETRY_DELAY_SECONDS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(0).max(86_400).default(30),
  ),
  LICENSE_KEY_RATE_LIMIT: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(1).max(1_000_000).default(60),
  ),
  TILL_DEMO: z.preprocess(emptyAsUndefined, booleanString.optional()),
  DOWNLOAD_URL_TTL: z.preprocess(
    emptyAsUndefined,
    z.coerce
      .number()
      .int()
      .min(10)
      .max(7 * 86_400)
      .default(3600),
  ),
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
  PAYMENTS_RECONCILE_AFTER_SECONDS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(1).max(86_400).default(120),
  ),
  INIT_CWD: z.string().optional(),
});

export type DatabaseTarget =
  | {
      kind: "postgres";
      url: string;
      poolSize: number;
      /** Giving up on opening a connection, so an unreachable database fails fast (503). */
      connectTimeoutMs?: number;
      /** PostgreSQL's statement_timeout and lock_timeout for every pooled connection (0: none). */
      statementTimeoutMs?: number;
      lockTimeoutMs?: number;
    }
  | { kind: "pglite"; dataDir: string | null };

export interface Config {
  command: Command;
  mode: "sandbox" | "production";
  port: number;
  host: string;
  baseUrl: string;
  dataDir: string;
  database: DatabaseTarget;
  authSecret: string;
  trustedOrigins: readonly string[];
  log: { level: (typeof LOG_LEVELS)[number]; format: "json" | "pretty" };
  shutdownGraceMs: number;
  /** Bearer token for GET /metrics; null: no /metrics at all. */
  metricsToken: string | null;
  webhooks: {
    /** Per request, connection to last byte. */
    timeoutMs: number;
    maxAttempts: number;
    /** Delay before the second attempt; each later one doubles it (with jitter). */
    retryBaseMs: number;
    /** How long an event waits for an older one of its endpoint to get its first attempt. */
    fifoWaitMs: number;
    /** Requests in flight at once per worker process. */
    concurrency: number;
    retentionDays: number;
    /** An endpoint whose this many most recent completed events all failed is disabled. */
    disableAfterFailures: number;
    /** A delivery job not finished this long after it was taken (its worker died) is handed out again. */
    jobExpireSeconds: number;
    /** Requests written ahead on one endpoint's connection (HTTP/1.1 pipelining keeps their order). */
    pipelining: number;
    /** DNS servers (host:port) used to resolve endpoint hosts; the system resolver when empty. */
    dnsServers: readonly string[];
  };
  email: { smtpUrl: string | null; from: string };
  /** Tax rates by country in basis points; empty charges no tax. */
  taxRates: Readonly<Record<string, number>>;
  checkoutTtlSeconds: number;
  /** Days after each failed renewal payment before the next attempt; after the last, it ends. */
  dunningRetryDays: readonly number[];
  /** Uploaded files: largest accepted size in bytes; how long a signed upload URL stays valid, in seconds. */
  files: { maxSize: number; uploadUrlTtlSeconds: number };
  /** Benefit grants: third-party API endpoints and credentials, job retries, download URL lifetime. */
  grants: {
    discord: { apiUrl: string; botToken: string | null };
    github: { apiUrl: string; token: string | null };
    retryLimit: number;
    retryDelaySeconds: number;
    downloadUrlTtlSeconds: number;
  };
  payments: PaymentsConfig;
  /** Public license key requests (validate/activate/deactivate) allowed per client IP per minute. */
  licenseKeyRateLimit: number;
  /** Serve the demo store at /demo and seed its seller on start (sandbox only; on in `till dev`). */
  demo: boolean;
  auth: {
    requireEmailVerification: boolean;
    disableSignUp: boolean;
    allowDeleteUser: boolean;
    /** Deleting an account waits for the emailed link; off: the password or a fresh session is enough. */
    deleteUserEmailConfirmation: boolean;
    minPasswordLength: number;
    maxPasswordLength: number;
    rateLimit: boolean;
    trustProxy: boolean;
    allowUnlinkingAll: boolean;
    /** false: only platform admins (user role admin) create organizations. */
    allowUserToCreateOrganization: boolean;
    /** organizationsPerUser: a user belonging to this many cannot create another; roles: custom roles per organization. */
    organizationLimits: {
      members: number;
      invitations: number;
      teams: number;
      membersPerTeam: number;
      organizationsPerUser: number;
      roles: number;
    };
    /** Lower-cased emails whose users get the admin role (see auth/admin-bootstrap.ts). */
    adminEmails: readonly string[];
    /** better-auth time strings ("30m", "5s"); the device plugin validates them at start. */
    device: { expiresIn: string; interval: string };
    socialProviders: readonly SocialProviderConfig[];
    captcha: {
      provider: string;
      secretKey: string;
      endpoints: readonly string[];
      siteVerifyUrl: string | null;
    } | null;
  };
}

export interface StripeConfig {
  secretKey: string;
  publishableKey: string;
  webhookSecret: string;
  /** Where the Stripe API is (tests: a local server); null for api.stripe.com. */
  apiBase: string | null;
  /** Where the checkout page loads Stripe.js from. */
  jsUrl: string;
}

export interface PaymentsConfig {
  /** none: only free products can be bought. Production never uses sandbox. */
  processor: "sandbox" | "stripe" | "none";
  stripe: StripeConfig | null;
  /** A checkout left confirmed this long is resolved by asking the processor. */
  reconcileAfterSeconds: number;
}

export interface LoadConfigOptions {
  command: Command;
  /** Defaults to process.env; tests pass their own. */
  env?: Env;
  /** Values that win over the environment, e.g. from command-line flags. */
  overrides?: Env;
  /** Working directory that relative paths are resolved from. */
  cwd?: string;
}

export function loadConfig(options: LoadConfigOptions): Readonly<Config> {
  const env = { ...(options.env ?? process.env), ...stripUndefined(options.overrides ?? {}) };
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0] ?? "environment");
      const got = env[name];
      const shown =
        name === "AUTH_SECRET" || name === "DATABASE_URL" || name === "METRICS_TOKEN"
          ? ""
          : ` (got ${JSON.stringify(got)})`;
      return `${name}: ${issue.message}${shown}`;
    });
    throw new ConfigError(`Invalid configuration:\n  ${lines.join("\n  ")}`);
  }
  const e = parsed.data;
  const command = options.command;
  const cwd = options.cwd ?? e.INIT_CWD ?? process.cwd();

  if (command === "dev" && e.TILL_MODE === "production") {
    throw new ConfigError(
      "Invalid configuration:\n  TILL_MODE: `till dev` always runs in sandbox mode; use `till serve` for production",
    );
  }
  // Tests run in sandbox unless they ask for production explicitly (to test production-only rules).
  const mode =
    command === "dev"
      ? "sandbox"
      : (e.TILL_MODE ?? (command === "test" ? "sandbox" : "production"));
  const port = e.PORT ?? 8080;
  const host = e.HOST ?? (command === "serve" || command === "worker" ? "0.0.0.0" : "127.0.0.1");
  const baseUrl = (e.BASE_URL ?? `http://localhost:${port}`).replace(/\/+$/, "");
  const dataDir = path.resolve(cwd, e.TILL_DATA_DIR ?? ".till");

  const database: DatabaseTarget = e.DATABASE_URL
    ? {
        kind: "postgres",
        url: e.DATABASE_URL,
        poolSize: e.DATABASE_POOL_SIZE,
        connectTimeoutMs: e.DATABASE_CONNECT_TIMEOUT_MS,
        statementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
        lockTimeoutMs: e.DATABASE_LOCK_TIMEOUT_MS,
      }
    : { kind: "pglite", dataDir: command === "test" ? null : path.join(dataDir, "db") };

  let authSecret = e.AUTH_SECRET;
  if (!authSecret) {
    if (command === "dev") authSecret = devAuthSecret(dataDir);
    else if (command === "test" || command === "migrate" || command === "cli")
      authSecret = "till-test-secret-".padEnd(48, "x");
    else
      throw new ConfigError(
        `Invalid configuration:\n  AUTH_SECRET: required for \`till ${command}\` (try: openssl rand -base64 32)`,
      );
  }

  // Over http the session cookies lack Secure and travel in clear: only a local server may do that.
  if (mode === "production" && (command === "serve" || command === "worker")) {
    const { protocol, hostname } = new URL(baseUrl);
    const local = /^(localhost|127(\.\d+){3}|\[::1\])$|\.localhost$/i.test(
      hostname.replace(/\.$/, ""),
    );
    if (protocol === "http:" && !local)
      throw new ConfigError(
        `Invalid configuration:\n  BASE_URL: must be an https:// URL in production (got ${JSON.stringify(baseUrl)}); over http, session cookies would be sent without Secure. Put till behind a TLS-terminating proxy and set BASE_URL to its https:// address.`,
      );
  }

  const trustedOrigins = [
    new URL(baseUrl).origin,
    ...(e.TRUSTED_ORIGINS ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
  ];
  for (const origin of trustedOrigins) {
    if (!URL.canParse(origin))
      throw new ConfigError(
        `Invalid configuration:\n  TRUSTED_ORIGINS: ${JSON.stringify(origin)} is not a URL`,
      );
  }

  if (e.AUTH_MIN_PASSWORD_LENGTH > e.AUTH_MAX_PASSWORD_LENGTH) {
    throw new ConfigError(
      "Invalid configuration:\n  AUTH_MIN_PASSWORD_LENGTH: must not be greater than AUTH_MAX_PASSWORD_LENGTH",
    );
  }
  if (e.CAPTCHA_PROVIDER && !e.CAPTCHA_SECRET_KEY) {
    throw new ConfigError(
      "Invalid configuration:\n  CAPTCHA_SECRET_KEY: required when CAPTCHA_PROVIDER is set",
    );
  }

  const payments = paymentsConfig(e, mode, command);
  const level = e.LOG_LEVEL ?? (command === "test" ? "silent" : "info");
  const format = e.LOG_FORMAT ?? (command === "dev" ? "pretty" : "json");

  return deepFreeze({
    command,
    mode,
    port,
    host,
    baseUrl,
    dataDir,
    database,
    authSecret,
    trustedOrigins,
    log: { level, format },
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    metricsToken: e.METRICS_TOKEN ?? null,
    webhooks: {
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      maxAttempts: e.WEBHOOK_MAX_ATTEMPTS,
      retryBaseMs: e.WEBHOOK_RETRY_BASE_MS,
      fifoWaitMs: e.WEBHOOK_FIFO_WAIT_MS,
      concurrency: e.WEBHOOK_CONCURRENCY,
      retentionDays: e.WEBHOOK_RETENTION_DAYS,
      disableAfterFailures: e.WEBHOOK_DISABLE_AFTER_FAILURES,
      jobExpireSeconds: e.WEBHOOK_JOB_EXPIRE_SECONDS,
      pipelining: e.WEBHOOK_PIPELINING,
      dnsServers: (e.WEBHOOK_DNS_SERVERS ?? "")
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    },
    email: { smtpUrl: e.SMTP_URL ?? null, from: e.EMAIL_FROM },
    taxRates: Object.fromEntries(
      (e.TAX_RATES ?? "")
        .split(",")
        .filter(Boolean)
        .map((pair) => [pair.slice(0, 2), Number(pair.slice(3))]),
    ),
    checkoutTtlSeconds: e.CHECKOUT_TTL_SECONDS,
    dunningRetryDays: e.DUNNING_RETRY_DAYS.split(",").map(Number),
    files: { maxSize: e.FILES_MAX_SIZE, uploadUrlTtlSeconds: e.FILES_UPLOAD_URL_TTL },
    grants: {
      discord: {
        apiUrl: e.DISCORD_API_URL.replace(/\/+$/, ""),
        botToken: e.DISCORD_BOT_TOKEN ?? null,
      },
      github: { apiUrl: e.GITHUB_API_URL.replace(/\/+$/, ""), token: e.GITHUB_TOKEN ?? null },
      retryLimit: e.GRANT_RETRY_LIMIT,
      retryDelaySeconds: e.GRANT_RETRY_DELAY_SECONDS,
      downloadUrlTtlSeconds: e.DOWNLOAD_URL_TTL,
    },
    payments,
    licenseKeyRateLimit: e.LICENSE_KEY_RATE_LIMIT,
    // The demo store at /demo: on in `till dev`, never outside sandbox mode.
    demo: mode === "sandbox" && (e.TILL_DEMO ?? command === "dev"),
    auth: {
      requireEmailVerification: e.AUTH_REQUIRE_EMAIL_VERIFICATION ?? mode === "production",
      disableSignUp: e.AUTH_DISABLE_SIGNUP,
      allowDeleteUser: e.AUTH_ALLOW_DELETE_USER,
      deleteUserEmailConfirmation: e.AUTH_DELETE_USER_EMAIL_CONFIRMATION,
      minPasswordLength: e.AUTH_MIN_PASSWORD_LENGTH,
      maxPasswordLength: e.AUTH_MAX_PASSWORD_LENGTH,
      rateLimit: e.AUTH_RATE_LIMIT ?? command !== "test",
      trustProxy: e.AUTH_TRUST_PROXY,
      allowUnlinkingAll: e.AUTH_ALLOW_UNLINKING_ALL,
      allowUserToCreateOrganization: e.AUTH_ALLOW_USER_TO_CREATE_ORGANIZATION,
      adminEmails: e.TILL_ADMIN_EMAILS,
      organizationLimits: {
        members: e.AUTH_ORGANIZATION_MEMBERSHIP_LIMIT,
        invitations: e.AUTH_ORGANIZATION_INVITATION_LIMIT,
        teams: e.AUTH_ORGANIZATION_MAX_TEAMS,
        membersPerTeam: e.AUTH_TEAM_MAX_MEMBERS,
        organizationsPerUser: e.AUTH_USER_MAX_ORGANIZATIONS,
        roles: e.AUTH_ORGANIZATION_MAX_ROLES,
      },
      device: { expiresIn: e.AUTH_DEVICE_CODE_EXPIRES_IN, interval: e.AUTH_DEVICE_POLL_INTERVAL },
      socialProviders: socialProviders(env),
      captcha:
        e.CAPTCHA_PROVIDER && e.CAPTCHA_SECRET_KEY
          ? {
              provider: e.CAPTCHA_PROVIDER,
              secretKey: e.CAPTCHA_SECRET_KEY,
              endpoints: (
                e.CAPTCHA_ENDPOINTS ?? "/sign-up/email,/sign-in/email,/request-password-reset"
              )
                .split(",")
                .map((s) => s.trim())
                .filter(Boolean),
              siteVerifyUrl: e.CAPTCHA_SITE_VERIFY_URL ?? null,
            }
          : null,
    },
  });
}

const STRIPE_KEYS = [
  "STRIPE_SECRET_KEY",
  "STRIPE_PUBLISHABLE_KEY",
  "STRIPE_WEBHOOK_SECRET",
] as const;

/**
 * Production takes real money through Stripe or none at all: a server that would otherwise fall
 * back to the sandbox processor (and give paid products away) refuses to start, naming what is
 * missing. Tests, migrations and the CLI without keys get no processor instead.
 */
function paymentsConfig(
  e: z.infer<typeof envSchema>,
  mode: Config["mode"],
  command: Command,
): PaymentsConfig {
  const missing = STRIPE_KEYS.filter((k) => !e[k]);
  const strict = command === "serve" || command === "worker" || command === "dev";
  const processor =
    e.TILL_PAYMENTS ??
    (mode === "sandbox" ? "sandbox" : strict || missing.length === 0 ? "stripe" : "none");
  if (mode === "production" && processor === "sandbox")
    throw new ConfigError(
      "Invalid configuration:\n  TILL_PAYMENTS: the sandbox processor is not available in production mode (use stripe, or none to sell only free products)",
    );
  if (processor === "stripe" && missing.length > 0)
    throw new ConfigError(
      `Invalid configuration:\n  ${missing.map((k) => `${k}: required to take payments with Stripe${mode === "production" ? " in production mode (or set TILL_PAYMENTS=none to sell only free products)" : ""}`).join("\n  ")}`,
    );
  return {
    processor,
    stripe:
      processor === "stripe"
        ? {
            secretKey: e.STRIPE_SECRET_KEY!,
            publishableKey: e.STRIPE_PUBLISHABLE_KEY!,
            webhookSecret: e.STRIPE_WEBHOOK_SECRET!,
            apiBase: e.STRIPE_API_BASE?.replace(/\/+$/, "") ?? null,
            jsUrl: e.STRIPE_JS_URL,
          }
        : null,
    reconcileAfterSeconds: e.PAYMENTS_RECONCILE_AFTER_SECONDS,
  };
}

function stripUndefined(env: Env): Env {
  return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined));
}

function deepFreeze<T>(value: T): Readonly<T> {
  if (value && typeof value === "object") {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** What the `till` client reads from its environment (credentials for CI, where to keep its files). */
export interface CliEnv {
  token: string | null;
  server: string | null;
  profile: string | null;
  configDir: string;
  noColor: boolean;
  /** True over SSH, where opening a browser on this machine would be wrong. */
  remoteSession: boolean;
  browser: string | null;
}

export function loadCliEnv(env: Env = process.env): Readonly<CliEnv> {
  const home = env.HOME ?? env.USERPROFILE ?? ".";
  const token = env.TILL_TOKEN?.trim() || null;
  if (token && !/^[\x21-\x7e]+$/.test(token))
    throw new ConfigError(
      "Invalid configuration:\n  TILL_TOKEN: must be one token without spaces, newlines or other control characters",
    );
  const server = env.TILL_SERVER || null;
  if (server && !URL.canParse(server))
    throw new ConfigError(
      `Invalid configuration:\n  TILL_SERVER: must be a URL (got ${JSON.stringify(server)})`,
    );
  return Object.freeze({
    token,
    server: server?.replace(/\/+$/, "") ?? null,
    profile: env.TILL_PROFILE || null,
    configDir: path.join(env.XDG_CONFIG_HOME || path.join(home, ".config"), "till"),
    noColor: Boolean(env.NO_COLOR) || env.TERM === "dumb",
    remoteSession: Boolean(env.SSH_CONNECTION || env.SSH_TTY || env.SSH_CLIENT),
    browser: env.BROWSER || null,
  });
}
