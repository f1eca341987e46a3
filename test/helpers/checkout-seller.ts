// The seller of the checkout rules suites, on a server with German VAT, and the calls they make:
// products and sessions with its token, and the client endpoints with a session's secret. Each
// suite file gets its own.
import type { SQL } from "drizzle-orm";
import { afterAll, beforeAll, expect } from "vitest";
import { api, createSeller } from "./auth.ts";
import { startTestServer, type TestServer } from "./server.ts";

export const SCOPES = [
  "products:write",
  "checkouts:write",
  "discounts:write",
  "orders:read",
  "custom_fields:write",
  "meters:write",
];
export let t: TestServer;
export let token: string;

/** Registers the suite's server and seller. */
export function withCheckoutSeller(): void {
  beforeAll(async () => {
    t = await startTestServer({ env: { TAX_RATES: "DE:1900" } });
    token = (await createSeller(t.url, SCOPES)).token;
  });
  afterAll(() => t.stop());
}

/** A POST with the seller's token. */
export const post = (path: string, body: unknown) => api(t.url, path, { token, body });
/** A client endpoint of the session with `secret`, called as the checkout page calls it. */
export const client = (secret: string, path = "", body?: unknown, method?: string) =>
  api(t.url, `/v1/checkouts/client/${secret}${path}`, {
    ...(body !== undefined ? { body } : {}),
    ...(method ? { method } : {}),
  });

/** A product named Thing, $20 once unless `prices` say otherwise; answers it as created. */
export async function product(
  prices: unknown[] = [{ amount_type: "fixed", price_amount: 2000, price_currency: "usd" }],
  extra: Record<string, unknown> = {},
) {
  const res = await post("/v1/products/", { name: "Thing", prices, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; prices: { id: string }[] };
}

/** A session of the seller's; answers it as created. */
export async function checkout(body: Record<string, unknown>) {
  const res = await post("/v1/checkouts/", body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as {
    id: string;
    client_secret: string;
    total_amount: number;
    amount: number;
    discount_amount: number;
    tax_amount: number | null;
    net_amount: number;
  };
}

/** The number one row of `query` answers as `n`. */
export async function count(query: SQL): Promise<number> {
  const [row] = await t.server.database.rows<{ n: number }>(query);
  return Number(row!.n);
}
