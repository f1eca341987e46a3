// A seat decrease racing the assignment of a seat: whichever comes first, a subscription never ends
// with more live seats than it pays for. Each race starts from three seats, two assigned, and
// sends a PATCH to two seats against the assignment of a third. On PostgreSQL the race is held
// open: a second connection locks a table the decrease writes to until the assignment has been
// answered or is waiting for the purchase's lock.
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { holdTableLock, usingPostgres } from "../../../test/helpers/db.ts";
import { enableResetProration } from "../../../test/helpers/billing.ts";
import { seatsWorld, type SeatsWorld } from "../../../test/helpers/seats.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { waitFor } from "../../../test/helpers/webhook-receiver.ts";

let t: TestServer;
let w: SeatsWorld;
let locker: postgres.Sql | null = null;

beforeAll(async () => {
  t = await startTestServer({ worker: false });
  w = await seatsWorld(t);
});
afterAll(async () => {
  await locker?.end();
  await t?.stop();
});

/** A statement of the server waiting on a lock: on `table`, or on an advisory lock. */
async function waiting(on: string): Promise<boolean> {
  const rows = await locker!`select 1 from pg_stat_activity
    where datname = current_database() and wait_event_type = 'Lock'
      and (${on === "advisory"} and wait_event = 'advisory' or query ilike ${`%"${on}"%`})`;
  return rows.length > 0;
}

/**
 * The decrease to two seats with `behavior`, held at `table` while a third seat is assigned; the
 * two answers and the seats paid for and live after.
 */
async function race(behavior: "invoice" | "prorate" | "reset", table: string) {
  const { subscriptionId: id } = await w.seatSubscription(3);
  for (const _ of [1, 2]) {
    const res = await w.call("/v1/customer-seats", {
      body: { subscription_id: id, email: w.email("holder") },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  locker ??= postgres(t.testDb.url!, { max: 2, onnotice: () => {} });
  const release = await holdTableLock(locker, table);
  const decreasing = w.call(`/v1/subscriptions/${id}`, {
    method: "PATCH",
    body: { seats: 2, proration_behavior: behavior },
  });
  await waitFor(() => waiting(table), 30_000, "the decrease waiting");
  let answered = false;
  const assigning = w
    .call("/v1/customer-seats", { body: { subscription_id: id, email: w.email("third") } })
    .finally(() => {
      answered = true;
    });
  await waitFor(
    async () => answered || (await waiting("advisory")),
    30_000,
    "the assignment answered or waiting",
  );
  await release();
  const [decreased, assigned] = [await decreasing, await assigning];
  const [row] = await t.server.database.rows<{ id: string; seats: number; live: number }>(
    sql`select s.id, s.seats::int as seats,
        (select count(*)::int from customer_seats c
          where c.subscription_id = s.id and c.status <> 'revoked') as live
      from subscriptions s where s.id = ${id}`,
  );
  return { decreased, assigned, row };
}

describe.skipIf(!usingPostgres())("a seat decrease racing an assignment", () => {
  it("carried to the next cycle: the assignment counts the seats as the decrease left them", async () => {
    // The decrease holds the purchase's lock while it records its event.
    const { decreased, assigned, row } = await race("prorate", "webhook_events");
    expect(decreased.status, JSON.stringify(decreased.body)).toBe(200);
    expect({ status: assigned.status, body: assigned.body }).toEqual({
      status: 400,
      body: { error: "SeatNotAvailable", detail: "No seats are available on this purchase." },
    });
    expect(row).toEqual({ id: expect.any(String), seats: 2, live: 2 });
  });

  it("settled now: the decrease counts the seats assigned while it settled", async () => {
    // The decrease has checked the seats and is writing its order.
    const { decreased, assigned, row } = await race("invoice", "order_items");
    expect(assigned.status, JSON.stringify(assigned.body)).toBe(200);
    expect({ status: decreased.status, body: decreased.body }).toEqual({
      status: 422,
      body: {
        error: "RequestValidationError",
        detail: [
          {
            loc: ["body", "seats"],
            msg: "3 seats are assigned: revoke some before going below that.",
            type: "value_error",
          },
        ],
      },
    });
    expect(row).toEqual({ id: expect.any(String), seats: 3, live: 3 });
  });

  it("reset: a decrease refused after its charge refunds the charge at once", async () => {
    await enableResetProration(t.url, {
      token: w.seller.token,
      organizationId: w.seller.organization.id,
    });
    // The decrease has checked the seats and is claiming its charge of the new seats' full price.
    const { decreased, assigned, row } = await race("reset", "change_charges");
    expect(assigned.status, JSON.stringify(assigned.body)).toBe(200);
    expect(decreased.status, JSON.stringify(decreased.body)).toBe(422);
    expect(decreased.body.detail[0].msg).toBe(
      "3 seats are assigned: revoke some before going below that.",
    );
    expect(row).toEqual({ id: expect.any(String), seats: 3, live: 3 });
    // No claim is left for the reconciler: the charge was refunded and recorded as such.
    const claims = await t.server.database.rows<{ n: number }>(
      sql`select count(*)::int as n from change_charges where subscription_id = ${row!.id}`,
    );
    expect(claims[0]!.n).toBe(0);
    const refunded = await t.server.database.rows<{ amount: number; status: string }>(
      sql`select amount::int as amount, status from payments
        where idempotency_key like ${`seats:${row!.id}:%`} and decline_reason = 'refunded'`,
    );
    expect(refunded).toHaveLength(1);
    expect(refunded[0]!.amount).toBeGreaterThan(0);
    const orders = await t.server.database.rows<{ n: number }>(
      sql`select count(*)::int as n from orders
        where subscription_id = ${row!.id} and billing_reason = 'subscription_update'`,
    );
    expect(orders[0]!.n).toBe(0);
  });
});
