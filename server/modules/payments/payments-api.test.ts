// Polar's payments API through its official client: every attempt of a checkout, declined or paid,
// with its method and decline reason, scoped to the caller's organization.
import { Polar } from "@polar-sh/sdk";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { US_ADDRESS_SDK } from "../../../test/helpers/addresses.ts";

let t: TestServer;
let polar: Polar;
let other: Polar;
let otherToken: string;
let sellerToken: string;
let organizationId: string;

beforeAll(async () => {
  t = await startTestServer({ worker: false });
  const scopes = ["products:write", "checkouts:write", "payments:read", "orders:read"];
  const seller = await createSeller(t.url, scopes);
  organizationId = seller.organization.id;
  sellerToken = seller.token;
  polar = new Polar({ accessToken: seller.token, serverURL: t.url });
  const second = await createSeller(t.url, scopes);
  otherToken = second.token;
  other = new Polar({ accessToken: second.token, serverURL: t.url });
});
afterAll(() => t.stop());

async function confirm(secret: string, token: string) {
  return fetch(`${t.url}/v1/checkouts/client/${secret}/confirm`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ confirmation_token_id: token }),
  });
}

describe("payments API", () => {
  it("lists a checkout's declined and paid attempts and reads each one", async () => {
    const product = await polar.products.create({
      name: "Pro",
      prices: [{ amountType: "fixed", priceAmount: 2500, priceCurrency: "usd" }],
    });
    const checkout = await polar.checkouts.create({
      products: [product.id],
      customerEmail: "payer@example.com",
      customerBillingAddress: US_ADDRESS_SDK,
    });
    expect((await confirm(checkout.clientSecret, "sandbox_token_insufficient_funds")).status).toBe(
      400,
    );
    expect((await confirm(checkout.clientSecret, "sandbox_token_success")).status).toBe(200);
    const [order] = await t.server.database.rows<{ id: string }>(
      sql`select id from orders where checkout_id = ${checkout.id}`,
    );

    const page = await polar.payments.list({ checkoutId: checkout.id, sorting: ["created_at"] });
    const items = page.result.items;
    expect(page.result.pagination.totalCount).toBe(2);
    expect(items.map((p) => [p.status, p.declineReason])).toEqual([
      ["failed", "insufficient_funds"],
      ["succeeded", null],
    ]);
    expect(items[0]).toMatchObject({
      amount: 2500,
      currency: "usd",
      method: "card",
      declineMessage: "Your card has insufficient funds.",
      organizationId,
      checkoutId: checkout.id,
      orderId: null,
    });
    expect(items[1]).toMatchObject({
      orderId: order!.id,
      methodMetadata: { brand: "visa", last4: "4242" },
    });
    const one = await polar.payments.get({ id: items[1]!.id });
    expect(one).toEqual(items[1]);
    const raw = await api(t.url, `/v1/payments/${items[0]!.id}`, { token: sellerToken });
    expect(raw.body).toMatchObject({ trigger: "purchase", processor: "stripe" });
    expect(raw.body.processor_metadata).toEqual({ processor: "sandbox" });
    const failed = await polar.payments.list({ status: "failed", checkoutId: checkout.id });
    expect(failed.result.items.map((p) => p.id)).toEqual([items[0]!.id]);
    const byEmail = await polar.payments.list({ customerEmail: "payer@example.com" });
    expect(byEmail.result.items.map((p) => p.id)).toEqual([items[1]!.id]);

    // Another organization sees none of it.
    expect((await other.payments.list({})).result.items).toEqual([]);
    const hidden = await api(t.url, `/v1/payments/${items[1]!.id}`, { token: otherToken });
    expect(hidden.status).toBe(404);
    expect(hidden.body.error).toBe("ResourceNotFound");
    const bad = await api(t.url, "/v1/payments/not-a-uuid", { token: otherToken });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(["path", "id"]);
  });
});
