// Fault test with real processes on PostgreSQL: `till serve` is SIGKILLed while 8 confirms are in
// flight — at the moment the first charge is recorded, so at least that purchase dies between its
// charge and its fulfilment — then started again on the same database. Within two minutes the
// reconciler leaves every session succeeded with exactly one order (those the processor charged)
// or open again (those it did not), none confirmed, and no charge without an order.
import { Polar } from "@polar-sh/sdk";
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { createAccessToken, createOrganization, signUp } from "../../../test/helpers/auth.ts";
import { openTestDatabase, usingPostgres, type TestDatabase } from "../../../test/helpers/db.ts";
import { spawnTillServer, tempDir, type SpawnedServer } from "../../../test/helpers/process.ts";
import { freePort } from "../../../test/helpers/server.ts";
import { waitFor } from "../../../test/helpers/webhook-receiver.ts";

let testDb: TestDatabase | null = null;
const children: SpawnedServer[] = [];
afterAll(async () => {
  for (const c of children) c.child.kill("SIGKILL");
  await testDb?.dispose();
});

interface SessionState {
  id: string;
  status: string;
  orders: number;
  charged: boolean;
}

describe.skipIf(!usingPostgres())("till serve killed during 8 concurrent confirms", () => {
  it("after a restart every session is succeeded with one order or open, none confirmed", {
    timeout: 240_000,
  }, async () => {
    testDb = await openTestDatabase();
    const rows = <T>(query: ReturnType<typeof sql>) => testDb!.database.rows<T>(query);
    const cwd = tempDir("till-checkout-crash-");
    const port = await freePort();
    const env: Record<string, string> = {
      AUTH_SECRET: "k".repeat(40),
      TILL_MODE: "sandbox",
      AUTH_REQUIRE_EMAIL_VERIFICATION: "false",
      AUTH_RATE_LIMIT: "false",
      LOG_LEVEL: "warn",
      TILL_DATA_DIR: `${cwd}/data`,
      PORT: String(port),
      BASE_URL: `http://localhost:${port}`,
      DATABASE_URL: testDb.url!,
      // A confirm takes milliseconds; two seconds without news means its process is gone.
      PAYMENTS_RECONCILE_AFTER_SECONDS: "2",
    };
    const first = await spawnTillServer("serve", env, cwd);
    children.push(first);
    const user = await signUp(first.url);
    const org = await createOrganization(first.url, user);
    const token = await createAccessToken(first.url, user, org.id, [
      "products:write",
      "checkouts:write",
    ]);
    const polar = new Polar({ accessToken: token, serverURL: first.url });
    const product = await polar.products.create({
      name: "Pro",
      recurringInterval: "month",
      prices: [{ amountType: "fixed", priceAmount: 1500, priceCurrency: "usd" }],
    });
    const sessions = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        polar.checkouts.create({
          products: [product.id],
          customerEmail: `crash${i}@example.com`,
          customerBillingAddress: { country: "DE" },
        }),
      ),
    );

    const confirms = sessions.map((s) =>
      fetch(`${first.url}/v1/checkouts/client/${s.clientSecret}/confirm`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ confirmation_token_id: "sandbox_token_success" }),
      }).then(
        (r) => r.status,
        () => "killed" as const,
      ),
    );
    // Kill the moment the processor has charged someone (polled without pause: fulfilment takes
    // only milliseconds).
    const deadline = Date.now() + 30_000;
    for (;;) {
      const [row] = await rows<{ n: number }>(sql`select count(*)::int as n from sandbox_charges`);
      if (row!.n > 0) break;
      if (Date.now() > deadline) throw new Error("no charge within 30 s");
    }
    first.child.kill("SIGKILL");
    await first.child;
    const answered = await Promise.all(confirms);

    const state = async (): Promise<SessionState[]> =>
      rows<SessionState>(sql`
        select c.id, c.status,
          (select count(*)::int from orders o where o.checkout_id = c.id) as orders,
          exists (select 1 from sandbox_charges s
                  where s.idempotency_key like c.id || ':%' and s.status = 'succeeded') as charged
        from checkouts c where c.organization_id = ${org.id}`);
    const atKill = await state();
    const interrupted = atKill.filter((s) => s.status === "confirmed");
    console.log(
      `at the kill: ${atKill.filter((s) => s.status === "succeeded").length} succeeded, ${interrupted.length} confirmed (${interrupted.filter((s) => s.charged).length} of them charged), ${atKill.filter((s) => s.status === "open").length} open; answers ${JSON.stringify(answered)}`,
    );
    // The kill came after a charge and before its fulfilment finished.
    expect(interrupted.filter((s) => s.charged).length).toBeGreaterThanOrEqual(1);

    const second = await spawnTillServer("serve", env, cwd);
    children.push(second);
    const restartedAt = Date.now();
    await waitFor(
      async () => (await state()).every((s) => s.status !== "confirmed"),
      120_000,
      "no session left confirmed",
    );
    console.log(`resolved ${Date.now() - restartedAt} ms after the restart`);
    for (const s of await state()) {
      if (s.status === "succeeded") expect(s).toMatchObject({ orders: 1, charged: true });
      else expect(s).toMatchObject({ status: "open", orders: 0, charged: false });
    }
    // Every session the processor charged has its order.
    const after = await state();
    expect(after.filter((s) => s.charged).every((s) => s.orders === 1)).toBe(true);
    second.child.kill("SIGTERM");
    await second.child;
  });
});
