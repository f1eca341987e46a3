// Queuing the customer's receipt email: the job is sent in the transaction that records the payment
// or refund, so it exists exactly when that committed. Kept apart from the job itself so the modules
// that take payments depend on nothing but the queue.
import { sql } from "drizzle-orm";
import { fromDrizzle } from "pg-boss";
import type { Tx } from "../../../db/client.ts";
import type { QueueHandle } from "../../jobs/queue.ts";

export const RECEIPT_MAIL_JOB = "invoices.receipt-mail";

export interface ReceiptMail {
  orderId: string;
  kind: "paid" | "refunded";
  /** Refunds: what was given back, tax included. */
  amount?: number;
  /** Refunds: the refund, which keys its mail apart from the order's other refunds. */
  refundId?: string;
}

export async function queueReceiptMail(
  tx: Tx,
  queue: QueueHandle | null,
  mail: ReceiptMail,
): Promise<void> {
  if (!queue) return;
  const db = fromDrizzle(tx as unknown as Parameters<typeof fromDrizzle>[0], sql);
  await queue.boss.send(RECEIPT_MAIL_JOB, mail, { db, retryLimit: 5, retryBackoff: true });
}

/** The job's data: one mail, or the mails of a batch of renewals. */
export type ReceiptJob = ReceiptMail | { mails: ReceiptMail[] };

/** The mails one job carries. */
export function mailsOf(job: ReceiptJob): ReceiptMail[] {
  return "mails" in job ? job.mails : [job];
}

/** Mails per job of queueReceiptMails: a batch's jobs, not one per order, keep the queue short. */
export const RECEIPT_MAILS_PER_JOB = 100;

/** queueReceiptMail for many orders: one statement, a job per RECEIPT_MAILS_PER_JOB mails. */
export async function queueReceiptMails(
  tx: Tx,
  queue: QueueHandle | null,
  mails: ReceiptMail[],
): Promise<void> {
  if (!queue || mails.length === 0) return;
  const db = fromDrizzle(tx as unknown as Parameters<typeof fromDrizzle>[0], sql);
  const jobs: { data: ReceiptJob; retryLimit: number; retryBackoff: boolean }[] = [];
  for (let i = 0; i < mails.length; i += RECEIPT_MAILS_PER_JOB)
    jobs.push({
      data: { mails: mails.slice(i, i + RECEIPT_MAILS_PER_JOB) },
      retryLimit: 5,
      retryBackoff: true,
    });
  await queue.boss.insert(RECEIPT_MAIL_JOB, jobs, { db });
}
