// The failed-payment mail has one sender, the job queued with the failure, due at once: the process
// that made the change does not send it besides (two senders of one mail could both send it). With
// no worker running the job, no mail goes out and the job waits, due now.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  advance,
  billingSeller,
  subscribe,
  subscriptionOf,
  type BillingSeller,
} from "../../../test/helpers/billing.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

let t: TestServer;
let s: BillingSeller;

beforeAll(async () => {
  t = await startTestServer({ worker: false });
  s = await billingSeller(t);
});
afterAll(() => t?.stop());

describe("the failed-payment mail's sender", () => {
  it("is the job queued with the failure, due at once, and nothing else", async () => {
    const product = await s.polar.products.create({
      name: "Declining",
      recurringInterval: "month",
      prices: [{ amountType: "fixed", priceAmount: 900, priceCurrency: "usd" }],
    });
    const email = "one-sender@example.com";
    const { subscriptionId } = await subscribe(
      s,
      product.id,
      "sandbox_token_renewal_declined",
      email,
    );
    await advance(s, { to: (await subscriptionOf(s, subscriptionId)).current_period_end });
    expect((await subscriptionOf(s, subscriptionId)).status).toBe("past_due");
    const mails = await t.server.database.rows<{ n: number }>(
      sql`select count(*)::int as n from email_outbox where "to" = ${email} and kind = 'payment-failed'`,
    );
    expect(mails[0]!.n).toBe(0);
    const jobs = await t.server.database.rows<{ due: boolean }>(
      sql`select start_after <= now() as due from pgboss.job
          where name = 'subscriptions.payment-failed-mail' and data->>'to' = ${email}`,
    );
    expect(jobs).toEqual([{ due: true }]);
  });
});
