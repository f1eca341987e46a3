// A chargeback lost while a renewal holds the subscription's lease: revoking it there and then
// would be undone when the renewal writes the period it charged for. The subscription is revoked
// by a job once the lease is given back, exactly once.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { US_ADDRESS_SDK } from "../../../test/helpers/addresses.ts";
import { startStripeTill, type StripeTill } from "../../../test/helpers/stripe-till.ts";
import { waitFor } from "../../../test/helpers/webhook-receiver.ts";

let s: StripeTill;

beforeAll(async () => {
  s = await startStripeTill({ worker: true });
});
afterAll(() => s?.stop());

it("lost while a renewal holds the subscription: revoked once the renewal gives it back", async () => {
  const product = await s.polar.products.create({
    name: "Monthly club",
    recurringInterval: "month",
    prices: [{ amountType: "fixed", priceAmount: 2000, priceCurrency: "usd" }],
  });
  const c = await s.polar.checkouts.create({
    products: [product.id],
    customerEmail: "held@example.com",
    customerBillingAddress: US_ADDRESS_SDK,
  });
  expect((await s.confirm(c.clientSecret, await s.token("pm_card_visa"))).status).toBe(200);
  await s.stripe.idle();
  const [order] = await s.orders(c.id);
  const db = s.t.server.database;
  const [{ id } = { id: "" }] = await db.rows<{ id: string }>(
    sql`select subscription_id as id from orders where id = ${order!.id}`,
  );
  const status = async () =>
    (await db.rows<{ status: string }>(sql`select status from subscriptions where id = ${id}`))[0]!
      .status;
  const revokedEvents = async () =>
    (
      await db.rows<{ n: number }>(
        sql`select count(*)::int as n from webhook_events
          where type = 'subscription.revoked' and payload->'data'->>'id' = ${id}`,
      )
    )[0]!.n;

  // A renewal in flight: it holds the lease until it has written the period it charged for.
  await db.rows(
    sql`update subscriptions set locked_until = now() + interval '1 minute' where id = ${id}`,
  );
  const dp = s.stripe.disputes.open(order!.processor_payment_id);
  await s.stripe.idle();
  s.stripe.disputes.move(dp.id, "lost");
  await s.stripe.idle();
  const [d] = (await s.polar.disputes.list({ orderId: order!.id })).result.items;
  expect(d).toMatchObject({ status: "lost" });
  expect(await status()).toBe("active");
  expect(await revokedEvents()).toBe(0);

  // The renewal gives the lease back: the revocation follows.
  await db.rows(sql`update subscriptions set locked_until = null where id = ${id}`);
  await waitFor(async () => (await status()) === "canceled", 30_000, "the revocation");
  expect(await revokedEvents()).toBe(1);
  // Stripe's lost event again changes nothing.
  const again = s.stripe.state.events.filter(
    (e) => (e.data.object as { id?: string }).id === dp.id,
  );
  for (const e of again) expect(await s.stripe.deliver(e)).toBe(200);
  expect(await revokedEvents()).toBe(1);
});
