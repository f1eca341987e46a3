// Checkout's concurrency and validation: one payment per session however many confirms race,
// discount redemptions within max_redemptions, refusals that change nothing, checkout.created.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import {
  checkout,
  client,
  count,
  post,
  product,
  SCOPES,
  t,
  token,
  withCheckoutSeller,
} from "../../../test/helpers/checkout-seller.ts";
import { US_ADDRESS } from "../../../test/helpers/addresses.ts";

withCheckoutSeller();

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

  it("one new buyer confirming 8 checkouts at once: all paid, one customer, every order theirs", async () => {
    const p = await product();
    const sessions = await Promise.all(
      Array.from({ length: 8 }, () =>
        checkout({
          products: [p.id],
          customer_email: "twice@example.com",
          external_customer_id: "twice-1",
          customer_billing_address: US_ADDRESS,
        }),
      ),
    );
    const results = await Promise.all(
      sessions.map((c) =>
        client(c.client_secret, "/confirm", { confirmation_token_id: "sandbox_token_success" }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(
      await count(sql`select count(*)::int as n from customers where email = 'twice@example.com'`),
    ).toBe(1);
    expect(new Set(results.map((r) => r.body.customer_id)).size).toBe(1);
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

  it("customer_ip_address must be an IPv4 or IPv6 address, on create and update", async () => {
    const p = await product();
    const before = await count(sql`select count(*)::int as n from checkouts`);
    const bad = await post("/v1/checkouts/", {
      products: [p.id],
      customer_ip_address: "999.1.1.1",
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(["body", "customer_ip_address"]);
    expect(await count(sql`select count(*)::int as n from checkouts`)).toBe(before);
    const c = await checkout({ products: [p.id], customer_ip_address: "2001:db8::1" });
    const update = await api(t.url, `/v1/checkouts/${c.id}`, {
      token,
      method: "PATCH",
      body: { customer_ip_address: "not an address" },
    });
    expect(update.status).toBe(422);
    expect(update.body.detail[0].loc).toEqual(["body", "customer_ip_address"]);
    expect((await api(t.url, `/v1/checkouts/${c.id}`, { token })).body.customer_ip_address).toBe(
      "2001:db8::1",
    );
  });

  it("a number custom field takes whole numbers JSON can hold exactly, as Polar's int does", async () => {
    const field = await post("/v1/custom-fields/", {
      type: "number",
      slug: "seats_wanted",
      name: "Seats wanted",
      properties: {},
    });
    expect(field.status, JSON.stringify(field.body)).toBe(201);
    const p = await product(undefined, {
      attached_custom_fields: [{ custom_field_id: field.body.id, required: false }],
    });
    const c = await checkout({ products: [p.id] });
    const patch = (value: string) =>
      fetch(`${t.url}/v1/checkouts/client/${c.client_secret}`, {
        method: "PATCH",
        headers: { "content-type": "application/json" },
        body: `{"custom_field_data":{"seats_wanted":${value}}}`,
      });
    for (const [value, type] of [
      ["1.5", "int_from_float"],
      ["12345678901234567890", "value_error"],
    ]) {
      const res = await patch(value!);
      const body = (await res.json()) as { detail: unknown[] };
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(body.detail[0]).toMatchObject({
        loc: ["body", "custom_field_data", "seats_wanted"],
        type,
      });
    }
    expect((await client(c.client_secret)).body.custom_field_data).toEqual({});
    const ok = await patch("9007199254740991");
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { custom_field_data: unknown }).custom_field_data).toEqual({
      seats_wanted: 9007199254740991,
    });
  });

  it("a date outside a custom field's bounds is refused naming the first or last day allowed", async () => {
    const field = await post("/v1/custom-fields/", {
      type: "date",
      slug: "start-day",
      name: "Start",
      // 2026-01-01 12:00 and 2026-12-31 12:00 UTC: a date is its day's midnight, so the first day
      // allowed is the 2nd.
      properties: { ge: 1767268800, le: 1798718400 },
    });
    expect(field.status, JSON.stringify(field.body)).toBe(201);
    const p = await product(undefined, {
      attached_custom_fields: [{ custom_field_id: field.body.id, required: false }],
    });
    const c = await checkout({ products: [p.id] });
    const refusal = async (day: string) => {
      const res = await client(
        c.client_secret,
        "",
        { custom_field_data: { "start-day": day } },
        "PATCH",
      );
      expect(res.status).toBe(422);
      return res.body.detail[0];
    };
    expect(await refusal("2026-01-01")).toEqual({
      loc: ["body", "custom_field_data", "start-day"],
      msg: "Choose 2026-01-02 or later.",
      type: "greater_than_equal",
    });
    expect(await refusal("2027-01-01")).toEqual({
      loc: ["body", "custom_field_data", "start-day"],
      msg: "Choose 2026-12-31 or earlier.",
      type: "less_than_equal",
    });
    const ok = await client(
      c.client_secret,
      "",
      { custom_field_data: { "start-day": "2026-12-31" } },
      "PATCH",
    );
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
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
