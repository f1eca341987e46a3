// Fault test with real processes on PostgreSQL: `till serve` is SIGKILLed after a declined renewal
// committed and before its "payment failed" mail was written (held on a lock the test takes on the
// outbox). After a restart the mail goes out anyway, once, from the job queued with the failure.
// Before, the mail was sent only after the commit by the process that died, and was lost.
import postgres from "postgres";
import { afterAll, describe, expect, it } from "vitest";
import { US_ADDRESS } from "../../../test/helpers/addresses.ts";
import { api, createAccessToken, createOrganization, signUp } from "../../../test/helpers/auth.ts";
import {
  holdTableLock,
  openTestDatabase,
  usingPostgres,
  type TestDatabase,
} from "../../../test/helpers/db.ts";
import { spawnTillServer, tempDir, type SpawnedServer } from "../../../test/helpers/process.ts";
import { openMailLink } from "../../../test/helpers/browser.ts";
import { serveEnv } from "../../../test/helpers/spawned-seller.ts";
import { waitFor } from "../../../test/helpers/webhook-receiver.ts";

let testDb: TestDatabase | null = null;
let locker: postgres.Sql | null = null;
const children: SpawnedServer[] = [];
afterAll(async () => {
  for (const c of children) c.child.kill("SIGKILL");
  await locker?.end();
  await testDb?.dispose();
});

const email = "declined-crash@example.com";

describe.skipIf(!usingPostgres())("till serve killed before a failed payment's mail", () => {
  it("SIGKILL after the declined renewal committed: the mail is sent after the restart, once", {
    timeout: 300_000,
  }, async () => {
    testDb = await openTestDatabase();
    const cwd = tempDir("till-dunning-crash-");
    const env = { ...(await serveEnv(cwd, testDb.url!)), DATABASE_LOCK_TIMEOUT_MS: "0" };
    const first = await spawnTillServer("serve", env, cwd);
    children.push(first);
    const user = await signUp(first.url);
    const org = await createOrganization(first.url, user);
    const token = await createAccessToken(first.url, user, org.id, [
      "products:write",
      "checkouts:write",
      "subscriptions:write",
      "orders:read",
    ]);
    const product = await api(first.url, "/v1/products/", {
      token,
      body: {
        name: "Declining",
        recurring_interval: "month",
        prices: [{ amount_type: "fixed", price_amount: 1000, price_currency: "usd" }],
      },
    });
    const checkout = await api(first.url, "/v1/checkouts/", {
      token,
      body: { products: [product.body.id] },
    });
    const confirmed = await api(
      first.url,
      `/v1/checkouts/client/${checkout.body.client_secret}/confirm`,
      {
        body: {
          customer_email: email,
          customer_billing_address: US_ADDRESS,
          confirmation_token_id: "sandbox_token_renewal_declined",
        },
      },
    );
    expect(confirmed.status).toBe(200);
    locker = postgres(testDb.url!, { max: 2, onnotice: () => {} });
    const mails = async (kind: string) =>
      (
        await locker!`select count(*)::int as n from email_outbox where kind = ${kind} and "to" = ${email}`
      )[0]!.n as number;
    await waitFor(async () => (await mails("receipt")) > 0, 30_000, "the purchase's receipt");
    const [sub] =
      await locker`select current_period_end from subscriptions where organization_id = ${org.id}`;

    const release = await holdTableLock(locker, "email_outbox");
    // The advance renews, the charge is declined, the change commits; its mail waits on the lock.
    void api(first.url, "/v1/sandbox/clock/advance", {
      token,
      body: { to: (sub!.current_period_end as Date).toISOString() },
    }).catch(() => {});
    await waitFor(
      async () =>
        (
          await locker!`select 1 from orders where organization_id = ${org.id} and status = 'pending'`
        ).length > 0 &&
        (
          await locker!`select 1 from pg_stat_activity where wait_event_type = 'Lock' and query ilike '%email_outbox%'`
        ).length > 0,
      60_000,
      "the declined renewal committed, its mail waiting on the lock",
    );
    first.child.kill("SIGKILL");
    await first.child.catch(() => {});
    await locker`select pg_terminate_backend(pid) from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`;
    await release();

    const second = await spawnTillServer("serve", env, cwd);
    children.push(second);
    await waitFor(
      async () => (await mails("payment-failed")) > 0,
      150_000,
      "the payment-failed mail after the restart",
    );
    const [mail] = await locker<{ text: string; link: string }[]>`
      select text, link from email_outbox where kind = 'payment-failed' and "to" = ${email}`;
    expect(mail!.text).toContain("We could not collect $10.00 for your Declining subscription.");
    // Its link signs the customer in to the portal.
    const session = new URL(
      openMailLink(mail!.link, (env as Record<string, string>).AUTH_SECRET),
    ).searchParams.get("customer_session_token");
    const me = await api(second.url, "/v1/customer-portal/customers/me", { token: session! });
    expect(me.status).toBe(200);
    expect(await mails("payment-failed")).toBe(1);
  });
});
