// Invoices and receipts through the public API: orders are numbered per customer (or, when the
// seller chooses, per organization) without gaps or duplicates however many are paid at once; an
// invoice is generated from any order but a draft or a void one (as Polar) with its billing
// details (which then freeze) and fetched as a PDF by a signed URL; a receipt is numbered on first
// request; the customer reaches only their own orders' documents in the portal.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { api } from "../../../test/helpers/auth.ts";
import { eventually } from "../../../test/helpers/grants.ts";
import {
  advance,
  billingSeller,
  monthlyProduct,
  ordersOf,
  setOrganizationSettings,
  subscribe,
  subscriptionOf,
  type BillingSeller,
} from "../../../test/helpers/billing.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { openMailLink } from "../../../test/helpers/browser.ts";
import { pdfText } from "../../../test/helpers/pdf.ts";

let t: TestServer;
let s: BillingSeller;
let productId: string;
const ADDRESS = {
  line1: "1 Main Street",
  line2: null,
  postal_code: "10001",
  city: "New York",
  state: "US-NY",
  country: "US",
};

beforeAll(async () => {
  t = await startTestServer();
  s = await billingSeller(t);
  productId = (
    await s.polar.products.create({
      name: "Handbook",
      prices: [{ amountType: "fixed", priceAmount: 4900, priceCurrency: "usd" }],
    })
  ).id;
});
afterAll(() => t?.stop());

async function buy(email: string, name: string | null = "Ada Lovelace", product = productId) {
  const c = await s.call("/v1/checkouts/", {
    body: {
      products: [product],
      customer_email: email,
      ...(name ? { customer_name: name } : {}),
      customer_billing_address: ADDRESS,
    },
  });
  const done = await api(t.url, `/v1/checkouts/client/${c.body.client_secret}/confirm`, {
    body: { confirmation_token_id: "sandbox_token_success" },
  });
  expect(done.status).toBe(200);
  const orders = await s.call(`/v1/orders/?checkout_id=${c.body.id}`);
  return orders.body.items[0] as Record<string, any>;
}

/** The PDF and the text its content streams draw. */
const pdfAt = async (url: string) => {
  const res = await fetch(url);
  const pdf = Buffer.from(await res.arrayBuffer());
  const body = pdf.toString("latin1");
  return { status: res.status, type: res.headers.get("content-type"), body, text: pdfText(pdf) };
};

