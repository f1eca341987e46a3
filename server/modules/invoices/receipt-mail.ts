// The customer's receipt email after every paid order and every refund (the job receipt-queue.ts
// sends): the worker writes the mail (email outbox, then SMTP when configured).
import { formatMoney } from "../../lib/currency-units.ts";
import type { Db, Tx } from "../../../db/client.ts";
import { JOB_HEARTBEAT_SECONDS, type JobDefinition } from "../../jobs/queue.ts";
import type { Clock } from "../../lib/clock.ts";
import {
  newMailSession,
  portalUrlFor,
  recordMailSessions,
  type MailSession,
} from "../customer-sessions/service.ts";
import type { Mailer, OutgoingMail } from "../email/mailer.ts";
import { periodStartOfKey, receiptFactsForJob, type ReceiptFacts } from "../orders/service.ts";
import type { CustomerEmail } from "../organizations/schemas.ts";
import { organizationSummary } from "../organizations/service.ts";
import { mailsOf, RECEIPT_MAIL_JOB, type ReceiptJob, type ReceiptMail } from "./receipt-queue.ts";

/**
 * The setting of customer_email_settings that says whether a paid order's receipt goes out, by
 * billing reason, as Polar's emails for them; refunds always do.
 */
function settingOf(
  reason: string,
  trialEnd: Date | null,
  billingKey: string | null,
): CustomerEmail | null {
  switch (reason) {
    case "purchase":
      return "order_confirmation";
    case "subscription_create":
      return "subscription_confirmation";
    case "subscription_update":
      return "subscription_updated";
    case "subscription_cycle": {
      // The first charge after a trial: the period it pays for starts at the trial's end.
      const start = periodStartOfKey(billingKey);
      return start && trialEnd && start.getTime() === trialEnd.getTime()
        ? "subscription_cycled_after_trial"
        : "subscription_cycled";
    }
    case "subscription_meter_cycle":
      return "subscription_cycled";
    default:
      return null;
  }
}

/**
 * What the receipt says was paid, and how: the card's charge differs from the order's total when
 * the balance paid part of it, when it collected an amount owed, or when the order was below the
 * minimum charge and owed instead.
 */
function paidLine(row: ReceiptFacts, seller: string): string {
  const m = (minor: number) => formatMoney(minor, row.currency);
  const total = row.totalAmount;
  const charged = Math.max(0, total + row.appliedBalanceAmount);
  if (!row.processorPaymentId && total > 0 && row.appliedBalanceAmount === 0)
    return `${m(total)} to ${seller}. It is below the smallest amount a card can be charged, so it is added to your next payment.`;
  if (row.appliedBalanceAmount < 0)
    return charged === 0
      ? `${m(total)} to ${seller}, paid from your balance.`
      : `${m(total)} to ${seller}: ${m(-row.appliedBalanceAmount)} from your balance and ${m(charged)} charged to your card.`;
  if (row.appliedBalanceAmount > 0)
    return `${m(total)} to ${seller}, and ${m(row.appliedBalanceAmount)} owed from earlier orders: ${m(charged)} charged to your card.`;
  return `${m(total)} paid to ${seller}.`;
}

export function receiptMailJob(deps: {
  db: Db;
  clock: Clock;
  baseUrl: string;
  mailer: Mailer | null;
}): JobDefinition<ReceiptJob> {
  return {
    name: RECEIPT_MAIL_JOB,
    // A sale's receipt goes out within a second or two; a burst of sales (the renewals of the
    // 1st of the month) is taken in batches, each rendered with one read per kind of row.
    work: { pollingIntervalSeconds: 1, batchSize: 100, burstWhenBatchFull: true },
    // A job whose worker died goes back to the queue within about a minute, not 15.
    queue: { heartbeatSeconds: JOB_HEARTBEAT_SECONDS },
    async handle(jobs) {
      const mailer = deps.mailer;
      if (!mailer) return;
      // A job holds one mail or a renewal batch's: rendered a bounded number at a time.
      const wanted = jobs.flatMap((j) => mailsOf(j.data));
      for (let i = 0; i < wanted.length; i += MAILS_PER_RENDER)
        await sendReceipts(deps, mailer, wanted.slice(i, i + MAILS_PER_RENDER));
    },
  };
}

const MAILS_PER_RENDER = 500;

async function sendReceipts(
  deps: { db: Db; clock: Clock; baseUrl: string },
  mailer: Mailer,
  wanted: ReceiptMail[],
): Promise<void> {
  const rows = await receiptFactsForJob(deps.db, [...new Set(wanted.map((m) => m.orderId))]);
  const organizationIds = [...new Set(rows.map((r) => r.organizationId))];
  const sellers = await Promise.all(
    organizationIds.map(async (id) => [id, await organizationSummary(deps.db, id)] as const),
  );
  const rowById = new Map(rows.map((r) => [r.id, r]));
  const sellerById = new Map(sellers);
  const mails: OutgoingMail[] = [];
  // The session of each mail's link, opened only with the mail's row: a run again opens none.
  const sessions = new Map<string, MailSession>();
  for (const data of wanted) {
    const row = rowById.get(data.orderId);
    if (!row) continue;
    const seller = sellerById.get(row.organizationId)!;
    const email = row.customerEmail;
    if (!email) continue;
    const what = row.productName ?? "your order";
    const number = row.invoiceNumber ? ` (${row.invoiceNumber})` : "";
    const refunded = data.kind === "refunded";
    const setting = refunded ? null : settingOf(row.billingReason, row.trialEnd, row.billingKey);
    if (setting && !seller.customerEmails[setting]) continue;
    // Written once per payment or refund: a job run again after its worker died sends it once.
    // A refund's job queued before refunds named themselves is keyed by its amount.
    const key = refunded
      ? `refund-receipt:${data.refundId ?? `${data.orderId}:${data.amount ?? 0}`}`
      : `receipt:${data.orderId}`;
    if (sessions.has(key)) continue;
    const session = newMailSession(row.organizationId, row.customerId);
    sessions.set(key, session);
    mails.push({
      kind: refunded ? "refund-receipt" : "receipt",
      key,
      to: email,
      subject: refunded ? `Your refund from ${seller.name}` : `Your receipt from ${seller.name}`,
      text: refunded
        ? `${seller.name} refunded ${formatMoney(data.amount ?? 0, row.currency)} of your payment for ${what}${number}. It reaches your card in a few days.`
        : `Thank you for your purchase of ${what}${number}: ${paidLine(row, seller.name)} Your invoice and receipt are in your account.`,
      // The portal, signed in for a while, where the invoice and receipt are.
      link: portalUrlFor(deps.baseUrl, session.token),
    });
  }
  const recorded = (tx: Tx, written: OutgoingMail[]) =>
    recordMailSessions(
      tx,
      deps.clock,
      written.map((mail) => sessions.get(mail.key!)!),
    );
  if (mailer.sendMany) await mailer.sendMany(mails, recorded);
  else for (const mail of mails) await mailer.send(mail, recorded);
}
