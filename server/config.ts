// Configuration: the only reader of process.env. Parsed once with zod and frozen, so a wrong value
// fails at start with the variable's name instead of surfacing later as a confusing runtime error.
import path from "node:path";
import {
  ConfigError,
  devAuthSecret,
  socialProviders,
  type SocialProviderConfig,
} from "./config-sources.ts";
import { envSchema, type LOG_LEVELS } from "./config-schema.ts";
import { type PaymentsConfig, paymentsConfig } from "./config-payments.ts";

export type { PaymentsConfig, StripeConfig } from "./config-payments.ts";

export { ConfigError, type SocialProviderConfig };

export type Command = "dev" | "serve" | "worker" | "migrate" | "test" | "cli";
export type Env = Record<string, string | undefined>;

export type DatabaseTarget =
  | {
      kind: "postgres";
      url: string;
      /**
       * Set when `url` is a transaction-mode pooler (PgBouncer): PostgreSQL itself, for what a
       * pooled transaction cannot carry (LISTEN, the job queue, the migration lock).
       */
      directUrl?: string;
      /**
       * Streaming read replicas (or poolers in front of them, when `directUrl` is set) for the
       * reads that tolerate their lag: `Database.read`, spread across them. Unset: those reads go
       * to `url`.
       */
      readUrls?: readonly string[];
      /** Past this lag (ms) a replica's reads go elsewhere until it catches up; 0: no bound. */
      readMaxLagMs?: number;
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
  /** The longest one sandbox clock advance works before it stops and asks to be sent again. */
  sandboxClockAdvanceSeconds: number;
  /** Days after each failed renewal payment before the next attempt; after the last, it ends. */
  dunningRetryDays: readonly number[];
  /** Days an event's external id keeps catching duplicates; 0 keeps it for good. */
  eventDedupRetentionDays: number;
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
        name === "AUTH_SECRET" ||
        name === "DATABASE_URL" ||
        name === "DATABASE_DIRECT_URL" ||
        name === "DATABASE_READ_URL" ||
        name === "METRICS_TOKEN"
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
        ...(e.DATABASE_DIRECT_URL ? { directUrl: e.DATABASE_DIRECT_URL } : {}),
        // Only the API's reads go to the replica: `till worker` and `till migrate` never connect.
        ...(e.DATABASE_READ_URL && (command === "serve" || command === "dev" || command === "test")
          ? { readUrls: e.DATABASE_READ_URL, readMaxLagMs: e.DATABASE_READ_MAX_LAG_MS }
          : {}),
        poolSize: e.DATABASE_POOL_SIZE,
        connectTimeoutMs: e.DATABASE_CONNECT_TIMEOUT_MS,
        statementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
        lockTimeoutMs: e.DATABASE_LOCK_TIMEOUT_MS,
      }
    : { kind: "pglite", dataDir: command === "test" ? null : path.join(dataDir, "db") };
  // Embedded PGlite has no replicas: a read URL there is a mistake, not something to ignore.
  if (e.DATABASE_READ_URL && !e.DATABASE_URL)
    throw new ConfigError(
      "Invalid configuration:\n  DATABASE_READ_URL: needs DATABASE_URL (the primary it replicates)",
    );

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
    sandboxClockAdvanceSeconds: e.SANDBOX_CLOCK_ADVANCE_TIMEOUT_SECONDS,
    dunningRetryDays: e.DUNNING_RETRY_DAYS.split(",").map(Number),
    eventDedupRetentionDays: e.EVENT_DEDUP_RETENTION_DAYS,
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
  // `localhost:8080` parses as a URL of scheme "localhost:": only http(s) reaches a till server.
  if (server && !/^https?:$/.test(URL.parse(server)?.protocol ?? ""))
    throw new ConfigError(
      `Invalid configuration:\n  TILL_SERVER: must be an http(s) URL, e.g. http://localhost:8080 (got ${JSON.stringify(server)})`,
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

/** Where the job queue connects: PostgreSQL itself, past a transaction-mode pooler; none on PGlite. */
export function queueUrl(config: Pick<Config, "database">): string | null {
  const d = config.database;
  return d.kind === "postgres" ? (d.directUrl ?? d.url) : null;
}
