// What a checkout's subscription_id refuses, each a 422 on its field in Polar's shape that creates
// nothing: an unknown or another organization's subscription, a paid one, a canceled one, and a
// customer other than the subscription's. A subscription canceled after the session opened is
// refused at confirm, before any charge. Two sessions upgrading one subscription, or one session
// confirmed twice at once, make one upgrade, one order and one charge.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { US_ADDRESS } from "../../../test/helpers/addresses.ts";
import { api } from "../../../test/helpers/auth.ts";
import {
  billingSeller,
  freeMonthlyProduct,
  freeSubscription,
  monthlyProduct,
  seatProduct,
  ordersOf,
  subscribe,
  subscriptionOf,
  type BillingSeller,
} from "../../../test/helpers/billing.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

let t: TestServer;
let s: BillingSeller;
let freeId: string;
let paidId: string;

beforeAll(async () => {
  t = await startTestServer();
  s = await billingSeller(t);
  const free = await freeMonthlyProduct(s);
  const paid = await monthlyProduct(s, "Pro", 2000);
  [freeId, paidId] = [free.id, paid.id];
});
afterAll(() => t?.stop());

async function count(table: "checkouts" | "orders" | "subscriptions") {
  const [row] = await t.server.database.rows<{ n: number }>(
    sql`select count(*)::int as n from ${sql.identifier(table)} where organization_id = ${s.organizationId}`,
  );
  return row!.n;
}

async function charges(checkoutIds: string[]) {
  const rows = await t.server.database.rows<{ key: string }>(
    sql`select idempotency_key as key from sandbox_charges where status = 'succeeded'`,
  );
  return rows.filter((r) => checkoutIds.some((id) => r.key.startsWith(`${id}:`))).length;
}

const confirm = (secret: string) =>
  api(t.url, `/v1/checkouts/client/${secret}/confirm`, {
    body: { confirmation_token_id: "sandbox_token_success", customer_billing_address: US_ADDRESS },
  });

const refusal = (field: string, msg: string) => ({
  error: "RequestValidationError",
  detail: [{ loc: ["body", field], msg, type: "value_error" }],
});

