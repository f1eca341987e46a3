// The page's update (PATCH /v1/checkouts/client/{secret}) racing its confirm: the confirm's check and
// its claim of the session see one row, so the answer, the charge and the trial are all of the
// session as confirmed. Before, the update could land between them: the confirm answered with the
// update's email, and its trial decision (from the product it checked) went with the product the
// update put there, a one-time product sold "on trial" for nothing. On PostgreSQL the race is held
// open: a second connection locks the table the confirm reads the card from (prevent_trial_abuse
// asks for its fingerprint) until the update has been answered or is waiting on the session.
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { US_ADDRESS } from "../../../test/helpers/addresses.ts";
import { api } from "../../../test/helpers/auth.ts";
import {
  billingSeller,
  type BillingSeller,
  sandboxCard,
  setSubscriptionSettings,
} from "../../../test/helpers/billing.ts";
import { holdTableLock, usingPostgres } from "../../../test/helpers/db.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { waitFor } from "../../../test/helpers/webhook-receiver.ts";

let t: TestServer;
let locker: postgres.Sql | null = null;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await locker?.end();
  await t?.stop();
});

/** A session of the seller's offering a plan with a trial and a one-time product. */
async function session(s: BillingSeller) {
  const create = (name: string, recurring: boolean, amount: number) =>
    s.polar.products.create({
      name,
      ...(recurring
        ? {
            recurringInterval: "month" as const,
            trialInterval: "day" as const,
            trialIntervalCount: 7,
          }
        : {}),
      prices: [{ amountType: "fixed", priceAmount: amount, priceCurrency: "usd" }],
    });
  const plan = await create("Plan", true, 1500);
  const book = await create("Book", false, 2000);
  const checkout = await s.call("/v1/checkouts/", {
    body: { products: [plan.id, book.id], customer_billing_address: US_ADDRESS },
  });
  expect(checkout.status).toBe(201);
  return {
    s,
    id: checkout.body.id as string,
    secret: checkout.body.client_secret as string,
    plan,
    book,
    /** The buyer the confirm names. */
    email: `confirm-${checkout.body.id}@example.com`,
  };
}

function race(c: Awaited<ReturnType<typeof session>>, card: string) {
  const path = `/v1/checkouts/client/${c.secret}`;
  return {
    confirm: () =>
      api(t.url, `${path}/confirm`, {
        body: { customer_email: c.email, product_id: c.plan.id, confirmation_token_id: card },
      }),
    update: () =>
      api(t.url, path, {
        method: "PATCH",
        body: { customer_email: "update@example.com", product_id: c.book.id },
      }),
  };
}

/** The confirm answered with its own choice, and the order and subscription are of that choice. */
async function expectConsistent(
  c: Awaited<ReturnType<typeof session>>,
  confirmed: Awaited<ReturnType<typeof api>>,
  updated: Awaited<ReturnType<typeof api>>,
) {
  expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
  expect(confirmed.body).toMatchObject({ customer_email: c.email, product_id: c.plan.id });
  // The update either came first (the confirm's own values then replaced it) or found the session
  // claimed, refused as any update of a confirmed session is.
  if (updated.status !== 200) {
    expect(updated.status).toBe(403);
    expect(updated.body).toEqual({
      error: "NotOpenCheckout",
      detail: "This checkout is not open anymore.",
    });
  }
  const done = (await c.s.call(`/v1/checkouts/${c.id}`)).body;
  expect(done).toMatchObject({
    status: "succeeded",
    customer_email: c.email,
    product_id: c.plan.id,
  });
  const orders = await t.server.database.rows<Record<string, unknown>>(
    sql`select o.product_id, o.billing_reason, o.total_amount::int as total_amount, s.status as subscription_status,
          cu.email
        from orders o
        join customers cu on cu.id = o.customer_id
        left join subscriptions s on s.id = o.subscription_id
        where o.checkout_id = ${c.id}`,
  );
  expect(orders).toEqual([
    {
      product_id: c.plan.id,
      billing_reason: "subscription_create",
      total_amount: 0,
      subscription_status: "trialing",
      email: c.email,
    },
  ]);
}

describe("a page update racing its confirm", () => {
  it.skipIf(!usingPostgres())(
    "held open between the confirm's check and its claim: the confirm's session is the one paid",
    async () => {
      // The confirm asks the card's fingerprint, read from the locked table, after its check.
      const s = await billingSeller(t);
      await setSubscriptionSettings(t.url, s, { prevent_trial_abuse: true });
      const c = await session(s);
      const card = await sandboxCard(t.url, "4242424242424242");
      const { confirm, update } = race(c, card);
      locker = postgres(t.testDb.url!, { max: 2, onnotice: () => {} });
      // A statement of the server reading `table`, waiting on a lock.
      const waiting = async (table: string) =>
        (
          await locker!`select 1 from pg_stat_activity where datname = current_database()
            and wait_event_type = 'Lock' and query ilike ${`%"${table}"%`}`
        ).length > 0;
      const release = await holdTableLock(locker, "sandbox_confirmation_tokens");

      const confirming = confirm();
      // The confirm waits for the card: after checking the session once, before claiming it.
      await waitFor(() => waiting("sandbox_confirmation_tokens"), 30_000, "the confirm waiting");
      let answered = false;
      const updating = update().finally(() => {
        answered = true;
      });
      // Answered, or waiting for the confirm to let go of the session.
      await waitFor(
        async () => answered || (await waiting("checkouts")),
        30_000,
        "the update answered or waiting",
      );
      await release();
      await expectConsistent(c, await confirming, await updating);
    },
  );

  it("8 sessions each confirmed and updated at once: every confirm pays for its own choice", async () => {
    const s = await billingSeller(t);
    const sessions = await Promise.all(Array.from({ length: 8 }, () => session(s)));
    const results = await Promise.all(
      sessions.map((c) => {
        const { confirm, update } = race(c, "sandbox_token_success");
        return Promise.all([confirm(), update()]);
      }),
    );
    for (const [i, [confirmed, updated]] of results.entries())
      await expectConsistent(sessions[i]!, confirmed, updated);
  });
});
