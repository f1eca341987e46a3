// A plan change sent with a discount, racing another subscription's PATCH for the discount's last
// redemption. The plan change charges before its discount is written: unless the redemption is
// held from before the charge, the other PATCH can take it meanwhile, and the plan change answered
// 422 "fully redeemed" after the customer had been moved and charged. On PostgreSQL the race is
// held open: a second connection locks the table the plan change claims its charge in until the
// other PATCH has been answered.
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  billingSeller,
  monthlyProduct,
  ordersOf,
  subscribe,
  subscriptionOf,
  type BillingSeller,
} from "../../../test/helpers/billing.ts";
import { holdTableLock, usingPostgres } from "../../../test/helpers/db.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { waitFor } from "../../../test/helpers/webhook-receiver.ts";

let t: TestServer;
let s: BillingSeller;
let locker: postgres.Sql | null = null;

beforeAll(async () => {
  t = await startTestServer();
  s = await billingSeller(t);
});
afterAll(async () => {
  await locker?.end();
  await t?.stop();
});

/** Whether a statement of the server waits for a lock on `table` (PostgreSQL). */
async function waitingOn(table: string): Promise<boolean> {
  locker ??= postgres(t.testDb.url!, { max: 2, onnotice: () => {} });
  const rows = await locker`select 1 from pg_stat_activity where datname = current_database()
    and wait_event_type = 'Lock' and query ilike ${`%"${table}"%`}`;
  return rows.length > 0;
}

const patch = (id: string, body: unknown) =>
  s.call(`/v1/subscriptions/${id}`, { method: "PATCH", body });

/** Two subscriptions on Basic and a discount left with one redemption. */
async function world(name: string) {
  const basic = await monthlyProduct(s, `${name} Basic`, 1000);
  const pro = await monthlyProduct(s, `${name} Pro`, 3000);
  const discount = await s.call("/v1/discounts/", {
    body: {
      name: `${name} last one`,
      type: "percentage",
      basis_points: 1000,
      duration: "forever",
      max_redemptions: 1,
    },
  });
  expect(discount.status).toBe(201);
  const [a, b] = await Promise.all([subscribe(s, basic.id), subscribe(s, basic.id)]);
  return {
    basic,
    pro,
    discountId: discount.body.id as string,
    a: a.subscriptionId,
    b: b.subscriptionId,
    upgrade: () =>
      patch(a.subscriptionId, {
        product_id: pro.id,
        proration_behavior: "invoice",
        discount_id: discount.body.id,
      }),
    take: () => patch(b.subscriptionId, { discount_id: discount.body.id }),
  };
}

const updateOrders = async (id: string) =>
  (await ordersOf(s, id)).filter((o) => o.billing_reason === "subscription_update");

/** One of the two got the discount; a refused plan change moved and charged nothing. */
async function expectConsistent(
  w: Awaited<ReturnType<typeof world>>,
  upgraded: { status: number; body: any },
  took: { status: number; body: any },
) {
  const fullyRedeemed = {
    error: "RequestValidationError",
    detail: [
      {
        loc: ["body", "discount_id"],
        msg: "This discount has been fully redeemed.",
        type: "value_error",
      },
    ],
  };
  const [a, b] = [await subscriptionOf(s, w.a), await subscriptionOf(s, w.b)];
  if (upgraded.status === 200) {
    expect(upgraded.body).toMatchObject({ product_id: w.pro.id, discount_id: w.discountId });
    expect(a).toMatchObject({ product_id: w.pro.id, discount_id: w.discountId });
    expect(await updateOrders(w.a)).toHaveLength(1);
    expect({ status: took.status, body: took.body }).toEqual({ status: 422, body: fullyRedeemed });
    expect(b.discount_id).toBeNull();
  } else {
    expect({ status: upgraded.status, body: upgraded.body }).toEqual({
      status: 422,
      body: fullyRedeemed,
    });
    expect(a).toMatchObject({ product_id: w.basic.id, discount_id: null });
    expect(await updateOrders(w.a)).toHaveLength(0);
    expect(took.status).toBe(200);
    expect(b.discount_id).toBe(w.discountId);
  }
  const [row] = await t.server.database.rows<{ n: number }>(
    sql`select redemptions_count::int as n from discounts where id = ${w.discountId}`,
  );
  expect(row!.n).toBe(1);
}

describe("a plan change with a discount racing the discount's last redemption", () => {
  it.skipIf(!usingPostgres())(
    "held open while the plan change charges: the discount it was checked with is kept for it",
    async () => {
      const w = await world("Held");
      locker ??= postgres(t.testDb.url!, { max: 2, onnotice: () => {} });
      const release = await holdTableLock(locker, "change_charges");
      const upgrading = w.upgrade();
      // The plan change has checked the discount and is about to claim its charge.
      await waitFor(() => waitingOn("change_charges"), 30_000, "the plan change waiting");
      const took = await w.take();
      await release();
      const upgraded = await upgrading;
      expect(upgraded.status, JSON.stringify(upgraded.body)).toBe(200);
      await expectConsistent(w, upgraded, took);
    },
  );

  it.skipIf(!usingPostgres())(
    "the discount deleted while the plan change charges: the change keeps it",
    async () => {
      const w = await world("Deleted");
      locker ??= postgres(t.testDb.url!, { max: 2, onnotice: () => {} });
      const release = await holdTableLock(locker, "change_charges");
      const upgrading = w.upgrade();
      await waitFor(() => waitingOn("change_charges"), 30_000, "the plan change waiting");
      const deleted = await s.call(`/v1/discounts/${w.discountId}`, { method: "DELETE" });
      expect(deleted.status).toBe(204);
      await release();
      const upgraded = await upgrading;
      // Checked and redeemed before it charged: the deletion came after, as for any subscription
      // that had it already.
      expect(upgraded.status, JSON.stringify(upgraded.body)).toBe(200);
      expect(upgraded.body).toMatchObject({ product_id: w.pro.id, discount_id: w.discountId });
      expect(await updateOrders(w.a)).toHaveLength(1);
    },
  );

  it("sent at once, five times over: the one that gets the discount is the one changed", async () => {
    for (const i of [1, 2, 3, 4, 5]) {
      const w = await world(`Race ${i}`);
      const [upgraded, took] = await Promise.all([w.upgrade(), w.take()]);
      await expectConsistent(w, upgraded, took);
    }
  });

  it("a declined plan change gives the discount's redemption back", async () => {
    const w = await world("Declined");
    const card = await subscribe(s, w.basic.id, "sandbox_token_renewal_declined");
    const declined = await patch(card.subscriptionId, {
      product_id: w.pro.id,
      proration_behavior: "invoice",
      discount_id: w.discountId,
    });
    expect(declined.status, JSON.stringify(declined.body)).toBe(402);
    expect(await subscriptionOf(s, card.subscriptionId)).toMatchObject({
      product_id: w.basic.id,
      discount_id: null,
    });
    const [row] = await t.server.database.rows<{ n: number }>(
      sql`select redemptions_count::int as n from discounts where id = ${w.discountId}`,
    );
    expect(row!.n).toBe(0);
    // Still there for the next one.
    expect((await w.take()).status).toBe(200);
  });
});
