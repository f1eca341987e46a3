// The shop of the customer session and portal suites: a seller with a monthly and a one-time
// product, Ada who bought both and Bob who bought the monthly one, through Polar's client, on a
// server with a test clock (sessions expire after an hour). Each suite file gets its own.
import { Polar } from "@polar-sh/sdk";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect } from "vitest";
import { TestClock } from "../../server/lib/clock.ts";
import { api, createSeller } from "./auth.ts";
import { startTestServer, type TestServer } from "./server.ts";
import { US_ADDRESS_SDK } from "./addresses.ts";

const SCOPES = [
  "products:write",
  "checkouts:write",
  "subscriptions:write",
  "customers:write",
  "orders:read",
  "customer_sessions:write",
];
export const clock = new TestClock();
export let t: TestServer;
export let polar: Polar;
export let slug: string;
export let token: string;
export let productId: string;
export let oneTimeProductId: string;
export let ada: { customerId: string; subscriptionId: string; orderId: string };
export let bob: { customerId: string; subscriptionId: string; orderId: string };

async function buy(product: string, email: string, externalId: string) {
  const checkout = await polar.checkouts.create({
    products: [product],
    externalCustomerId: externalId,
  });
  await polar.checkouts.clientUpdate({
    clientSecret: checkout.clientSecret,
    checkoutUpdatePublic: {
      customerEmail: email,
      customerName: email.split("@")[0]!,
      customerBillingAddress: US_ADDRESS_SDK,
    },
  });
  await polar.checkouts.clientConfirm({
    clientSecret: checkout.clientSecret,
    checkoutConfirmStripe: { confirmationTokenId: "sandbox_token_success" },
  });
  const orders = await polar.orders.list({ checkoutId: checkout.id });
  const order = orders.result.items[0]!;
  return {
    customerId: order.customerId,
    subscriptionId: order.subscriptionId ?? "",
    orderId: order.id,
  };
}

export async function session(body: Record<string, unknown>) {
  const res = await api(t.url, "/v1/customer-sessions/", { token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as {
    token: string;
    customer_portal_url: string;
    expires_at: string;
    customer_id: string;
  };
}

export async function sessionCount(): Promise<number> {
  const [row] = await t.server.database.rows<{ n: number }>(
    sql`select count(*)::int as n from customer_sessions`,
  );
  return Number(row!.n);
}

/** Registers the suite's server, seller, products and the two customers' purchases. */
export function withPortalShop(): void {
  beforeAll(async () => {
    t = await startTestServer({ clock, worker: false });
    const seller = await createSeller(t.url, SCOPES);
    slug = seller.organization.slug;
    token = seller.token;
    polar = new Polar({ accessToken: token, serverURL: t.url });
    productId = (
      await polar.products.create({
        name: "Pro",
        recurringInterval: "month",
        prices: [{ amountType: "fixed", priceAmount: 1500, priceCurrency: "usd" }],
      })
    ).id;
    oneTimeProductId = (
      await polar.products.create({
        name: "Ebook",
        prices: [{ amountType: "fixed", priceAmount: 900, priceCurrency: "usd" }],
      })
    ).id;
    ada = await buy(productId, "ada@example.com", "user-ada");
    await buy(oneTimeProductId, "ada@example.com", "user-ada");
    bob = await buy(productId, "bob@example.com", "user-bob");
  });
  afterAll(() => t?.stop());
}
