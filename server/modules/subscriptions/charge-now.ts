// A subscription change settled now (`invoice`, for a plan or a seat change): tax on the prorated
// difference, an off-session charge of the saved method, then a paid `subscription_update` order
// with its credit and debit lines, written with the change itself in one transaction. A decrease
// charges nothing: its order totals the (negative) credit, which goes to the customer's balance. As
// Polar, a declined charge leaves the subscription as it was: the decline is recorded as a payment
// and the request answered 402. The charge is claimed (change_charges, with the request as it is
// asked) before the processor is asked and the claim is settled by the change's transaction: a change that dies between the two,
// or whose processor never answers, leaves the claim to the reconciler (change-reconcile.ts),
// which refunds what was charged for a change that was never made. A change refused in its own
// transaction after the charge (seats assigned meanwhile) takes its claim over and refunds at once.
import { inTransaction, type Tx } from "../../../db/client.ts";
import { ApiError, ServiceUnavailable } from "../../lib/errors.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import { customersByIds } from "../customers/queries.ts";
import { queueReceiptMail } from "../invoices/receipt-queue.ts";
import { insertOrderOnce, serializeOrders } from "../orders/service.ts";
import { fixedClock } from "../sandbox-clock/queries.ts";
import { settleOrderBalance } from "../wallets/service.ts";
import { recordEvent } from "../webhooks/outbox.ts";
import {
  abandonChangeCharge,
  dropChangeCharge,
  insertChangeCharge,
  settleChangeCharge,
} from "./change-charge-repository.ts";
import { settleChangeClaim } from "./change-reconcile.ts";
import { chargeMethod, offSessionRequest, recordAttempt } from "./charge.ts";
import { defaultPaymentMethod } from "../payments/queries.ts";
import type { BillingDeps } from "./deps.ts";
import type { SubscriptionRow } from "./repository.ts";

export interface ChangeCharge {
  /** The order's billing key; the charge's idempotency key derives from it. */
  key: string;
  /** What the processor shows for the charge. */
  description: string;
  productId: string;
  seats?: number | null;
  /** The prorated net difference: > 0 charged, < 0 credited to the balance. */
  difference: number;
  /** The proration lines: the credit (negative) and the debit. */
  lines: { label: string; amount: number }[];
  now: Date;
  /** Applies the change, in the order's transaction. */
  apply: (tx: Tx) => Promise<void>;
}

export async function chargeChangeNow(
  deps: BillingDeps,
  s: SubscriptionRow,
  c: ChangeCharge,
): Promise<void> {
  const clock = fixedClock(c.now);
  // Taxed as the renewals are, at the customer's country's rate: a credit gives back the tax paid
  // on the unused part with it.
  const [customer] = await customersByIds(deps.db, scopeOfResource(s), [s.customerId]);
  const country = (customer?.billing_address as { country?: string } | null)?.country ?? null;
  const taxOf = (amount: number) =>
    Math.sign(amount) *
    (deps.tax.quote({ netAmount: Math.abs(amount), currency: s.currency, country }).taxAmount ?? 0);
  const lines = c.lines.map((l) => ({ ...l, taxAmount: taxOf(l.amount) }));
  const taxAmount = lines.reduce((sum, l) => sum + l.taxAmount, 0);
  const total = c.difference + taxAmount;
  const chargeKey = `${c.key}:0`;
  const claimed = total > 0;
  const method = claimed
    ? await defaultPaymentMethod(deps.db, scopeOfResource(s), s.customerId)
    : null;
  const charge = { s, amount: total, idempotencyKey: chargeKey, description: c.description };
  if (claimed)
    await insertChangeCharge(deps.db, {
      organizationId: s.organizationId,
      subscriptionId: s.id,
      customerId: s.customerId,
      idempotencyKey: chargeKey,
      amount: total,
      currency: s.currency,
      // The charge as it is asked below, so the reconciler can ask it again under its key.
      paymentReplay: method ? offSessionRequest(charge, method) : null,
      // The real time, not the sandbox clock's: staleness is measured in seconds that passed.
      claimedAt: deps.clock.now(),
    });
  const outcome = await chargeMethod(deps, s, method, total, chargeKey, c.description);
  if (outcome.status === "failed") {
    await inTransaction(deps.db, async (tx) => {
      await recordAttempt(tx, clock, deps, s, null, outcome, "subscription_cycle");
      await dropChangeCharge(tx, chargeKey);
    });
    throw new ApiError(402, "PaymentFailed", outcome.message);
  }
  try {
    await inTransaction(deps.db, async (tx) => {
      // First, so a reconciler taking the claim over waits for this transaction or stops it.
      if (claimed && !(await settleChangeCharge(tx, chargeKey)))
        throw new ServiceUnavailable(
          "The payment processor answered too late: the change was not made, and its charge is refunded.",
        );
      const inserted = await insertOrderOnce(
        tx,
        {
          organizationId: s.organizationId,
          customerId: s.customerId,
          productId: c.productId,
          subscriptionId: s.id,
          status: "paid",
          billingReason: "subscription_update",
          billingKey: c.key,
          ...(c.seats != null ? { seats: c.seats } : {}),
          subtotalAmount: c.difference,
          discountAmount: 0,
          netAmount: c.difference,
          taxAmount,
          totalAmount: total,
          currency: s.currency,
          processorPaymentId: outcome.processorPaymentId,
          paymentAttempts: 1,
          metadata: s.metadata,
          customFieldData: s.customFieldData,
          createdAt: c.now,
        },
        lines.map((l) => ({
          ...l,
          proration: true,
          productPriceId: null,
          createdAt: c.now,
        })),
      );
      await c.apply(tx);
      if (!inserted) return;
      await settleOrderBalance(tx, inserted.order, c.now);
      await recordAttempt(tx, clock, deps, s, inserted.order.id, outcome, "subscription_cycle");
      const [data] = await serializeOrders(tx, deps.baseUrl, [inserted.order]);
      for (const type of ["order.created", "order.paid"])
        await recordEvent(tx, clock, { organizationId: s.organizationId, type, data });
      if (total > 0)
        await queueReceiptMail(tx, deps.queue, { orderId: inserted.order.id, kind: "paid" });
    });
  } catch (err) {
    if (claimed) await refundUnmadeChange(deps, chargeKey);
    throw err;
  }
}

/**
 * The change's transaction failed after its charge: the claim is taken over (unless the change
 * committed after all, or a reconciler has it) and its charge refunded now rather than at the
 * reconciler's next run. What cannot be settled now is left to the reconciler.
 */
async function refundUnmadeChange(deps: BillingDeps, key: string): Promise<void> {
  try {
    const claim = await abandonChangeCharge(deps.db, key);
    if (claim) await settleChangeClaim(deps, claim);
  } catch {
    // The claim stays, and the reconciler settles it.
  }
}
