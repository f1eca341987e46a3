// Fault test with real processes: `till serve` is SIGKILLed while a sale's jobs run, its license key
// grant and its receipt mail each held mid-write on a lock the test takes, then started again on the
// same database. The killed worker's jobs go back to the queue within about a minute: the key is
// granted once and the receipt written. Before, each job stayed active until pg-boss's 15-minute
// expiry. PostgreSQL only: holding the jobs mid-write takes a second connection to the database.
import postgres from "postgres";
import { afterAll, describe, expect, it } from "vitest";
import { US_ADDRESS } from "../../test/helpers/addresses.ts";
import { api, createSeller } from "../../test/helpers/auth.ts";
import { openTestDatabase, usingPostgres, type TestDatabase } from "../../test/helpers/db.ts";
import { spawnTillServer, tempDir, type SpawnedServer } from "../../test/helpers/process.ts";
import { serveEnv } from "../../test/helpers/spawned-seller.ts";
import { waitFor } from "../../test/helpers/webhook-receiver.ts";

let testDb: TestDatabase | null = null;
let locker: postgres.Sql | null = null;
const children: SpawnedServer[] = [];
afterAll(async () => {
  for (const c of children) c.child.kill("SIGKILL");
  await locker?.end();
  await testDb?.dispose();
});

describe.skipIf(!usingPostgres())("till serve killed while a sale's jobs run", () => {
  it("SIGKILL mid-grant and mid-receipt, restart: key granted once, receipt written", {
    timeout: 180_000,
  }, async () => {
    testDb = await openTestDatabase();
    const cwd = tempDir("till-jobs-crash-");
    // No lock timeout: the grant waits on the test's lock for as long as it is held.
    const env = {
      ...(await serveEnv(cwd, testDb.url!)),
      DATABASE_LOCK_TIMEOUT_MS: "0",
      GRANT_RETRY_DELAY_SECONDS: "1",
    };
    const first = await spawnTillServer("serve", env, cwd);
    children.push(first);
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

    // Two connections: one holds the lock, the other watches the grant wait on it.
    locker = postgres(testDb.url!, { max: 2, onnotice: () => {} });
    let release = () => {};
    const released = new Promise<void>((r) => {
      release = r;
    });
    let locked = () => {};
    const isLocked = new Promise<void>((r) => {
      locked = r;
    });
    const holding = locker.begin(async (tx) => {
      await tx`lock table license_keys, email_outbox in access exclusive mode`;
      locked();
      await released;
    });
    await isLocked;

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
    first.child.kill("SIGKILL");
    await first.child;
    // The dead worker's statements go with it, as PostgreSQL ends them once it sees the client gone.
    await locker`select pg_terminate_backend(pid) from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`;
    release();
    await holding;

    const second = await spawnTillServer("serve", env, cwd);
    children.push(second);
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
    const [keys] = await locker`select count(*)::int as n from license_keys`;
    expect(keys!.n).toBe(1);
  });
});
