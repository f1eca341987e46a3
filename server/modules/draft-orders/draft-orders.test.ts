// Draft orders over HTTP on a real database: the feature flag (403 until the organization turns it
// on), a draft made for a customer with a saved card (tax by their country added) and finalized
// into a paid, numbered order with one charge, its payment, its events, receipt and benefit grant;
// a repeated finalize (412, still one charge); a decline and a customer without a card (402, still
// a draft); another organization (404/422, nothing changed); bad input (422, nothing written).
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { type BillingSeller, billingSeller, subscribe } from "../../../test/helpers/billing.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

let t: TestServer;
let s: BillingSeller;
let other: BillingSeller;
let credits: { id: string };
let monthly: { id: string };
let licenseBenefit: { id: string };
let payer: { customerId: string };
let decliner: { customerId: string };

async function ok(res: Awaited<ReturnType<typeof api>>) {
  if (res.status >= 300) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

const enable = (seller: BillingSeller) =>
  seller.call(`/v1/organizations/${seller.organizationId}`, {
    method: "PATCH",
    body: { feature_settings: { off_session_charges_enabled: true } },
  });

const draft = (seller: BillingSeller, body: Record<string, unknown>) =>
  seller.call("/v1/orders/", { body });
const finalize = (seller: BillingSeller, id: string, body: unknown = {}) =>
  seller.call(`/v1/orders/${id}/finalize`, { body });

async function rows<T>(query: ReturnType<typeof sql>) {
  return t.server.database.rows<T & Record<string, unknown>>(query);
}
const chargesOf = (orderId: string) =>
  rows<{ status: string }>(
    sql`select status from sandbox_charges where idempotency_key like ${`order_finalize:${orderId}:%`}`,
  );
const orderCount = async (organizationId: string) =>
  Number(
    (
      await rows<{ n: number }>(
        sql`select count(*)::int as n from orders where organization_id = ${organizationId}`,
      )
    )[0]!.n,
  );

beforeAll(async () => {
  // Subscribers' billing country is US: a draft's tax is added to its amount.
  t = await startTestServer({ worker: false, env: { TAX_RATES: "US:1000" } });
  s = await billingSeller(t);
  other = await billingSeller(t);
  licenseBenefit = await ok(
    await s.call("/v1/benefits/", {
      body: {
        type: "license_keys",
        description: "Key",
        properties: { activations: { limit: 3, enable_customer_admin: true } },
      },
    }),
  );
  credits = await ok(
    await s.call("/v1/products/", {
      body: {
        name: "Credits",
        prices: [{ amount_type: "fixed", price_amount: 2500, price_currency: "usd" }],
      },
    }),
  );
  await ok(
    await s.call(`/v1/products/${credits.id}/benefits`, {
      body: { benefits: [licenseBenefit.id] },
    }),
  );
  monthly = await ok(
    await s.call("/v1/products/", {
      body: {
        name: "Plan",
        recurring_interval: "month",
        prices: [{ amount_type: "fixed", price_amount: 900, price_currency: "usd" }],
      },
    }),
  );
  // A subscription saves the card its checkout used; 0341 declines every later charge.
  payer = await subscribe(s, monthly.id);
  decliner = await subscribe(s, monthly.id, "sandbox_token_renewal_declined");
}, 120_000);
afterAll(() => t.stop());

describe("POST /v1/orders/ and /v1/orders/{id}/finalize", () => {
  it("are refused with 403 OffSessionChargesNotEnabled until the organization turns them on", async () => {
    const before = await orderCount(s.organizationId);
    const res = await draft(s, { customer_id: payer.customerId, product_id: credits.id });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe("OffSessionChargesNotEnabled");
    expect(await orderCount(s.organizationId)).toBe(before);
    const org = await ok(await enable(s));
    expect(org.feature_settings.off_session_charges_enabled).toBe(true);
    await ok(await enable(other));
  });

  it("a draft is finalized into a paid, numbered order with one charge, events and grants", async () => {
    const created = await draft(s, {
      customer_id: payer.customerId,
      product_id: credits.id,
      description: "5,000 tokens",
      metadata: { source: "api" },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      status: "draft",
      paid: false,
      invoice_number: null,
      subtotal_amount: 2500,
      net_amount: 2500,
      tax_amount: 250,
      total_amount: 2750,
      due_amount: 2750,
      currency: "usd",
      billing_reason: "purchase",
      customer_id: payer.customerId,
      product_id: credits.id,
      metadata: { source: "api" },
    });
    expect(created.body.items).toMatchObject([
      { label: "5,000 tokens", amount: 2500, tax_amount: 250 },
    ]);
    const id = created.body.id as string;

    const paid = await finalize(s, id);
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ id, status: "paid", paid: true, due_amount: 2750 });
    expect(paid.body.invoice_number).toMatch(/-\d{4}$/);
    expect(await chargesOf(id)).toEqual([{ status: "succeeded" }]);

    const payments = await ok(await s.call(`/v1/payments/?order_id=${id}`));
    expect(payments.items).toMatchObject([{ status: "succeeded", amount: 2750, order_id: id }]);
    const events = await rows<{ type: string }>(
      sql`select type from webhook_events where payload->'data'->>'id' = ${id} order by seq`,
    );
    expect(events.map((e) => e.type)).toEqual(["order.created", "order.updated", "order.paid"]);
    const grants = await rows<{ benefit_id: string }>(
      sql`select benefit_id from benefit_grants where order_id = ${id}`,
    );
    expect(grants).toEqual([{ benefit_id: licenseBenefit.id }]);
    // The receipt is mailed as for any paid order: its job was queued with the payment.
    const receipts = await rows<{ n: number }>(
      sql`select count(*)::int as n from pgboss.job where name = 'invoices.receipt-mail' and data->>'orderId' = ${id}`,
    );
    expect(receipts[0]!.n).toBe(1);

    // Finalizing again is a 412 and charges nothing more.
    const again = await finalize(s, id);
    expect(again.status).toBe(412);
    expect(again.body.error).toBe("OrderNotDraft");
    expect(await chargesOf(id)).toHaveLength(1);
    expect((await ok(await s.call(`/v1/orders/${id}`))).invoice_number).toBe(
      paid.body.invoice_number,
    );
  });

  it("a decline is a 402 PaymentFailed and leaves the order an unpaid draft", async () => {
    const created = await ok(
      await draft(s, { customer_id: decliner.customerId, product_id: credits.id, amount: 700 }),
    );
    const res = await finalize(s, created.id);
    expect(res.status).toBe(402);
    expect(res.body).toEqual({ error: "PaymentFailed", detail: expect.any(String) });
    const read = await ok(await s.call(`/v1/orders/${created.id}`));
    expect(read).toMatchObject({ status: "draft", paid: false, invoice_number: null });
    const payments = await ok(await s.call(`/v1/payments/?order_id=${created.id}`));
    expect(payments.items).toMatchObject([{ status: "failed", decline_reason: "card_declined" }]);
    const events = await rows<{ type: string }>(
      sql`select type from webhook_events where payload->'data'->>'id' = ${created.id}`,
    );
    expect(events.map((e) => e.type)).toEqual(["order.created"]);
  });

  it("the customer's portal shows no draft until it is finalized", async () => {
    const created = await ok(
      await draft(s, { customer_id: payer.customerId, product_id: credits.id, amount: 800 }),
    );
    const session = await ok(
      await s.call("/v1/customer-sessions/", { body: { customer_id: payer.customerId } }),
    );
    const portal = (path: string) => api(t.url, path, { token: session.token });
    const listed = await ok(await portal("/v1/customer-portal/orders/?limit=100"));
    expect(listed.items.map((o: { id: string }) => o.id)).not.toContain(created.id);
    expect((await portal(`/v1/customer-portal/orders/${created.id}`)).status).toBe(404);
    expect((await finalize(s, created.id)).status).toBe(200);
    const after = await ok(await portal("/v1/customer-portal/orders/?limit=100"));
    expect(after.items.map((o: { id: string }) => o.id)).toContain(created.id);
    expect((await portal(`/v1/customer-portal/orders/${created.id}`)).status).toBe(200);
  });

  it("a customer without a saved card gets 402 and nothing changes", async () => {
    const customer = await ok(
      await s.call("/v1/customers/", { body: { email: "nocard@example.com" } }),
    );
    const created = await ok(await draft(s, { customer_id: customer.id, product_id: credits.id }));
    const res = await finalize(s, created.id);
    expect(res.status).toBe(402);
    expect(res.body.error).toBe("PaymentFailed");
    const [row] = await rows<{ payment_attempts: number; finalizing_at: Date | null }>(
      sql`select payment_attempts, finalizing_at from orders where id = ${created.id}`,
    );
    expect(row).toMatchObject({ payment_attempts: 0, finalizing_at: null });
  });

  it("a free product's draft is paid without a charge", async () => {
    const free = await ok(
      await s.call("/v1/products/", {
        body: { name: "Gift", prices: [{ amount_type: "free" }] },
      }),
    );
    const created = await ok(
      await draft(s, { customer_id: payer.customerId, product_id: free.id }),
    );
    expect(created.total_amount).toBe(0);
    const paid = await ok(await finalize(s, created.id));
    expect(paid).toMatchObject({ status: "paid", total_amount: 0 });
    expect(await chargesOf(created.id)).toEqual([]);
  });

  it("another organization's orders, customers and products are not found", async () => {
    const mine = await ok(
      await draft(s, { customer_id: payer.customerId, product_id: credits.id }),
    );
    const before = await ok(await s.call(`/v1/orders/${mine.id}`));
    const res = await finalize(other, mine.id);
    expect(res.status).toBe(404);
    expect(res.body.error).toBe("ResourceNotFound");
    expect(await chargesOf(mine.id)).toEqual([]);
    expect(await ok(await s.call(`/v1/orders/${mine.id}`))).toEqual(before);

    const theirs = await draft(other, { customer_id: payer.customerId, product_id: credits.id });
    expect(theirs.status).toBe(422);
    expect(theirs.body.detail[0].loc).toEqual(["body", "customer_id"]);
    const named = await draft(other, {
      organization_id: s.organizationId,
      customer_id: payer.customerId,
      product_id: credits.id,
    });
    expect(named.status).toBe(422);
  });

  it("bad input is a 422 and writes nothing; a missing scope is a 403", async () => {
    const before = await orderCount(s.organizationId);
    const good = { customer_id: payer.customerId, product_id: credits.id };
    for (const [body, loc] of [
      [{ ...good, amount: -1 }, ["body", "amount"]],
      [{ ...good, amount: 10 }, ["body", "amount"]],
      [{ ...good, customer_id: "nope" }, ["body", "customer_id"]],
      [{ customer_id: payer.customerId }, ["body", "product_id"]],
      [{ ...good, product_id: monthly.id }, ["body", "product_id"]],
      [{ ...good, currency: "eur" }, ["body", "product_id"]],
      [{ ...good, description: "x".repeat(501) }, ["body", "description"]],
    ] as const) {
      const res = await draft(s, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error).toBe("RequestValidationError");
      expect(res.body.detail[0].loc).toEqual(loc);
    }
    expect(await orderCount(s.organizationId)).toBe(before);

    const created = await ok(await draft(s, good));
    const badMethod = await finalize(s, created.id, { payment_method_id: "nope" });
    expect(badMethod.status).toBe(422);
    const unknownMethod = await finalize(s, created.id, {
      payment_method_id: "00000000-0000-4000-8000-000000000000",
    });
    expect(unknownMethod.status).toBe(422);
    expect(unknownMethod.body.detail[0].loc).toEqual(["body", "payment_method_id"]);
    expect(await chargesOf(created.id)).toEqual([]);
    expect((await finalize(s, "00000000-0000-4000-8000-000000000000")).status).toBe(404);
    expect((await finalize(s, "not-a-uuid")).status).toBe(422);

    const narrow = await createSeller(t.url, ["orders:read"]);
    const refused = await api(t.url, "/v1/orders/", { token: narrow.token, body: good });
    expect(refused.status).toBe(403);
    expect((await api(t.url, "/v1/orders/", { body: good })).status).toBe(401);
  });
});

