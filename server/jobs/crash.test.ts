// Fault tests with real processes: `till serve` is SIGKILLed while jobs run, each held mid-write on a
// lock the test takes, then started again on the same database. The killed worker's jobs go back to
// the queue within about a minute: a sale's license key is granted once and its receipt written,
// and a run of the every-minute checkout expiry completes. Before, each job stayed active until
// pg-boss's 15-minute expiry. PostgreSQL only: holding the jobs mid-write takes a second connection
// to the database.
import postgres from "postgres";
import { afterAll, describe, expect, it } from "vitest";
import { US_ADDRESS } from "../../test/helpers/addresses.ts";
import { api, createSeller } from "../../test/helpers/auth.ts";
import {
  holdTableLock,
  openTestDatabase,
  usingPostgres,
  type TestDatabase,
} from "../../test/helpers/db.ts";
import { spawnTillServer, tempDir, type SpawnedServer } from "../../test/helpers/process.ts";
import { serveEnv } from "../../test/helpers/spawned-seller.ts";
import { waitFor } from "../../test/helpers/webhook-receiver.ts";

/** The every-minute checkout expiry. */
const EXPIRE_JOB = "checkouts.expire";

const databases: TestDatabase[] = [];
/** The running test's second connection (holdLock). */
let locker: postgres.Sql | null = null;
const lockers: postgres.Sql[] = [];
const children: SpawnedServer[] = [];
afterAll(async () => {
  for (const c of children) c.child.kill("SIGKILL");
  for (const l of lockers) await l.end();
  for (const d of databases) await d.dispose();
});

/** A new database, and `till serve` started on it (again, after a kill) with `extra` set. */
async function serveOnNewDatabase(extra: Record<string, string>) {
  const testDb = await openTestDatabase();
  databases.push(testDb);
  const cwd = tempDir("till-jobs-crash-");
  // No lock timeout: a job waits on the test's lock for as long as it is held.
  const env = {
    ...(await serveEnv(cwd, testDb.url!)),
    DATABASE_LOCK_TIMEOUT_MS: "0",
    ...extra,
  };
  const serve = async () => {
    const server = await spawnTillServer("serve", env, cwd);
    children.push(server);
    return server;
  };
  return { testDb, serve };
}

/**
 * Holds an access exclusive lock on `tables` until the answered release(); `locker` is a second
 * connection to watch the server's statements wait on it.
 */
async function holdLock(url: string, tables: string): Promise<() => Promise<void>> {
  locker = postgres(url, { max: 2, onnotice: () => {} });
  lockers.push(locker);
  return holdTableLock(locker, tables);
}

async function killAndRelease(server: SpawnedServer, release: () => Promise<void>): Promise<void> {
  server.child.kill("SIGKILL");
  await server.child;
  // The dead worker's statements go with it, as PostgreSQL ends them once it sees the client gone.
  await locker!`select pg_terminate_backend(pid) from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`;
  await release();
}

describe.skipIf(!usingPostgres())("till serve killed while a sale's jobs run", () => {
  it("SIGKILL mid-grant and mid-receipt, restart: key granted once, receipt written", {
    timeout: 180_000,
  }, async () => {
    const { testDb, serve } = await serveOnNewDatabase({ GRANT_RETRY_DELAY_SECONDS: "1" });
    const first = await serve();
    const { token } = await createSeller(first.url, [
      "products:write",
      "checkouts:write",
      "benefits:write",
    ]);
    const benefit = await api(first.url, "/v1/benefits/", {
      token,
      body: { type: "license_keys", description: "Key", properties: {} },
    });
    expect(benefit.status).toBe(201);
    const product = await api(first.url, "/v1/products/", {
      token,
      body: {
        name: "App",
        prices: [{ amount_type: "fixed", price_amount: 1500, price_currency: "usd" }],
      },
    });
    await api(first.url, `/v1/products/${product.body.id}/benefits`, {
      token,
      body: { benefits: [benefit.body.id] },
    });

    const release = await holdLock(testDb.url!, "license_keys, email_outbox");

    const checkout = await api(first.url, "/v1/checkouts/", {
      token,
      body: { products: [product.body.id] },
    });
    const confirmed = await api(
      first.url,
      `/v1/checkouts/client/${checkout.body.client_secret}/confirm`,
      {
        body: {
          customer_email: "grant-crash@example.com",
          customer_billing_address: US_ADDRESS,
          confirmation_token_id: "sandbox_token_success",
        },
      },
    );
    expect(confirmed.status).toBe(200);
    // Both jobs are active, their worker waiting on the locks.
    const waiting = async (table: string) =>
      (
        await locker!`select 1 from pg_stat_activity where wait_event_type = 'Lock' and query ilike ${`%${table}%`}`
      ).length > 0;
    await waitFor(
      async () => (await waiting("license_keys")) && (await waiting("email_outbox")),
      30_000,
      "the grant and the receipt waiting on their locks",
    );
    await killAndRelease(first, release);

    const second = await serve();
    const grants = async () =>
      (await api(second.url, `/v1/benefits/${benefit.body.id}/grants`, { token })).body.items as {
        is_granted: boolean;
      }[];
    const receipts = async () =>
      (
        await locker!`select count(*)::int as n from email_outbox where kind = 'receipt' and "to" = 'grant-crash@example.com'`
      )[0]!.n as number;
    await waitFor(
      async () => (await grants()).some((g) => g.is_granted) && (await receipts()) > 0,
      150_000,
      "the license key granted and the receipt written after the restart",
    );
    expect(await grants()).toHaveLength(1);
    const [keys] = await locker!`select count(*)::int as n from license_keys`;
    expect(keys!.n).toBe(1);
  });
});

describe.skipIf(!usingPostgres())("till serve killed while a scheduled job runs", () => {
  it("SIGKILL mid-run, restart: the killed run is handed back and completes", {
    timeout: 240_000,
  }, async () => {
    const { testDb, serve } = await serveOnNewDatabase({});
    const first = await serve();

    const release = await holdLock(testDb.url!, "checkouts");

    const active = async () =>
      (
        await locker!`select id from pgboss.job where name = ${EXPIRE_JOB} and state = 'active'`
      ).map((r) => r.id as string);
    const waiting = async () =>
      (
        await locker!`select 1 from pg_stat_activity where wait_event_type = 'Lock' and query ilike '%update "checkouts"%'`
      ).length > 0;
    // The schedule starts a run within a minute; it waits on the lock.
    await waitFor(
      async () => (await active()).length > 0 && (await waiting()),
      90_000,
      "the checkout expiry waiting on its lock",
    );
    const killed = await active();
    await killAndRelease(first, release);

    await serve();
    const states = async () =>
      (await locker!`select state from pgboss.job where id = any(${killed}::uuid[])`).map(
        (r) => r.state as string,
      );
    await waitFor(
      async () => (await states()).every((s) => s === "completed"),
      150_000,
      "the killed run handed back and completed after the restart",
    );
    expect(await states()).toEqual(killed.map(() => "completed"));
  });
});
