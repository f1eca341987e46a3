// The failed-payment mail says the amount as money in its own currency: a yen renewal of 1500 is
// "¥1,500" (yen have no minor unit), a dollar one of 900 is "$9.00".
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  advance,
  billingSeller,
  subscribe,
  type BillingSeller,
} from "../../../test/helpers/billing.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { waitFor } from "../../../test/helpers/webhook-receiver.ts";

let t: TestServer;
let s: BillingSeller;

beforeAll(async () => {
  t = await startTestServer();
  s = await billingSeller(t);
});
afterAll(() => t?.stop());

async function failedMailOf(name: string, amount: number, currency: "jpy" | "usd", email: string) {
  const product = await s.polar.products.create({
    name,
    recurringInterval: "month",
    prices: [{ amountType: "fixed", priceAmount: amount, priceCurrency: currency }],
  });
  await subscribe(s, product.id, "sandbox_token_renewal_declined", email);
  await advance(s, { seconds: 32 * 86_400 });
  // The job queued with the failure sends it once that has committed.
  const mailOf = async () =>
    (
      await t.server.database.rows<{ text: string }>(
        sql`select text from email_outbox where "to" = ${email} and kind = 'payment-failed'`,
      )
    )[0];
  await waitFor(async () => (await mailOf()) !== undefined, 10_000, "the failed-payment mail");
  return (await mailOf())!.text;
}

describe("the failed-payment mail", () => {
  it("says the amount due as money in its currency", async () => {
    expect(await failedMailOf("Yen plan", 1500, "jpy", "yen@example.com")).toContain(
      "We could not collect ¥1,500 for your Yen plan subscription.",
    );
    expect(await failedMailOf("Dollar plan", 900, "usd", "usd@example.com")).toContain(
      "We could not collect $9.00 for your Dollar plan subscription.",
    );
  });
});
