// Refunds: made through the API on a succeeded PaymentIntent's charge, read and listed (a page at
// a time, as Stripe pages every list); a test fails one later as a card's bank can (a closed or
// expired card), and the stand-in sends what Stripe sends for it. A charge paid with Stripe's
// pending-refund test card (pm_card_pendingRefund) is refunded `pending`, and a test then moves the
// refund on to succeeded or failed, as Stripe does "some time later". Since API version 2024-10-28
// Stripe sends refund.created, refund.updated and refund.failed for every refund, beside the older
// charge.refunded and charge.refund.updated.
import { randomBytes } from "node:crypto";
import type { StripeState } from "./api.ts";
import { invalidRequest, missing } from "./errors.ts";
import { type Form, record, str } from "./form.ts";
import { pageOf } from "./list.ts";

type Refund = Record<string, unknown> & { id: string };

const now = () => Math.floor(Date.now() / 1000);
/** A failed or canceled refund gave nothing back: its amount can be refunded again. */
const GAVE_BACK = (r: Refund) => r.status !== "failed" && r.status !== "canceled";

export class StripeRefunds {
  private readonly state: StripeState;
  constructor(state: StripeState) {
    this.state = state;
  }

  private refundedOf(piId: string): number {
    return [...this.state.refunds.values()]
      .filter((r) => r.payment_intent === piId && GAVE_BACK(r))
      .reduce((sum, r) => sum + Number(r.amount), 0);
  }

  /** charge.refunded's object: the charge with what is refunded of it now. */
  private charge(pi: Record<string, unknown>): Record<string, unknown> {
    const refunded = this.refundedOf(String(pi.id));
    return {
      id: pi.latest_charge,
      object: "charge",
      payment_intent: pi.id,
      amount: pi.amount_received,
      amount_refunded: refunded,
      refunded: refunded === Number(pi.amount_received),
      currency: pi.currency,
    };
  }

  create(form: Form): Refund {
    const piId = str(form, "payment_intent");
    if (!piId) throw invalidRequest("Missing required param: payment_intent.", "payment_intent");
    const pi = this.state.intents.get(piId);
    if (!pi) throw missing("payment_intent", piId, "payment_intent");
    if (pi.status !== "succeeded")
      throw invalidRequest(
        "This PaymentIntent has no successful charge to refund.",
        "payment_intent",
      );
    const left = Number(pi.amount_received) - this.refundedOf(piId);
    const amount = str(form, "amount") ? Number(str(form, "amount")) : left;
    if (amount > left)
      throw invalidRequest(
        `Refund amount (${amount}) is greater than unrefunded amount on charge (${left})`,
        "amount",
        left === 0 ? "charge_already_refunded" : "amount_too_large",
      );
    const refund: Refund = {
      id: `re_${randomBytes(12).toString("hex")}`,
      object: "refund",
      amount,
      currency: pi.currency,
      payment_intent: piId,
      charge: pi.latest_charge,
      status: this.cardOf(pi)?.refund ?? "succeeded",
      reason: str(form, "reason") ?? null,
      failure_reason: null,
      metadata: record(form, "metadata"),
      created: now(),
    };
    this.state.refunds.set(refund.id, refund);
    this.state.emit("refund.created", refund);
    this.state.emit("charge.refunded", this.charge(pi));
    return refund;
  }

  private cardOf(pi: Record<string, unknown>) {
    return this.state.paymentMethods.get(String(pi.payment_method))?.test;
  }

  get(id: string): Refund {
    const r = this.state.refunds.get(id);
    if (!r) throw missing("refund", id);
    return r;
  }

  /** GET /v1/refunds: newest first, optionally of one PaymentIntent, a page at a time. */
  list(form: Form) {
    const piId = str(form, "payment_intent");
    const all = [...this.state.refunds.values()]
      .filter((r) => !piId || r.payment_intent === piId)
      .reverse();
    return pageOf(all, form, "/v1/refunds", "refund");
  }

  /**
   * A pending refund goes through: Stripe then sends charge.refund.updated and refund.updated, each
   * with the refund.
   */
  succeed(id: string): Refund {
    const r = this.get(id);
    if (r.status !== "pending") throw new Error(`refund ${id} is ${String(r.status)}`);
    r.status = "succeeded";
    this.state.emit("charge.refund.updated", r);
    this.state.emit("refund.updated", r);
    return r;
  }

  /**
   * The card's bank sends the money back (the card closed, expired, lost): the refund fails and
   * its amount is the merchant's again. Stripe then sends charge.refund.updated, refund.updated
   * and refund.failed, each with the refund.
   */
  fail(id: string, failureReason = "expired_or_canceled_card"): Refund {
    const r = this.get(id);
    if (r.status !== "succeeded" && r.status !== "pending")
      throw new Error(`refund ${id} is ${String(r.status)}`);
    r.status = "failed";
    r.failure_reason = failureReason;
    r.failure_balance_transaction = `txn_${randomBytes(12).toString("hex")}`;
    this.state.emit("charge.refund.updated", r);
    this.state.emit("refund.updated", r);
    this.state.emit("refund.failed", r);
    return r;
  }
}
