// The customer's mail after a failed subscription payment (and after the last one, which ends the
// subscription). It is rendered in the transaction of the failure and queued there as a job due at
// once, so it exists exactly when the failure committed and a crash after the commit does not lose
// it; the job is the only sender. Its key (the order and its attempt) writes the mail once however
// often the job runs, the portal session of its link is opened only with the mail's row, and the
// mailer delivers a row under its lock, so two runs of the job never send it twice.
import { sql } from "drizzle-orm";
import { fromDrizzle, type JobWithMetadata } from "pg-boss";
import type { Db, Tx } from "../../../db/client.ts";
import { JOB_HEARTBEAT_SECONDS, type JobDefinition, type QueueHandle } from "../../jobs/queue.ts";
import type { Clock } from "../../lib/clock.ts";
import { formatMoney } from "../../lib/currency-units.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import { newMailSession, portalUrlFor, recordMailSessions } from "../customer-sessions/service.ts";
import type { Mailer } from "../email/mailer.ts";
import { dueAmountOf, type OrderRow } from "../orders/service.ts";
import { customerEmailsOf, subscriptionSettingsOf } from "../organizations/queries.ts";
import { serializeProductsByIds } from "../products/service.ts";
import type { BillingDeps } from "./deps.ts";

export const PAYMENT_FAILED_MAIL_JOB = "subscriptions.payment-failed-mail";

/** A rendered mail, and whose portal its link signs in to. */
export interface PaymentFailedMail {
  organizationId: string;
  customerId: string;
  kind: string;
  key: string;
  to: string;
  subject: string;
  text: string;
}

/**
 * When dunning gives up: the last retry's time, counted from the first failure (Polar's
 * past_due_deadline).
 */
export function dunningDeadline(deps: Pick<BillingDeps, "retryDays">, pastDueAt: Date): Date {
  const days = deps.retryDays.reduce((sum, d) => sum + d, 0);
  return new Date(pastDueAt.getTime() + days * 86_400_000);
}

/**
 * What a past-due customer keeps meanwhile, as Polar's past-due email says it: access until the
 * organization's grace period ends, or no access until the payment goes through, with the date
 * dunning gives up.
 */
async function accessNote(
  db: Db,
  deps: Pick<BillingDeps, "retryDays">,
  organizationId: string,
  pastDueAt: Date,
): Promise<string> {
  const settings = await subscriptionSettingsOf(db, organizationId);
  const grace = settings?.benefit_revocation_grace_period ?? 0;
  const day = (d: Date) => d.toISOString().slice(0, 10);
  if (grace > 0)
    return ` You keep access until ${day(new Date(pastDueAt.getTime() + grace * 86_400_000))}; update your payment method before then to avoid any interruption.`;
  return ` Your access is paused until the payment goes through. If it still cannot be collected, the subscription ends on ${day(dunningDeadline(deps, pastDueAt))}.`;
}

/** The name of the product an order is for (a retry's mail names it as the first one did). */
async function productNameOf(db: Db, baseUrl: string, order: OrderRow): Promise<string | null> {
  if (!order.productId) return null;
  const [product] = await serializeProductsByIds(db, baseUrl, scopeOfResource(order), [
    order.productId,
  ]);
  return product?.name ?? null;
}

/**
 * Renders the failed payment's mail in the failure's transaction and queues the job that sends it;
 * nothing when none is due (no address, or the organization turned the mail off).
 */
export async function recordPaymentFailedMail(
  tx: Tx,
  deps: Pick<BillingDeps, "baseUrl" | "retryDays" | "queue">,
  m: {
    email: string | null;
    productName: string | null;
    order: OrderRow;
    final: boolean;
    /** When the failure made (or keeps) the subscription past_due; none for a usage settlement. */
    pastDueAt?: Date | null;
  },
): Promise<void> {
  const mail = await renderPaymentFailedMail(tx, deps, m);
  if (mail) await queuePaymentFailedMails(tx, deps.queue, [mail]);
}

