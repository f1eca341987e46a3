// Helpers for the benefit grant tests: a test server (with its worker) whose Discord and GitHub
// clients point at the local third-party server, a customer's linked Discord/GitHub accounts as
// better-auth's social sign-in stores them, a purchase through Polar's client, and polling.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Polar } from "@polar-sh/sdk";
import { sql } from "drizzle-orm";
import type { Clock } from "../../server/lib/clock.ts";
import { sdkAddressIn } from "./addresses.ts";
import { startTestServer, type TestServer } from "./server.ts";
import type { ThirdPartyServer } from "./third-party.ts";

export async function startGrantsServer(
  third: ThirdPartyServer,
  options: { env?: Record<string, string>; clock?: Clock } = {},
): Promise<TestServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "till-grants-"));
  const t = await startTestServer({
    env: {
      TILL_DATA_DIR: dataDir,
      DISCORD_API_URL: third.discordUrl,
      DISCORD_BOT_TOKEN: third.botToken,
      GITHUB_API_URL: third.githubUrl,
      GITHUB_TOKEN: third.githubToken,
      GRANT_RETRY_DELAY_SECONDS: "1",
      ...options.env,
    },
    ...(options.clock ? { clock: options.clock } : {}),
  });
  return {
    ...t,
    async stop() {
      await t.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A till user with this email who signed in with Discord and GitHub (rows as better-auth writes them). */
export async function linkAccounts(
  t: TestServer,
  email: string,
  accounts: { discord?: string; github?: string },
): Promise<void> {
  const [u] = await t.server.database.rows<{ id: string }>(
    sql`insert into "user" (name, email, email_verified) values ('Buyer', ${email}, true) returning id`,
  );
  if (accounts.discord) {
    await t.server.database.rows(
      sql`insert into account (account_id, provider_id, user_id, access_token, scope, updated_at) values (${accounts.discord}, 'discord', ${u!.id}, 'discord-user-oauth-token', 'identify email guilds.join', now())`,
    );
  }
  if (accounts.github) {
    await t.server.database.rows(
      sql`insert into account (account_id, provider_id, user_id, access_token, scope, updated_at) values (${accounts.github}, 'github', ${u!.id}, 'github-user-oauth-token', 'read:user user:email', now())`,
    );
  }
}

/** Buys the product through the client endpoints with the sandbox success token; returns the order. */
export async function buy(
  polar: Polar,
  organizationId: string,
  productId: string,
  email: string,
  options: { token?: string; country?: string } = {},
) {
  const checkout = await polar.checkouts.create({ products: [productId] });
  await polar.checkouts.clientUpdate({
    clientSecret: checkout.clientSecret,
    checkoutUpdatePublic: {
      customerEmail: email,
      customerName: "Ada Buyer",
      customerBillingAddress: sdkAddressIn(options.country ?? "US"),
    },
  });
  await polar.checkouts.clientConfirm({
    clientSecret: checkout.clientSecret,
    checkoutConfirmStripe: { confirmationTokenId: options.token ?? "sandbox_token_success" },
  });
  const orders = await polar.orders.list({ organizationId, checkoutId: checkout.id });
  return orders.result.items[0]!;
}

/** Polls until check() returns a value (not undefined/false) or the time is up. */
export async function eventually<T>(
  check: () => Promise<T | undefined | false>,
  timeoutMs = 20_000,
  what = "condition",
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ""}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
