// Concurrency and money rules of checkout: one payment per session however many confirms race,
// discount redemptions never past max_redemptions and given back when a payment fails, amounts for
// custom prices, discounts and tax, and validation answered with 4xx and no change.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { createCountMeter } from "../../../test/helpers/catalog.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { US_ADDRESS } from "../../../test/helpers/addresses.ts";

const SCOPES = [
  "products:write",
  "checkouts:write",
  "discounts:write",
  "orders:read",
  "custom_fields:write",
  "meters:write",
];
let t: TestServer;
let token: string;

beforeAll(async () => {
  t = await startTestServer({ env: { TAX_RATES: "DE:1900" } });
  token = (await createSeller(t.url, SCOPES)).token;
});
afterAll(() => t.stop());

const post = (path: string, body: unknown) => api(t.url, path, { token, body });
const client = (secret: string, path = "", body?: unknown, method?: string) =>
  api(t.url, `/v1/checkouts/client/${secret}${path}`, {
    ...(body !== undefined ? { body } : {}),
    ...(method ? { method } : {}),
  });

async function product(
  prices: unknown[] = [{ amount_type: "fixed", price_amount: 2000, price_currency: "usd" }],
  extra: Record<string, unknown> = {},
) {
  const res = await post("/v1/products/", { name: "Thing", prices, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; prices: { id: string }[] };
}

async function checkout(body: Record<string, unknown>) {
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

async function count(query: ReturnType<typeof sql>): Promise<number> {
  const [row] = await t.server.database.rows<{ n: number }>(query);
  return Number(row!.n);
}

describe("checkout.created", () => {
  it("records the response itself as the event's data, byte for byte", async () => {
    const { id: productId } = await product();
    const res = await fetch(`${t.url}/v1/checkouts/`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ products: [productId], metadata: { zeta: 1, alpha: "x" } }),
    });
    expect(res.status).toBe(201);
    const body = await res.text();
    const [row] = await t.server.database.rows<{ payload: string }>(
      sql`select payload::text as payload from webhook_events where type = 'checkout.created' and payload->'data'->>'id' = ${JSON.parse(body).id}`,
    );
    const { timestamp } = JSON.parse(row!.payload) as { timestamp: string };
    expect(row!.payload).toBe(
      JSON.stringify({ type: "checkout.created", timestamp, data: JSON.parse(body) }),
    );
  });
});

describe("concurrency", () => {
  it("20 simultaneous confirms of one checkout make exactly one payment and one order", async () => {
    const p = await product();
    const c = await checkout({
      products: [p.id],
      customer_email: "race@example.com",
      customer_billing_address: US_ADDRESS,
    });
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        client(c.client_secret, "/confirm", { confirmation_token_id: "sandbox_token_success" }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s !== 200).every((s) => s === 403)).toBe(true);
    expect(results.find((r) => r.status === 403)?.body).toEqual({
      error: "NotOpenCheckout",
      detail: "This checkout is not open anymore.",
    });
    expect(
      await count(sql`select count(*)::int as n from orders where checkout_id = ${c.id}`),
    ).toBe(1);
  });

  it("20 simultaneous checkouts on a discount with max_redemptions 5 redeem it exactly 5 times", async () => {
    const p = await product();
    const d = await post("/v1/discounts/", {
      name: "Five",
      type: "percentage",
      basis_points: 1000,
      duration: "once",
      max_redemptions: 5,
    });
    expect(d.status).toBe(201);
    const sessions = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        checkout({
          products: [p.id],
          discount_id: d.body.id,
          customer_email: `d${i}@example.com`,
          customer_billing_address: US_ADDRESS,
        }),
      ),
    );
    const results = await Promise.all(
      sessions.map((s) =>
        client(s.client_secret, "/confirm", { confirmation_token_id: "sandbox_token_success" }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(5);
    const refused = results.filter((r) => r.status !== 200);
    expect(
      refused.every(
        (r) => r.status === 422 && r.body.detail[0].loc.join(".") === "body.discount_code",
      ),
    ).toBe(true);
    expect(
      await count(sql`select redemptions_count as n from discounts where id = ${d.body.id}`),
    ).toBe(5);
    expect(
      await count(sql`select count(*)::int as n from orders where discount_id = ${d.body.id}`),
    ).toBe(5);
    // The refused sessions are still open and can be bought without the discount.
    expect(
      await count(
        sql`select count(*)::int as n from checkouts where discount_id = ${d.body.id} and status = 'open'`,
      ),
    ).toBe(15);
  });

  it("a failed payment gives the discount redemption back", async () => {
    const p = await product();
    const d = await post("/v1/discounts/", {
      name: "One",
      type: "fixed",
      amount: 500,
      currency: "usd",
      duration: "once",
      max_redemptions: 1,
    });
    const a = await checkout({
      products: [p.id],
      discount_id: d.body.id,
      customer_email: "a@example.com",
      customer_billing_address: US_ADDRESS,
    });
    expect(
      (
        await client(a.client_secret, "/confirm", {
          confirmation_token_id: "sandbox_token_declined",
        })
      ).status,
    ).toBe(400);
    expect(
      await count(sql`select redemptions_count as n from discounts where id = ${d.body.id}`),
    ).toBe(0);
    const b = await checkout({
      products: [p.id],
      discount_id: d.body.id,
      customer_email: "b@example.com",
      customer_billing_address: US_ADDRESS,
    });
    expect(
      (
        await client(b.client_secret, "/confirm", {
          confirmation_token_id: "sandbox_token_success",
        })
      ).status,
    ).toBe(200);
    expect(
      await count(sql`select redemptions_count as n from discounts where id = ${d.body.id}`),
    ).toBe(1);
  });
});

