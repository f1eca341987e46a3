// The customer's receipt email after every paid order and every refund (the job receipt-queue.ts
// sends): the worker writes the mail (email outbox, then SMTP when configured).
import type { Db } from "../../../db/client.ts";
import type { JobDefinition } from "../../jobs/queue.ts";
import type { Mailer } from "../email/mailer.ts";
import { orderForSignedUrl, renderOrders } from "../orders/service.ts";
import { organizationSummary } from "../organizations/service.ts";
import { RECEIPT_MAIL_JOB, type ReceiptMail } from "./receipt-queue.ts";

const money = (minor: number, currency: string) =>
  new Intl.NumberFormat("en-US", { style: "currency", currency: currency.toUpperCase() }).format(
    minor / 100,
  );

export function receiptMailJob(deps: {
  db: Db;
  baseUrl: string;
  mailer: Mailer | null;
}): JobDefinition<ReceiptMail> {
  return {
    name: RECEIPT_MAIL_JOB,
    // A sale's receipt goes out within a second or two; a burst of sales is taken in batches.
    work: { pollingIntervalSeconds: 1, batchSize: 20, burstWhenBatchFull: true },
    async handle(jobs) {
      for (const { data } of jobs) {
        const row = await orderForSignedUrl(deps.db, data.orderId);
        if (!row || !deps.mailer) continue;
        const [[order], seller] = await Promise.all([
          renderOrders(deps.db, deps.baseUrl, [row]),
          organizationSummary(deps.db, row.organizationId),
        ]);
        const email = order?.customer.email;
        if (!email) continue;
        const what = order.product?.name ?? "your order";
        const number = row.invoiceNumber ? ` (${row.invoiceNumber})` : "";
        const refunded = data.kind === "refunded";
        await deps.mailer.send({
          kind: refunded ? "refund-receipt" : "receipt",
          to: email,
          subject: refunded
            ? `Your refund from ${seller.name}`
            : `Your receipt from ${seller.name}`,
          text: refunded
            ? `${seller.name} refunded ${money(data.amount ?? 0, row.currency)} of your payment for ${what}${number}. It reaches your card in a few days.`
            : `Thank you for your purchase of ${what}${number}: ${money(row.totalAmount, row.currency)} paid to ${seller.name}. Your invoice and receipt are in your account.`,
          link: `${deps.baseUrl}/portal`,
        });
      }
    },
  };
}