describe("checkout subscription_id rules", () => {
  it("refuses unknown, foreign, paid and canceled subscriptions and another customer", async () => {
    const other = await billingSeller(t);
    const foreignFree = await freeMonthlyProduct(other, "Elsewhere free");
    const foreign = await freeSubscription(other, foreignFree.id, { email: "foreign@example.com" });
    const paid = await subscribe(s, paidId, undefined, "paying@example.com");
    const canceled = await freeSubscription(s, freeId, { email: "gone@example.com" });
    expect(
      (await s.call(`/v1/subscriptions/${canceled.id}`, { method: "DELETE" })).body.status,
    ).toBe("canceled");
    const ending = await freeSubscription(s, freeId, { email: "ending@example.com" });
    const scheduled = await s.call(`/v1/subscriptions/${ending.id}`, {
      method: "PATCH",
      body: { cancel_at_period_end: true },
    });
    expect(scheduled.body.cancel_at_period_end).toBe(true);
    const mine = await freeSubscription(s, freeId, { email: "mine@example.com" });
    const stranger = await s.polar.customers.create({
      email: "stranger@example.com",
      externalId: "user_stranger",
    });

    const before = await Promise.all([count("checkouts"), count("subscriptions")]);
    const cases: [Record<string, unknown>, ReturnType<typeof refusal>][] = [
      [
        { subscription_id: crypto.randomUUID() },
        refusal("subscription_id", "Subscription does not exist."),
      ],
      [{ subscription_id: foreign.id }, refusal("subscription_id", "Subscription does not exist.")],
      [
        { subscription_id: paid.subscriptionId },
        refusal("subscription_id", "Only free subscriptions can be upgraded."),
      ],
      [
        { subscription_id: canceled.id },
        refusal("subscription_id", "A canceled subscription cannot be upgraded."),
      ],
      [
        { subscription_id: ending.id },
        refusal("subscription_id", "A canceled subscription cannot be upgraded."),
      ],
      [
        { subscription_id: mine.id, customer_id: stranger.id },
        refusal("customer_id", "The subscription belongs to another customer."),
      ],
      [
        { subscription_id: mine.id, external_customer_id: "user_stranger" },
        refusal("external_customer_id", "The subscription belongs to another customer."),
      ],
    ];
    for (const [body, expected] of cases) {
      const res = await s.call("/v1/checkouts/", { body: { products: [paidId], ...body } });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body).toEqual(expected);
    }
    const malformed = await s.call("/v1/checkouts/", {
      body: { products: [paidId], subscription_id: "nope" },
    });
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail[0].loc).toEqual(["body", "subscription_id"]);
    expect(await Promise.all([count("checkouts"), count("subscriptions")])).toEqual(before);
  });

  it("takes seats priced 0 for free and seats priced above 0 for paid, as Polar's is_free", async () => {
    const freeSeats = await seatProduct(s.call, "Free seats", 0);
    const paidSeats = await seatProduct(s.call, "Paid seats", 500);
    const onFree = await subscribe(s, freeSeats, undefined, "free-seats@example.com");
    const onPaid = await subscribe(s, paidSeats, undefined, "paid-seats@example.com");
    const upgrade = await s.call("/v1/checkouts/", {
      body: { products: [paidId], subscription_id: onFree.subscriptionId },
    });
    expect(upgrade.status, JSON.stringify(upgrade.body)).toBe(201);
    expect(upgrade.body.subscription_id).toBe(onFree.subscriptionId);
    const refused = await s.call("/v1/checkouts/", {
      body: { products: [paidId], subscription_id: onPaid.subscriptionId },
    });
    expect(refused.body).toEqual(
      refusal("subscription_id", "Only free subscriptions can be upgraded."),
    );
    // The checkout says so too: every price of a free-seat or 0-priced product is free.
    const zero = await monthlyProduct(s, "Zero", 0);
    for (const [product, free] of [
      [freeSeats, true],
      [zero.id, true],
      [freeId, true],
      [paidSeats, false],
      [paidId, false],
    ] as const) {
      const c = await s.call("/v1/checkouts/", { body: { products: [product] } });
      expect(c.body.is_free_product_price, product).toBe(free);
    }
  });

  it("refuses at confirm a subscription canceled since, charging nothing", async () => {
    const sub = await freeSubscription(s, freeId, { email: "late-cancel@example.com" });
    const checkout = await s.call("/v1/checkouts/", {
      body: { products: [paidId], subscription_id: sub.id },
    });
    expect(checkout.status).toBe(201);
    await s.call(`/v1/subscriptions/${sub.id}`, { method: "DELETE" });
    const orders = await count("orders");
    const res = await confirm(checkout.body.client_secret);
    expect(res.status).toBe(422);
    expect(res.body).toEqual(
      refusal("subscription_id", "A canceled subscription cannot be upgraded."),
    );
    expect((await s.call(`/v1/checkouts/${checkout.body.id}`)).body.status).toBe("open");
    expect(await count("orders")).toBe(orders);
    expect(await charges([checkout.body.id])).toBe(0);
    expect((await subscriptionOf(s, sub.id)).product_id).toBe(freeId);
  });

  it("takes turns with a PATCH of the subscription: neither goes while the other charges", async () => {
    const sub = await freeSubscription(s, freeId, { email: "turns@example.com" });
    const checkout = await s.call("/v1/checkouts/", {
      body: { products: [paidId], subscription_id: sub.id },
    });
    const db = t.server.database;
    // A change in flight holds the lease, as another process's PATCH does while it charges.
    await db.rows(
      sql`update subscriptions set locked_until = now() + interval '30 seconds' where id = ${sub.id}`,
    );
    const orders = await count("orders");
    const held = await confirm(checkout.body.client_secret);
    expect(held.status).toBe(409);
    expect(held.body.error).toBe("SubscriptionLocked");
    expect((await s.call(`/v1/checkouts/${checkout.body.id}`)).body.status).toBe("open");
    expect(await charges([checkout.body.id])).toBe(0);
    expect(await count("orders")).toBe(orders);
    await db.rows(sql`update subscriptions set locked_until = null where id = ${sub.id}`);

    // A claimed upgrade (its charge in flight, as a confirm whose process died leaves it) holds
    // the subscription against a PATCH, which would otherwise change the plan under it.
    await db.rows(sql`update checkouts set status = 'confirmed' where id = ${checkout.body.id}`);
    const patched = await s.call(`/v1/subscriptions/${sub.id}`, {
      method: "PATCH",
      body: { product_id: paidId, proration_behavior: "invoice" },
    });
    expect(patched.status).toBe(409);
    expect(patched.body.error).toBe("SubscriptionLocked");
    expect((await subscriptionOf(s, sub.id)).product_id).toBe(freeId);
    await db.rows(sql`update checkouts set status = 'open' where id = ${checkout.body.id}`);
    const paid = await confirm(checkout.body.client_secret);
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
  });

  it("two sessions upgrading one subscription at once: one upgrade, one charge", async () => {
    const sub = await freeSubscription(s, freeId, { email: "racer@example.com" });
    const sessions = await Promise.all(
      [0, 1].map(() =>
        s.call("/v1/checkouts/", { body: { products: [paidId], subscription_id: sub.id } }),
      ),
    );
    const ids = sessions.map((c) => c.body.id as string);
    const results = await Promise.all(sessions.map((c) => confirm(c.body.client_secret)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 422]);
    expect(results.find((r) => r.status === 422)!.body.detail[0].loc).toEqual([
      "body",
      "subscription_id",
    ]);
    const statuses = await Promise.all(
      ids.map(async (id) => (await s.call(`/v1/checkouts/${id}`)).body.status),
    );
    expect(statuses.sort()).toEqual(["open", "succeeded"]);
    expect(await charges(ids)).toBe(1);
    const orders = await ordersOf(s, sub.id);
    expect(orders.map((o) => o.billing_reason)).toEqual(["subscription_update"]);
    expect(await subscriptionOf(s, sub.id)).toMatchObject({ product_id: paidId, amount: 2000 });
    const subs = await s.call(`/v1/subscriptions/?customer_id=${sub.customerId}`);
    expect(subs.body.items).toHaveLength(1);
  });

  it("one session confirmed twice at once upgrades once", async () => {
    const sub = await freeSubscription(s, freeId, { email: "double@example.com" });
    const checkout = await s.call("/v1/checkouts/", {
      body: { products: [paidId], subscription_id: sub.id },
    });
    const results = await Promise.all([0, 1].map(() => confirm(checkout.body.client_secret)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.every((r) => r.status < 500)).toBe(true);
    expect(await charges([checkout.body.id])).toBe(1);
    expect(await ordersOf(s, sub.id)).toHaveLength(1);
    const events = await t.server.database.rows<{ type: string }>(
      sql`select type from webhook_events where type = 'subscription.updated'
          and payload->'data'->>'id' = ${sub.id}`,
    );
    expect(events).toHaveLength(1);
  });
});