describe("amounts", () => {
  it("percentage and fixed discounts, tax by country from TAX_RATES, net and total", async () => {
    const p = await product([{ amount_type: "fixed", price_amount: 1999, price_currency: "usd" }]);
    const pct = await post("/v1/discounts/", {
      name: "Quarter",
      code: "QUARTER",
      type: "percentage",
      basis_points: 2500,
      duration: "once",
    });
    const c = await checkout({ products: [p.id], customer_billing_address: { country: "DE" } });
    expect(c).toMatchObject({
      amount: 1999,
      discount_amount: 0,
      net_amount: 1999,
      tax_amount: 380,
      total_amount: 2379,
    });
    const withCode = await client(c.client_secret, "", { discount_code: "quarter" }, "PATCH");
    expect(withCode.status).toBe(200);
    // 25% of 1999 = 499.75 → 500 (half up); tax 19% of 1499 = 284.81 → 285.
    expect(withCode.body).toMatchObject({
      discount_id: pct.body.id,
      discount_amount: 500,
      net_amount: 1499,
      tax_amount: 285,
      total_amount: 1784,
    });
    const us = await client(c.client_secret, "", { customer_billing_address: US_ADDRESS }, "PATCH");
    expect(us.body).toMatchObject({ tax_amount: 0, total_amount: 1499 });
    // Paid, its order's item is the price before the discount, as a renewal's and Polar's are:
    // the item, less the order's discount, is what was paid.
    await client(c.client_secret, "", { customer_email: "quarter@example.com" }, "PATCH");
    const paid = await client(c.client_secret, "/confirm", {
      confirmation_token_id: "sandbox_token_success",
    });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    const orders = await api(t.url, `/v1/orders/?checkout_id=${c.id}`, { token });
    expect(orders.body.items).toMatchObject([
      {
        subtotal_amount: 1999,
        discount_amount: 500,
        total_amount: 1499,
        items: [{ amount: 1999, tax_amount: 0 }],
      },
    ]);
  });

  it("a custom price takes an amount within its bounds; outside them is a 422 on amount and nothing changes", async () => {
    const p = await product([
      {
        amount_type: "custom",
        minimum_amount: 500,
        maximum_amount: 10_000,
        preset_amount: 1000,
        price_currency: "usd",
      },
    ]);
    const c = await checkout({ products: [p.id] });
    expect(c.amount).toBe(1000);
    const low = await client(c.client_secret, "", { amount: 100 }, "PATCH");
    expect(low.status).toBe(422);
    expect(low.body.detail[0]).toMatchObject({
      loc: ["body", "amount"],
      msg: "The amount must be at least 500.",
    });
    expect((await client(c.client_secret)).body.amount).toBe(1000);
    expect((await client(c.client_secret, "", { amount: 4200 }, "PATCH")).body.total_amount).toBe(
      4200,
    );
  });

  it("two updates at once both hold: an amount typed while the country is on its way", async () => {
    const p = await product([
      { amount_type: "custom", minimum_amount: 500, preset_amount: 1000, price_currency: "usd" },
    ]);
    for (const amount of [4200, 5300, 6400]) {
      const c = await checkout({ products: [p.id] });
      const [typed, country] = await Promise.all([
        client(c.client_secret, "", { amount }, "PATCH"),
        client(c.client_secret, "", { customer_billing_address: { country: "DE" } }, "PATCH"),
      ]);
      expect([typed.status, country.status]).toEqual([200, 200]);
      // Whichever committed last saw the other's change: the session has both, taxed at 19 %.
      const now = (await client(c.client_secret)).body;
      expect(now).toMatchObject({
        amount,
        customer_billing_address: { country: "DE" },
        tax_amount: Math.round(amount * 0.19),
        total_amount: amount + Math.round(amount * 0.19),
      });
    }
  });

  it("a metered-only subscription asks for a card though nothing is due now, and saves it", async () => {
    const meterId = await createCountMeter(t.url, token, "Setup calls", "x");
    const p = await product(
      [
        {
          amount_type: "metered_unit",
          meter_id: meterId,
          unit_amount: "0.5",
          price_currency: "usd",
        },
      ],
      { recurring_interval: "month" },
    );
    const c = await checkout({ products: [p.id] });
    expect(c).toMatchObject({
      total_amount: 0,
      is_payment_required: false,
      is_payment_setup_required: true,
      is_payment_form_required: true,
    });
    const bare = await client(c.client_secret, "/confirm", {
      customer_email: "usage@example.com",
      customer_billing_address: US_ADDRESS,
    });
    expect(bare.status).toBe(422);
    expect(bare.body.detail[0].loc).toEqual(["body", "confirmation_token_id"]);
    const confirmed = await client(c.client_secret, "/confirm", {
      customer_email: "usage@example.com",
      customer_billing_address: US_ADDRESS,
      confirmation_token_id: "sandbox_token_success",
    });
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    const saved = await t.server.database.rows<{ n: number }>(
      sql`select count(*)::int as n from payment_methods m join customers c on c.id = m.customer_id
        where c.email = 'usage@example.com'`,
    );
    expect(saved[0]!.n).toBe(1);
  });

  it("a free product confirms without payment details and still makes a paid order", async () => {
    const p = await product([{ amount_type: "free" }]);
    const c = await checkout({ products: [p.id] });
    expect(c.total_amount).toBe(0);
    const confirmed = await client(c.client_secret, "/confirm", {
      customer_email: "free@example.com",
    });
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    expect(confirmed.body.is_payment_form_required).toBe(false);
  });
});

