import { mkdtempSync, readFileSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig, queueUrl } from "./config.ts";

const tmp = () => mkdtempSync(path.join(os.tmpdir(), "till-config-"));
const SECRET = "s".repeat(40);
// Production without Stripe keys refuses to start unless it sells only free products.
const FREE = { TILL_PAYMENTS: "none" };

describe("loadConfig", () => {
  it("defaults to port 8080, PGlite under ./.till/db and a localhost base URL", () => {
    const cwd = tmp();
    const config = loadConfig({ command: "serve", env: { AUTH_SECRET: SECRET, ...FREE }, cwd });
    expect(config.port).toBe(8080);
    expect(config.baseUrl).toBe("http://localhost:8080");
    expect(config.database).toEqual({ kind: "pglite", dataDir: path.join(cwd, ".till", "db") });
    expect(config.mode).toBe("production");
    expect(config.host).toBe("0.0.0.0");
  });

  it("production with an http:// BASE_URL other than localhost stops at start", () => {
    const load = (BASE_URL: string) =>
      loadConfig({ command: "serve", env: { AUTH_SECRET: SECRET, ...FREE, BASE_URL }, cwd: tmp() });
    expect(() => load("http://billing.example.com")).toThrow(/BASE_URL: must be an https:\/\/ URL/);
    expect(() => load("http://10.0.0.5:8080")).toThrow(/BASE_URL/);
    expect(load("https://billing.example.com").mode).toBe("production");
    expect(load("http://localhost:8080").baseUrl).toBe("http://localhost:8080");
    expect(load("http://127.0.0.1:8080").baseUrl).toBe("http://127.0.0.1:8080");
  });

  it("uses postgres.js when DATABASE_URL is set", () => {
    const config = loadConfig({
      command: "serve",
      env: { AUTH_SECRET: SECRET, ...FREE, DATABASE_URL: "postgres://u@h:5432/db" },
      cwd: tmp(),
    });
    expect(config.database).toEqual({
      kind: "postgres",
      url: "postgres://u@h:5432/db",
      poolSize: 10,
      connectTimeoutMs: 5000,
      statementTimeoutMs: 30000,
      lockTimeoutMs: 5000,
    });
  });

  it("DATABASE_DIRECT_URL: behind a pooler the queue connects to PostgreSQL itself", () => {
    const env = { AUTH_SECRET: SECRET, ...FREE, DATABASE_URL: "postgres://u@pooler:6432/db" };
    const pooled = loadConfig({
      command: "serve",
      env: { ...env, DATABASE_DIRECT_URL: "postgres://u@db:5432/db" },
      cwd: tmp(),
    });
    expect(pooled.database).toMatchObject({
      url: "postgres://u@pooler:6432/db",
      directUrl: "postgres://u@db:5432/db",
    });
    expect(queueUrl(pooled)).toBe("postgres://u@db:5432/db");
    const plain = loadConfig({ command: "serve", env, cwd: tmp() });
    expect(queueUrl(plain)).toBe("postgres://u@pooler:6432/db");
    expect(queueUrl(loadConfig({ command: "test", env: {}, cwd: tmp() }))).toBeNull();
    expect(() =>
      loadConfig({ command: "serve", env: { ...env, DATABASE_DIRECT_URL: "db:5432" }, cwd: tmp() }),
    ).toThrow(/DATABASE_DIRECT_URL: must be a postgres/);
  });

  it("DATABASE_READ_URL: replicas for lag-tolerant reads, only beside DATABASE_URL", () => {
    const env = { AUTH_SECRET: SECRET, ...FREE, DATABASE_URL: "postgres://u@db:5432/db" };
    const read = "postgres://u@replica:5432/db";
    const config = loadConfig({
      command: "serve",
      env: { ...env, DATABASE_READ_URL: read },
      cwd: tmp(),
    });
    expect(config.database).toMatchObject({
      url: "postgres://u@db:5432/db",
      readUrls: [read],
      readMaxLagMs: 10_000,
    });
    const two = loadConfig({
      command: "serve",
      env: { ...env, DATABASE_READ_URL: ` ${read}, postgresql://u@replica2:5433/db ,` },
      cwd: tmp(),
    });
    expect(two.database).toMatchObject({
      readUrls: [read, "postgresql://u@replica2:5433/db"],
    });
    const unbounded = loadConfig({
      command: "serve",
      env: { ...env, DATABASE_READ_URL: read, DATABASE_READ_MAX_LAG_MS: "0" },
      cwd: tmp(),
    });
    expect(unbounded.database).toMatchObject({ readMaxLagMs: 0 });
    const worker = loadConfig({
      command: "worker",
      env: { ...env, DATABASE_READ_URL: read },
      cwd: tmp(),
    });
    expect(worker.database).not.toHaveProperty("readUrls");
    expect(loadConfig({ command: "serve", env, cwd: tmp() }).database).not.toHaveProperty(
      "readUrls",
    );
    expect(() =>
      loadConfig({ command: "test", env: { DATABASE_READ_URL: read }, cwd: tmp() }),
    ).toThrow(/DATABASE_READ_URL: needs DATABASE_URL/);
    const bad = () =>
      loadConfig({
        command: "serve",
        env: { ...env, DATABASE_READ_URL: "u:secret@replica" },
        cwd: tmp(),
      });
    expect(bad).toThrow(/DATABASE_READ_URL: must be a postgres/);
    // A URL may carry a password: it is never echoed.
    expect(bad).not.toThrow(/secret/);
    const withRead = (value: string) => () =>
      loadConfig({ command: "serve", env: { ...env, DATABASE_READ_URL: value }, cwd: tmp() });
    // Of several, the wrong one is named by its position and host, still without its password.
    const second = withRead(`${read},mysql://u:secret@replica2:3306/db,postgres://u@r3/db`);
    expect(second).toThrow(
      'DATABASE_READ_URL: must be a postgres:// or postgresql:// URL (URL 2 of 3): "mysql://…@replica2:3306/db"',
    );
    expect(second).not.toThrow(/secret/);
    expect(withRead("postgres://u:secret@")).toThrow(/must be a postgres.*"postgres:\/\/…@"/);
    expect(withRead(`${read},${read}`)).toThrow(
      "DATABASE_READ_URL: lists postgres://…@replica:5432/db twice (URL 2 of 2)",
    );
    expect(withRead(" , ")).toThrow("DATABASE_READ_URL: names no URL");
  });

  it("TILL_ADMIN_EMAILS: lower-cased, trimmed, empty entries dropped; anything but emails refused", () => {
    const config = loadConfig({
      command: "test",
      env: { TILL_ADMIN_EMAILS: " Boss@Example.com,, ops@example.com " },
      cwd: tmp(),
    });
    expect(config.auth.adminEmails).toEqual(["boss@example.com", "ops@example.com"]);
    expect(loadConfig({ command: "test", env: {}, cwd: tmp() }).auth.adminEmails).toEqual([]);
    expect(() =>
      loadConfig({
        command: "test",
        env: { TILL_ADMIN_EMAILS: "boss@example.com;ops" },
        cwd: tmp(),
      }),
    ).toThrow(/TILL_ADMIN_EMAILS: must be comma-separated email addresses/);
  });

  it("names the variable and the value when PORT is not a port", () => {
    expect(() => loadConfig({ command: "dev", env: { PORT: "eighty" }, cwd: tmp() })).toThrow(
      /PORT: .*\(got "eighty"\)/,
    );
    expect(() => loadConfig({ command: "dev", env: { PORT: "70000" }, cwd: tmp() })).toThrow(
      ConfigError,
    );
  });

  it("rejects a DATABASE_URL that is not PostgreSQL without echoing it", () => {
    const err = captureError(() =>
      loadConfig({
        command: "dev",
        env: { DATABASE_URL: "mysql://root:hunter2@h/db" },
        cwd: tmp(),
      }),
    );
    expect(err.message).toMatch(/DATABASE_URL: must be a postgres:\/\/ or postgresql:\/\/ URL/);
    expect(err.message).not.toContain("hunter2");
  });

  it("rejects BASE_URL that is not http(s), LOG_LEVEL and TILL_MODE outside their sets", () => {
    expect(() => loadConfig({ command: "dev", env: { BASE_URL: "ftp://x" }, cwd: tmp() })).toThrow(
      /BASE_URL/,
    );
    expect(() => loadConfig({ command: "dev", env: { LOG_LEVEL: "loud" }, cwd: tmp() })).toThrow(
      /LOG_LEVEL/,
    );
    expect(() =>
      loadConfig({ command: "serve", env: { AUTH_SECRET: SECRET, TILL_MODE: "live" }, cwd: tmp() }),
    ).toThrow(/TILL_MODE/);
  });

  it("requires AUTH_SECRET for `till serve` and `till worker`, and a long one", () => {
    expect(() => loadConfig({ command: "serve", env: {}, cwd: tmp() })).toThrow(
      /AUTH_SECRET: required for `till serve`/,
    );
    expect(() => loadConfig({ command: "worker", env: {}, cwd: tmp() })).toThrow(
      /AUTH_SECRET: required for `till worker`/,
    );
    expect(() =>
      loadConfig({ command: "serve", env: { AUTH_SECRET: "short" }, cwd: tmp() }),
    ).toThrow(/AUTH_SECRET: must be at least 32/);
  });

  it("generates the dev secret once, keeps it 0600 in the data dir and reuses it", () => {
    const cwd = tmp();
    const first = loadConfig({ command: "dev", env: {}, cwd });
    const file = path.join(cwd, ".till", "auth-secret");
    expect(readFileSync(file, "utf8").trim()).toBe(first.authSecret);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(loadConfig({ command: "dev", env: {}, cwd }).authSecret).toBe(first.authSecret);
  });

  it("runs tests in sandbox mode unless TILL_MODE asks for production; reads the webhook settings", () => {
    expect(loadConfig({ command: "test", env: {}, cwd: tmp() }).mode).toBe("sandbox");
    expect(loadConfig({ command: "test", env: { TILL_MODE: "production" }, cwd: tmp() }).mode).toBe(
      "production",
    );
    const config = loadConfig({
      command: "test",
      env: {
        WEBHOOK_RETRY_BASE_MS: "50",
        WEBHOOK_RETENTION_DAYS: "7",
        WEBHOOK_DNS_SERVERS: "127.0.0.1:53, 10.0.0.2",
      },
      cwd: tmp(),
    });
    expect(config.webhooks).toMatchObject({
      retryBaseMs: 50,
      retentionDays: 7,
      maxAttempts: 10,
      timeoutMs: 10_000,
      dnsServers: ["127.0.0.1:53", "10.0.0.2"],
    });
    expect(() =>
      loadConfig({ command: "test", env: { WEBHOOK_MAX_ATTEMPTS: "0" }, cwd: tmp() }),
    ).toThrow(/WEBHOOK_MAX_ATTEMPTS/);
    expect(config.eventDedupRetentionDays).toBe(0);
    expect(
      loadConfig({ command: "test", env: { EVENT_DEDUP_RETENTION_DAYS: "30" }, cwd: tmp() })
        .eventDedupRetentionDays,
    ).toBe(30);
    expect(() =>
      loadConfig({ command: "test", env: { EVENT_DEDUP_RETENTION_DAYS: "-1" }, cwd: tmp() }),
    ).toThrow(/EVENT_DEDUP_RETENTION_DAYS/);
  });

  it("runs `till dev` in sandbox mode and refuses TILL_MODE=production there", () => {
    expect(loadConfig({ command: "dev", env: {}, cwd: tmp() }).mode).toBe("sandbox");
    expect(() =>
      loadConfig({ command: "dev", env: { TILL_MODE: "production" }, cwd: tmp() }),
    ).toThrow(/always runs in sandbox/);
  });

  it("serves the demo store in `till dev` unless TILL_DEMO=false, elsewhere only when asked, and never in production mode", () => {
    expect(loadConfig({ command: "dev", env: {}, cwd: tmp() }).demo).toBe(true);
    expect(loadConfig({ command: "dev", env: { TILL_DEMO: "false" }, cwd: tmp() }).demo).toBe(
      false,
    );
    expect(loadConfig({ command: "test", env: {}, cwd: tmp() }).demo).toBe(false);
    expect(loadConfig({ command: "test", env: { TILL_DEMO: "true" }, cwd: tmp() }).demo).toBe(true);
    expect(
      loadConfig({
        command: "serve",
        env: { AUTH_SECRET: SECRET, ...FREE, TILL_DEMO: "true" },
        cwd: tmp(),
      }).demo,
    ).toBe(false);
    expect(() => loadConfig({ command: "dev", env: { TILL_DEMO: "maybe" }, cwd: tmp() })).toThrow(
      /TILL_DEMO/,
    );
  });

  it("resolves TILL_DATA_DIR from the working directory and lets flags override the environment", () => {
    const cwd = tmp();
    const config = loadConfig({
      command: "dev",
      env: { TILL_DATA_DIR: "data", PORT: "9000" },
      overrides: { PORT: "9100" },
      cwd,
    });
    expect(config.dataDir).toBe(path.join(cwd, "data"));
    expect(config.port).toBe(9100);
    expect(config.baseUrl).toBe("http://localhost:9100");
  });

  it("is frozen", () => {
    const config = loadConfig({ command: "dev", env: {}, cwd: tmp() });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.database)).toBe(true);
    expect(() => {
      (config as { port: number }).port = 1;
    }).toThrow(TypeError);
  });

  it("adds TRUSTED_ORIGINS to the base URL's origin and rejects ones that are not URLs", () => {
    const config = loadConfig({
      command: "dev",
      env: { TRUSTED_ORIGINS: "https://shop.example, http://localhost:5173" },
      cwd: tmp(),
    });
    expect(config.trustedOrigins).toEqual([
      "http://localhost:8080",
      "https://shop.example",
      "http://localhost:5173",
    ]);
    expect(() =>
      loadConfig({ command: "dev", env: { TRUSTED_ORIGINS: "not a url" }, cwd: tmp() }),
    ).toThrow(/TRUSTED_ORIGINS/);
  });
});

