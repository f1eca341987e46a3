// For the fault tests that run `till serve` as a real process on PostgreSQL: its environment, and a
// seller with one subscription bought through the API (a saved card included), ready to be cloned
// by seedDueSubscriptions.
import { sql } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { US_ADDRESS } from "./addresses.ts";
import { api, createAccessToken, createOrganization, signUp } from "./auth.ts";
import { freePort } from "./server.ts";

/** `till serve`'s environment in `cwd`, on PGlite there unless a database URL is given. */
export async function serveEnv(cwd: string, databaseUrl?: string): Promise<Record<string, string>> {
  const port = await freePort();
  return {
    AUTH_SECRET: "r".repeat(40),
    TILL_MODE: "sandbox",
    AUTH_REQUIRE_EMAIL_VERIFICATION: "false",
    AUTH_RATE_LIMIT: "false",
    LOG_LEVEL: "warn",
    TILL_DATA_DIR: `${cwd}/data`,
    PORT: String(port),
    BASE_URL: `http://localhost:${port}`,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  };
}

/** A seller whose one customer bought a $10 plan of `interval`; answers its ids and token. */
export async function sellerWithSubscription(
  database: Database,
  url: string,
  interval: "day" | "month",
): Promise<{ organizationId: string; token: string; subscriptionId: string }> {
  const user = await signUp(url);
  const org = await createOrganization(url, user);
  const token = await createAccessToken(url, user, org.id, [
    "products:write",
    "checkouts:write",
    "subscriptions:write",
    "orders:read",
  ]);
  const product = await api(url, "/v1/products/", {
    token,
    body: {
      name: "Crash plan",
      recurring_interval: interval,
      prices: [{ amount_type: "fixed", price_amount: 1000, price_currency: "usd" }],
    },
  });
  const checkout = await api(url, "/v1/checkouts/", {
    token,
    body: { products: [product.body.id] },
  });
  const confirmed = await api(url, `/v1/checkouts/client/${checkout.body.client_secret}/confirm`, {
    body: {
      customer_email: "crash@example.com",
      customer_billing_address: US_ADDRESS,
      confirmation_token_id: "sandbox_token_success",
    },
  });
  if (confirmed.status !== 200) throw new Error(`confirm answered ${confirmed.status}`);
  const [bought] = await database.rows<{ id: string }>(
    sql`select id from subscriptions where organization_id = ${org.id}`,
  );
  return { organizationId: org.id, token, subscriptionId: bought!.id };
}