async function renderPaymentFailedMail(
  tx: Tx,
  deps: Pick<BillingDeps, "baseUrl" | "retryDays">,
  m: Parameters<typeof recordPaymentFailedMail>[2],
): Promise<PaymentFailedMail | null> {
  if (!m.email) return null;
  // Polar's settings for these two: the failed payment, and the subscription it ends.
  const emails = await customerEmailsOf(tx, m.order.organizationId);
  if (emails?.[m.final ? "subscription_revoked" : "subscription_past_due"] === false) return null;
  const productName = m.productName ?? (await productNameOf(tx, deps.baseUrl, m.order));
  const what = productName ? `your ${productName} subscription` : "your subscription";
  const next = m.order.nextPaymentAttemptAt;
  const due = formatMoney(dueAmountOf(m.order), m.order.currency);
  const text = m.final
    ? `We could not collect ${due} for ${what} after several attempts, so it has ended.`
    : `We could not collect ${due} for ${what}. We will try again on ${next?.toISOString().slice(0, 10) ?? "a later date"}; update your payment method to pay now.${m.pastDueAt ? await accessNote(tx, deps, m.order.organizationId, m.pastDueAt) : ""}`;
  const kind = m.final ? "subscription-ended-unpaid" : "payment-failed";
  return {
    organizationId: m.order.organizationId,
    customerId: m.order.customerId,
    kind,
    // Once per failed attempt of the order, however often the job that found it runs.
    key: `${kind}:${m.order.id}:${m.order.paymentAttempts}`,
    to: m.email,
    subject: m.final ? "Your subscription has ended" : "Your payment failed",
    text,
  };
}

/** Queues the job of each mail, due at once, in the caller's transaction. */
async function queuePaymentFailedMails(
  tx: Tx,
  queue: QueueHandle | null,
  mails: PaymentFailedMail[],
): Promise<void> {
  if (!queue || mails.length === 0) return;
  const db = fromDrizzle(tx as unknown as Parameters<typeof fromDrizzle>[0], sql);
  await queue.boss.insert(
    PAYMENT_FAILED_MAIL_JOB,
    mails.map((data) => ({ data, retryLimit: 5, retryBackoff: true })),
    { db },
  );
}

/** Sends the mails not sent yet; each link's session is opened with its mail's row. */
async function sendPaymentFailedMails(
  deps: { clock: Clock; baseUrl: string; mailer: Mailer | null },
  mails: PaymentFailedMail[],
): Promise<void> {
  const { mailer } = deps;
  if (!mailer) return;
  for (const { organizationId, customerId, ...mail } of mails) {
    const session = newMailSession(organizationId, customerId);
    await mailer.send(
      // Signed in, so "update your payment method" is one click away.
      { ...mail, link: portalUrlFor(deps.baseUrl, session.token) },
      (tx) => recordMailSessions(tx, deps.clock, [session]),
    );
  }
}

export function paymentFailedMailJob(deps: {
  clock: Clock;
  baseUrl: string;
  mailer: Mailer | null;
}): JobDefinition<PaymentFailedMail> {
  return {
    name: PAYMENT_FAILED_MAIL_JOB,
    // Polled as often as receipts: the customer reads this mail right after the failure.
    work: { pollingIntervalSeconds: 1, batchSize: 100, includeMetadata: true },
    queue: { heartbeatSeconds: JOB_HEARTBEAT_SECONDS },
    // A batch comes back in no set order; a customer's mails go out in the order of the failures
    // (the last one's "ended" after the retries' "failed"), as their jobs were queued.
    handle: (jobs) =>
      sendPaymentFailedMails(
        deps,
        (jobs as JobWithMetadata<PaymentFailedMail>[])
          .toSorted((a, b) => a.createdOn.getTime() - b.createdOn.getTime())
          .map((j) => j.data),
      ),
  };
}