describe("validation", () => {
  it("create: unknown or foreign product, archived product, bad embed_origin, two product forms → 422 and no checkout", async () => {
    const before = await count(sql`select count(*)::int as n from checkouts`);
    const other = await createSeller(t.url, SCOPES);
    const foreign = await api(t.url, "/v1/products/", {
      token: other.token,
      body: {
        name: "Theirs",
        prices: [{ amount_type: "fixed", price_amount: 100, price_currency: "usd" }],
      },
    });
    const cases: [unknown, string][] = [
      [{ products: [foreign.body.id] }, "body.products.0"],
      [{ products: ["00000000-0000-4000-8000-000000000000"] }, "body.products.0"],
      [{ products: [(await product()).id], embed_origin: "not a url" }, "body.embed_origin"],
      [{ products: [(await product()).id], product_id: foreign.body.id }, "body.products"],
      [{}, "body.products"],
    ];
    for (const [body, loc] of cases) {
      const res = await post("/v1/checkouts/", body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error).toBe("RequestValidationError");
      expect(res.body.detail.map((d: { loc: string[] }) => d.loc.join("."))).toContain(loc);
    }
    expect(await count(sql`select count(*)::int as n from checkouts`)).toBe(before);
  });

  it("confirm: email, billing address and required custom fields are checked; the session stays open", async () => {
    const field = await post("/v1/custom-fields/", {
      type: "text",
      slug: "company",
      name: "Company",
      properties: { min_length: 2 },
    });
    expect(field.status, JSON.stringify(field.body)).toBe(201);
    const p = await product(undefined, {
      attached_custom_fields: [{ custom_field_id: field.body.id, required: true }],
    });
    const c = await checkout({ products: [p.id], require_billing_address: true });
    const res = await client(c.client_secret, "/confirm", {
      confirmation_token_id: "sandbox_token_success",
    });
    expect(res.status).toBe(422);
    const locs = res.body.detail.map((d: { loc: string[] }) => d.loc.join("."));
    expect(locs).toEqual(
      expect.arrayContaining([
        "body.customer_email",
        "body.customer_billing_address.country",
        "body.customer_billing_address.line1",
        "body.custom_field_data.company",
      ]),
    );
    const short = await client(
      c.client_secret,
      "",
      { custom_field_data: { company: "x" } },
      "PATCH",
    );
    expect(short.status).toBe(422);
    expect(short.body.detail[0]).toMatchObject({
      loc: ["body", "custom_field_data", "company"],
      type: "string_too_short",
    });
    expect((await client(c.client_secret)).body.status).toBe("open");
    expect(
      await count(sql`select count(*)::int as n from orders where checkout_id = ${c.id}`),
    ).toBe(0);
  });

  it("an unknown client secret is a 404; a discount code that does not exist is a 422 on discount_code", async () => {
    expect((await client("till_c_nope")).status).toBe(404);
    const c = await checkout({ products: [(await product()).id] });
    const res = await client(c.client_secret, "", { discount_code: "NOPE" }, "PATCH");
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({
      loc: ["body", "discount_code"],
      msg: "This discount code is not valid.",
    });
  });
});
