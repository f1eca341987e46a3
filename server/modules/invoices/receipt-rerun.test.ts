// A receipt job run again (its worker was killed after sending the mail, before the job completed)
// finds the receipt it wrote and sends nothing; a receipt whose sending the killed run never
// reached goes out once. Before, every run wrote a new outbox row and sent the receipt again. A run
// again opens no second session for the receipt's portal link: the one written with the mail stays
// the only one, and its link signs the buyer in.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { billingSeller, buy, type BillingSeller } from "../../../test/helpers/billing.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { openMailLink } from "../../../test/helpers/browser.ts";
import { type LocalSmtp, startSmtp } from "../../../test/helpers/smtp-server.ts";
import { waitFor } from "../../../test/helpers/webhook-receiver.ts";
import { RECEIPT_MAIL_JOB } from "./receipt-queue.ts";

let smtp: LocalSmtp;
let t: TestServer;
let s: BillingSeller;
beforeAll(async () => {
  smtp = await startSmtp();
  t = await startTestServer({
    env: { SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, EMAIL_FROM: "till <mail@till.test>" },
  });
  s = await billingSeller(t);
});
afterAll(async () => {
  await t?.stop();
  await smtp?.close();
});

const buyer = "rerun@example.com";
const receipts = () => smtp.received.filter((m) => m.to.includes(buyer));
const rows = () =>
  t.server.database.rows<{ id: string; sent_at: string | null }>(
    sql`select id, sent_at from email_outbox where "to" = ${buyer} and kind = 'receipt'`,
  );

/** The buyer's live sessions opened for mail links (the checkout's own lasts an hour). */
const mailSessions = async () =>
  (
    await t.server.database.rows<{ n: number }>(
      sql`select count(*)::int as n from customer_sessions s join customers c on c.id = s.customer_id
        where c.email = ${buyer} and s.expires_at > now() + interval '1 day'`,
    )
  )[0]!.n;

/** Runs the sale's receipt job again, as pg-boss does when the worker that held it died. */
async function runAgain(orderId: string): Promise<void> {
  const id = await t.server.queue.boss.send(RECEIPT_MAIL_JOB, { orderId, kind: "paid" });
  await waitFor(
    async () =>
      (await t.server.queue.boss.getJobById(RECEIPT_MAIL_JOB, id!))?.state === "completed",
    30_000,
    "the receipt job run again",
  );
}

describe("a receipt job run again", () => {
  it("sends the receipt once, and sends it when the first run died before it", async () => {
    const product = await s.polar.products.create({
      name: "Ebook",
      prices: [{ amountType: "fixed", priceAmount: 900, priceCurrency: "usd" }],
    });
    await buy(s, product.id, "sandbox_token_success", buyer);
    await waitFor(async () => receipts().length > 0, 30_000, "the receipt");
    const [order] = await t.server.database.rows<{ id: string }>(
      sql`select o.id from orders o join customers c on c.id = o.customer_id where c.email = ${buyer}`,
    );

    await runAgain(order!.id);
    expect(receipts()).toHaveLength(1);
    expect(await rows()).toEqual([{ id: expect.any(String), sent_at: expect.anything() }]);
    expect(await mailSessions()).toBe(1);
    const [mail] = await t.server.database.rows<{ link: string }>(
      sql`select link from email_outbox where "to" = ${buyer} and kind = 'receipt'`,
    );
    const token = new URL(openMailLink(mail!.link)).searchParams.get("customer_session_token");
    const me = await fetch(`${t.url}/v1/customer-portal/customers/me`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(me.status).toBe(200);
    // The mail the buyer gets carries the link, not only the outbox row.
    expect(
      receipts()[0]!
        .data.replace(/=\r?\n/g, "")
        .replace(/=3D/g, "="),
    ).toContain(openMailLink(mail!.link));

    // The first run wrote the row and died before the relay took the mail.
    await t.server.database.rows(
      sql`update email_outbox set sent_at = null where "to" = ${buyer} and kind = 'receipt'`,
    );
    await runAgain(order!.id);
    expect(receipts()).toHaveLength(2);
    expect(await rows()).toEqual([{ id: expect.any(String), sent_at: expect.anything() }]);
    expect(await mailSessions()).toBe(1);
  });
});
