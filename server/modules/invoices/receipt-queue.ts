// Queuing the customer's receipt email: the job is sent in the transaction that records the payment
// or refund, so it exists exactly when that committed. Kept apart from the job itself so the modules
// that take payments depend on nothing but the queue.
import { sql } from "drizzle-orm";
import { fromDrizzle } from "pg-boss";
import type { Db } from "../../../db/client.ts";
import type { QueueHandle } from "../../jobs/queue.ts";

export const RECEIPT_MAIL_JOB = "invoices.receipt-mail";

export interface ReceiptMail {
  orderId: string;
  kind: "paid" | "refunded";
  /** Refunds: what was given back, tax included. */
  amount?: number;
}

export async function queueReceiptMail(
  tx: Db,
  queue: QueueHandle | null,
  mail: ReceiptMail,
): Promise<void> {
  if (!queue) return;
  const db = fromDrizzle(tx as unknown as Parameters<typeof fromDrizzle>[0], sql);
  await queue.boss.send(RECEIPT_MAIL_JOB, mail, { db, retryLimit: 5, retryBackoff: true });
}

/** queueReceiptMail for many orders in one statement. */
export async function queueReceiptMails(
  tx: Db,
  queue: QueueHandle | null,
  mails: ReceiptMail[],
): Promise<void> {
  if (!queue || mails.length === 0) return;
  const db = fromDrizzle(tx as unknown as Parameters<typeof fromDrizzle>[0], sql);
  await queue.boss.insert(
    RECEIPT_MAIL_JOB,
    mails.map((data) => ({ data, retryLimit: 5, retryBackoff: true })),
    { db },
  );
}