describe("invoices and receipts", () => {
  it("numbers each customer's orders in their own series, gapless however many are paid at once", async () => {
    const first = await buy("first@example.com");
    expect(first.invoice_number).toMatch(/^[A-Z0-9]+-[A-Z]{8}-0001$/);
    const [prefix, shortId] = first.invoice_number.split("-");
    const again = await Promise.all(Array.from({ length: 12 }, () => buy("first@example.com")));
    const numbers = again.map((o) => o.invoice_number as string);
    for (const n of numbers) expect(n.startsWith(`${prefix}-${shortId}-`)).toBe(true);
    expect(numbers.map((n) => Number(n.split("-")[2])).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 12 }, (_, i) => i + 2),
    );
    // Other customers start their own series at 0001, under their own short ids.
    const others = await Promise.all(
      Array.from({ length: 8 }, (_, i) => buy(`other${i}@example.com`)),
    );
    const ids = others.map((o) => {
      const [p, id, n] = o.invoice_number.split("-");
      expect([p, n]).toEqual([prefix, "0001"]);
      return id;
    });
    expect(new Set([shortId, ...ids]).size).toBe(9);
  });

  it("numbers orders per organization when the seller chooses one series", async () => {
    const set = await setOrganizationSettings(t.url, s, "order_settings", {
      invoice_numbering: "organization",
    });
    expect(set).toEqual({ invoice_numbering: "organization" });
    const first = await buy("series@example.com");
    expect(first.invoice_number).toMatch(/^[A-Z0-9]+-\d{4}$/);
    const [prefix, n] = first.invoice_number.split("-");
    const orders = await Promise.all(
      Array.from({ length: 20 }, (_, i) => buy(`many${i}@example.com`)),
    );
    const numbers = orders.map((o) => Number(o.invoice_number.split("-")[1])).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 20 }, (_, i) => Number(n) + 1 + i));
    for (const o of orders) expect(o.invoice_number.startsWith(`${prefix}-`)).toBe(true);
    const bad = await s.call(`/v1/organizations/${s.organizationId}`, {
      method: "PATCH",
      body: { order_settings: { invoice_numbering: "yearly" } },
    });
    expect(bad.status).toBe(422);
    await setOrganizationSettings(t.url, s, "order_settings", { invoice_numbering: "customer" });
  });

  it("generates the invoice once from a paid order, then its billing details are frozen", async () => {
    const order = await buy("invoice@example.com");
    expect(order.is_invoice_generated).toBe(false);
    expect((await s.call(`/v1/orders/${order.id}/invoice`)).status).toBe(404);

    const patched = await s.call(`/v1/orders/${order.id}`, {
      method: "PATCH",
      body: {
        billing_name: "Analytical Engines Ltd",
        billing_address: { ...ADDRESS, line2: "Floor 2" },
      },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      billing_name: "Analytical Engines Ltd",
      billing_address: { line2: "Floor 2", country: "US" },
    });
    const moved = await s.call(`/v1/orders/${order.id}`, {
      method: "PATCH",
      body: { billing_address: { ...ADDRESS, country: "FR", state: null } },
    });
    expect(moved.status).toBe(422);

    const generated = await s.call(`/v1/orders/${order.id}/invoice`, { method: "POST" });
    expect(generated.status).toBe(202);
    expect((await s.call(`/v1/orders/${order.id}`)).body.is_invoice_generated).toBe(true);
    const { body } = await s.call(`/v1/orders/${order.id}/invoice`);
    const pdf = await pdfAt(body.url);
    expect(pdf).toMatchObject({ status: 200, type: "application/pdf" });
    expect(pdf.body.startsWith("%PDF-")).toBe(true);
    expect(pdf.text).toContain(order.invoice_number);
    expect(pdf.text).toContain("Analytical Engines Ltd");
    expect(pdf.text).toContain("$49.00");

    const late = await s.call(`/v1/orders/${order.id}`, {
      method: "PATCH",
      body: { billing_name: "Someone else" },
    });
    expect(late.status).toBe(422);
    // Generating again changes nothing; a forged or altered link gets nothing.
    expect((await s.call(`/v1/orders/${order.id}/invoice`, { method: "POST" })).status).toBe(202);
    const forged = body.url.replace(/signature=[^&]+/, "signature=AAAA");
    expect((await pdfAt(forged)).status).toBe(404);
    const other = body.url.replace("/invoice.pdf", "/receipt.pdf");
    expect((await pdfAt(other)).status).toBe(404);
  });

  it("an invoice asked for several times at once is made once", async () => {
    const order = await buy("racing@example.com");
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => s.call(`/v1/orders/${order.id}/invoice`, { method: "POST" })),
    );
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202, 202, 202, 202]);
    const { body } = await s.call(`/v1/orders/${order.id}/invoice`);
    expect((await pdfAt(body.url)).text).toContain(order.invoice_number);
    const [events] = await t.server.database.rows<{ n: number }>(
      sql`select count(*)::int as n from webhook_events where type = 'order.updated' and payload->'data'->>'id' = ${order.id}`,
    );
    expect(events!.n).toBe(1);
  });

  it("refuses an invoice without a billing name", async () => {
    const order = await buy("nameless@example.com", null);
    const res = await s.call(`/v1/orders/${order.id}/invoice`, { method: "POST" });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe("MissingInvoiceBillingDetails");
  });

  it("numbers a receipt on first request and serves the same one after", async () => {
    const order = await buy("receipt@example.com");
    expect(order.receipt_number).toBeNull();
    const a = await s.call(`/v1/orders/${order.id}/receipt`);
    expect(a.status).toBe(200);
    const numbered = (await s.call(`/v1/orders/${order.id}`)).body.receipt_number as string;
    expect(numbered).toMatch(/^[A-Z0-9]+-[A-Z]{8}-R\d{4}$/);
    // The customer's receipts are their own series, under the short id of their invoices.
    expect(numbered).toBe(order.invoice_number.replace(/-\d{4}$/, "-R0001"));
    const b = await s.call(`/v1/orders/${order.id}/receipt`);
    expect((await s.call(`/v1/orders/${order.id}`)).body.receipt_number).toBe(numbered);
    const pdf = await pdfAt(b.body.url);
    expect(pdf.text).toContain(numbered);
    expect(pdf.text).toContain("Amount paid");
  });

  it("emails a receipt after the payment and after a refund", async () => {
    const order = await buy("mailed@example.com");
    const mails = () =>
      t.server.database.rows<{ kind: string; subject: string; text: string; link: string }>(
        sql`select kind, subject, text, link from email_outbox where "to" = 'mailed@example.com' order by created_at`,
      );
    const receipt = await eventually(
      async () => (await mails()).find((m) => m.kind === "receipt"),
      10_000,
      "receipt mail",
    );
    expect(receipt.text).toContain(order.invoice_number);
    expect(receipt.text).toContain("$49.00");
    // Its link opens the buyer's portal, signed in, where the order's invoice is.
    const token = new URL(openMailLink(receipt.link)).searchParams.get("customer_session_token");
    const mine = await api(t.url, "/v1/customer-portal/orders/", { token: token! });
    expect(mine.status).toBe(200);
    expect(mine.body.items.map((o: { id: string }) => o.id)).toEqual([order.id]);
    const refund = await s.call("/v1/refunds/", {
      body: { order_id: order.id, reason: "customer_request", amount: 1000 },
    });
    expect(refund.status).toBe(201);
    const refunded = await eventually(
      async () => (await mails()).find((m) => m.kind === "refund-receipt"),
      10_000,
      "refund mail",
    );
    expect(refunded.text).toContain("$10.00");
    expect((await mails()).filter((m) => m.kind === "receipt")).toHaveLength(1);
  });

  it("a yen order's receipt mail and invoice show whole yen", async () => {
    const yen = await s.polar.products.create({
      name: "Sketchbook",
      prices: [{ amountType: "fixed", priceAmount: 1500, priceCurrency: "jpy" }],
    });
    const order = await buy("yen@example.com", "Ada Lovelace", yen.id);
    expect(order).toMatchObject({ currency: "jpy", total_amount: 1500 });
    const receipt = await eventually(
      async () =>
        (
          await t.server.database.rows<{ text: string }>(
            sql`select text from email_outbox where "to" = 'yen@example.com' and kind = 'receipt'`,
          )
        )[0],
      10_000,
      "receipt mail",
    );
    expect(receipt.text).toContain("¥1,500");
    expect((await s.call(`/v1/orders/${order.id}/invoice`, { method: "POST" })).status).toBe(202);
    const { body } = await s.call(`/v1/orders/${order.id}/invoice`);
    const pdf = await pdfAt(body.url);
    expect(pdf.text).toContain("¥1,500");
    expect(pdf.text).not.toContain("¥15.00");
  });

  it("the portal reaches the customer's own orders only", async () => {
    const mine = await buy("portal@example.com");
    const theirs = await buy("stranger@example.com");
    const session = await s.call("/v1/customer-sessions/", {
      body: { customer_id: mine.customer_id },
    });
    const portal = (path: string, init: { method?: string; body?: unknown } = {}) =>
      api(t.url, `/v1/customer-portal/orders/${path}`, { ...init, token: session.body.token });
    expect((await portal(`${mine.id}/receipt`)).status).toBe(200);
    expect((await portal(`${theirs.id}/receipt`)).status).toBe(404);
    expect((await portal(`${theirs.id}/invoice`, { method: "POST" })).status).toBe(404);
    const renamed = await portal(mine.id, { method: "PATCH", body: { billing_name: "Ada L." } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.billing_name).toBe("Ada L.");
    expect((await portal(theirs.id, { method: "PATCH", body: { billing_name: "X" } })).status).toBe(
      404,
    );
    expect((await portal(`${mine.id}/invoice`, { method: "POST" })).status).toBe(202);
    const url = (await portal(`${mine.id}/invoice`)).body.url as string;
    expect((await pdfAt(url)).text).toContain("Ada L.");
  });

  it("dates the invoice on the order's day, on the organization's clock", async () => {
    await advance(s, { seconds: 40 * 86_400 });
    const order = await buy("dated@example.com");
    expect(Date.parse(order.created_at) - Date.now()).toBeGreaterThan(39 * 86_400_000);
    expect((await s.call(`/v1/orders/${order.id}/invoice`, { method: "POST" })).status).toBe(202);
    const { body } = await s.call(`/v1/orders/${order.id}/invoice`);
    expect((await pdfAt(body.url)).text).toContain(`Date: ${order.created_at.slice(0, 10)}`);
  });

  it("invoices a pending renewal as Polar does, and refuses a draft and missing details with Polar's errors", async () => {
    const plan = await monthlyProduct(s, "Monthly handbook", 1500);
    const { subscriptionId } = await subscribe(s, plan.id, "sandbox_token_renewal_declined");
    await advance(s, { to: (await subscriptionOf(s, subscriptionId)).current_period_end });
    const renewal = (await ordersOf(s, subscriptionId)).find(
      (o) => o.billing_reason === "subscription_cycle",
    )!;
    expect(renewal.status).toBe("pending");
    const generate = (id: string) => s.call(`/v1/orders/${id}/invoice`, { method: "POST" });
    // Bought without a name: refused, and nothing is made, until the order has one.
    const nameless = await generate(renewal.id);
    expect(nameless.status).toBe(422);
    expect(nameless.body).toEqual({
      error: "MissingInvoiceBillingDetails",
      detail: "Billing name and address are required to generate an invoice for this order.",
    });
    expect((await s.call(`/v1/orders/${renewal.id}`)).body.is_invoice_generated).toBe(false);
    const named = await s.call(`/v1/orders/${renewal.id}`, {
      method: "PATCH",
      body: { billing_name: "Late Payer Ltd" },
    });
    expect(named.status).toBe(200);
    expect((await generate(renewal.id)).status).toBe(202);
    const { body } = await s.call(`/v1/orders/${renewal.id}/invoice`);
    expect((await pdfAt(body.url)).text).toContain("Late Payer Ltd");

    // A draft order (off-session charges on, as drafts need).
    await s.call(`/v1/organizations/${s.organizationId}`, {
      method: "PATCH",
      body: { feature_settings: { off_session_charges_enabled: true } },
    });
    const draft = await s.call("/v1/orders/", {
      body: { customer_id: renewal.customer_id, product_id: productId },
    });
    expect(draft.status).toBe(201);
    const refused = await generate(draft.body.id);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      error: "OrderNotEligibleForInvoice",
      detail: `Order ${draft.body.id} is not eligible for invoice generation (current status: draft).`,
    });
    // The customer does not see the seller's draft yet: the portal's document routes 404 as GET.
    const session = await s.call("/v1/customer-sessions/", {
      body: { customer_id: renewal.customer_id },
    });
    const portal = (path: string, method = "GET") =>
      api(t.url, `/v1/customer-portal/orders/${draft.body.id}${path}`, {
        method,
        token: session.body.token,
      });
    for (const [path, method] of [
      ["", "GET"],
      ["/receipt", "GET"],
      ["/invoice", "GET"],
      ["/invoice", "POST"],
    ] as const)
      expect((await portal(path, method)).status).toBe(404);
  });
});