describe("payments configuration", () => {
  const stripe = {
    STRIPE_SECRET_KEY: "sk_test_abc123",
    STRIPE_PUBLISHABLE_KEY: "pk_test_abc123",
    STRIPE_WEBHOOK_SECRET: "whsec_abc123",
  };

  it("`till serve` in production without Stripe keys stops, naming each missing variable", () => {
    expect(() =>
      loadConfig({ command: "serve", env: { AUTH_SECRET: SECRET }, cwd: tmp() }),
    ).toThrow(
      /STRIPE_SECRET_KEY: required to take payments with Stripe in production mode \(or set TILL_PAYMENTS=none/,
    );
    expect(() =>
      loadConfig({
        command: "worker",
        env: { AUTH_SECRET: SECRET, STRIPE_SECRET_KEY: "sk_live_x1" },
        cwd: tmp(),
      }),
    ).toThrow(/STRIPE_PUBLISHABLE_KEY: required[\s\S]*STRIPE_WEBHOOK_SECRET: required/);
  });

  it("production never runs the sandbox processor; TILL_PAYMENTS=none sells only free products", () => {
    expect(() =>
      loadConfig({
        command: "serve",
        env: { AUTH_SECRET: SECRET, TILL_PAYMENTS: "sandbox", ...stripe },
        cwd: tmp(),
      }),
    ).toThrow(/TILL_PAYMENTS: the sandbox processor is not available in production mode/);
    expect(
      loadConfig({ command: "serve", env: { AUTH_SECRET: SECRET, ...FREE }, cwd: tmp() }).payments,
    ).toEqual({ processor: "none", stripe: null, reconcileAfterSeconds: 120 });
  });

  it("with the keys, production pays with Stripe; sandbox mode defaults to the sandbox", () => {
    const config = loadConfig({
      command: "serve",
      env: {
        AUTH_SECRET: SECRET,
        ...stripe,
        STRIPE_API_BASE: "http://127.0.0.1:12111/",
        PAYMENTS_RECONCILE_AFTER_SECONDS: "5",
      },
      cwd: tmp(),
    });
    expect(config.payments).toEqual({
      processor: "stripe",
      stripe: {
        secretKey: "sk_test_abc123",
        publishableKey: "pk_test_abc123",
        webhookSecret: "whsec_abc123",
        apiBase: "http://127.0.0.1:12111",
        jsUrl: "https://js.stripe.com/endive/stripe.js",
      },
      reconcileAfterSeconds: 5,
    });
    expect(loadConfig({ command: "dev", env: {}, cwd: tmp() }).payments.processor).toBe("sandbox");
    expect(() =>
      loadConfig({
        command: "serve",
        env: { AUTH_SECRET: SECRET, ...stripe, STRIPE_SECRET_KEY: "pk_live_x" },
        cwd: tmp(),
      }),
    ).toThrow(/STRIPE_SECRET_KEY: must be a Stripe secret key/);
  });
});

function captureError(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected an error");
}