describe("custom_field_data of a draft order", () => {
  it("is checked against the product's attached fields; required ones are not enforced yet", async () => {
    await ok(await enable(s));
    const field = await ok(
      await s.call("/v1/custom-fields/", {
        body: { type: "number", slug: "seats", name: "Seats", properties: { le: 10 } },
      }),
    );
    const product = await ok(
      await s.call("/v1/products/", {
        body: {
          name: "Seated",
          prices: [{ amount_type: "fixed", price_amount: 2500, price_currency: "usd" }],
          attached_custom_fields: [{ custom_field_id: field.id, required: true }],
        },
      }),
    );
    const good = { customer_id: payer.customerId, product_id: product.id };
    const before = await orderCount(s.organizationId);
    for (const [data, type] of [
      [{ seats: "many" }, "int_type"],
      [{ seats: 11 }, "less_than_equal"],
      [{ seats: 2.5 }, "int_from_float"],
    ] as const) {
      const res = await draft(s, { ...good, custom_field_data: data });
      expect(res.status, JSON.stringify(data)).toBe(422);
      expect(res.body.detail).toMatchObject([
        { loc: ["body", "custom_field_data", "seats"], type },
      ]);
    }
    const unknown = await draft(s, { ...good, custom_field_data: { colour: "red" } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail).toMatchObject([
      { loc: ["body", "custom_field_data", "colour"], type: "extra_forbidden" },
    ]);
    expect(await orderCount(s.organizationId)).toBe(before);

    const created = await ok(await draft(s, { ...good, custom_field_data: { seats: 4 } }));
    expect(created.custom_field_data).toEqual({ seats: 4 });
    expect((await draft(s, good)).status).toBe(201);
  });
});

describe("a server that takes no payments (TILL_PAYMENTS=none)", () => {
  let none: TestServer;
  beforeAll(async () => {
    none = await startTestServer({ worker: false, env: { TILL_PAYMENTS: "none" } });
  });
  afterAll(() => none.stop());

  it("refuses to finalize a paid draft with 403 OrganizationNotReadyForPayments", async () => {
    const seller = await billingSeller(none);
    await ok(await enable(seller));
    const product = await ok(
      await seller.call("/v1/products/", {
        body: {
          name: "Paid",
          prices: [{ amount_type: "fixed", price_amount: 1000, price_currency: "usd" }],
        },
      }),
    );
    const customer = await ok(
      await seller.call("/v1/customers/", { body: { email: "none@example.com" } }),
    );
    const created = await ok(
      await draft(seller, { customer_id: customer.id, product_id: product.id }),
    );
    const res = await finalize(seller, created.id);
    expect(res.status).toBe(403);
    expect(res.body.error).toBe("OrganizationNotReadyForPayments");
    expect((await ok(await seller.call(`/v1/orders/${created.id}`))).status).toBe("draft");
  });
});
