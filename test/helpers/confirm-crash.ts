// What the confirm fault tests share: real `till` processes on one PostgreSQL database, a seller
// with a monthly product and open checkouts, confirms fired at a server, the moment the sandbox
// processor first charges, and each session's state read straight from the database.
import { Polar } from "@polar-sh/sdk";
import { sql } from "drizzle-orm";
import { createAccessToken, createOrganization, signUp } from "./auth.ts";
import type { TestDatabase } from "./db.ts";

export interface SessionState {
  id: string;
  status: string;
  orders: number;
  charged: boolean;
}

export function crashEnv(testDb: TestDatabase, dataDir: string): Record<string, string> {
  return {
    AUTH_SECRET: "k".repeat(40),
    TILL_MODE: "sandbox",
    AUTH_REQUIRE_EMAIL_VERIFICATION: "false",
    AUTH_RATE_LIMIT: "false",
    LOG_LEVEL: "warn",
    TILL_DATA_DIR: dataDir,
    DATABASE_URL: testDb.url!,
    // A confirm takes milliseconds; two seconds without news means its process is gone.
    PAYMENTS_RECONCILE_AFTER_SECONDS: "2",
  };
}

/** A seller with a monthly product and `count` open checkouts (client secrets and ids). */
export async function openCheckouts(baseUrl: string, count: number) {
  const user = await signUp(baseUrl);
  const org = await createOrganization(baseUrl, user);
  const token = await createAccessToken(baseUrl, user, org.id, [
    "products:write",
    "checkouts:write",
  ]);
  const polar = new Polar({ accessToken: token, serverURL: baseUrl });
  const product = await polar.products.create({
    name: "Pro",
    recurringInterval: "month",
    prices: [{ amountType: "fixed", priceAmount: 1500, priceCurrency: "usd" }],
  });
  const sessions = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      polar.checkouts.create({
        products: [product.id],
        customerEmail: `crash${i}@example.com`,
        customerBillingAddress: { country: "DE" },
      }),
    ),
  );
  return { organizationId: org.id, sessions };
}

/** Confirms with the sandbox's success token; the status, or "killed" when the server died. */
export function confirm(baseUrl: string, clientSecret: string): Promise<number | "killed"> {
  return fetch(`${baseUrl}/v1/checkouts/client/${clientSecret}/confirm`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ confirmation_token_id: "sandbox_token_success" }),
  }).then(
    (r) => r.status,
    () => "killed" as const,
  );
}

/** Returns once the processor has charged one of `checkoutIds` (polled without pause). */
export async function firstCharge(testDb: TestDatabase, checkoutIds: string[]): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const [row] = await testDb.database.rows<{ n: number }>(sql`
      select count(*)::int as n from sandbox_charges
      where split_part(idempotency_key, ':', 1) in (${sql.join(
        checkoutIds.map((id) => sql`${id}`),
        sql`, `,
      )})`);
    if (row!.n > 0) return;
    if (Date.now() > deadline) throw new Error("no charge within 30 s");
  }
}

export function sessionStates(testDb: TestDatabase, organizationId: string) {
  return testDb.database.rows<SessionState>(sql`
    select c.id, c.status,
      (select count(*)::int from orders o where o.checkout_id = c.id) as orders,
      exists (select 1 from sandbox_charges s
              where s.idempotency_key like c.id || ':%' and s.status = 'succeeded') as charged
    from checkouts c where c.organization_id = ${organizationId}`);
}
