// Disputes (chargebacks): a test opens one on a succeeded PaymentIntent's charge as a bank would,
// moves it along (under review, won, lost) and the stand-in sends the events Stripe sends; the API
// reads a dispute and closes one (the merchant accepts it: lost).
import { randomBytes } from "node:crypto";
import type { StripeState } from "./api.ts";
import { invalidRequest, missing } from "./errors.ts";

type Dispute = Record<string, unknown> & { id: string; status: string };

const DAY = 86_400;
const now = () => Math.floor(Date.now() / 1000);

export class StripeDisputes {
  readonly all = new Map<string, Dispute>();
  private readonly state: StripeState;
  constructor(state: StripeState) {
    this.state = state;
  }

  /** The cardholder's bank opens a dispute on the payment (charge.dispute.created). */
  open(
    paymentIntentId: string,
    opts: { amount?: number; reason?: string; status?: string } = {},
  ): Dispute {
    const pi = this.state.intents.get(paymentIntentId);
    if (pi?.status !== "succeeded") throw new Error(`no succeeded intent ${paymentIntentId}`);
    const d: Dispute = {
      id: `dp_${randomBytes(12).toString("hex")}`,
      object: "dispute",
      amount: opts.amount ?? Number(pi!.amount_received),
      currency: pi!.currency,
      charge: pi!.latest_charge,
      payment_intent: pi!.id,
      reason: opts.reason ?? "fraudulent",
      status: opts.status ?? "needs_response",
      evidence_details: {
        due_by: now() + 7 * DAY,
        has_evidence: false,
        past_due: false,
        submission_count: 0,
      },
      is_charge_refundable: false,
      livemode: false,
      metadata: {},
      created: now(),
    };
    this.all.set(d.id, d);
    this.state.emit("charge.dispute.created", d);
    return d;
  }

  /** The dispute moves on: under_review is an update, won and lost close it. */
  move(id: string, status: "under_review" | "won" | "lost"): Dispute {
    const d = this.get(id);
    d.status = status;
    this.state.emit(
      status === "under_review" ? "charge.dispute.updated" : "charge.dispute.closed",
      d,
    );
    return d;
  }

  get(id: string): Dispute {
    const d = this.all.get(id);
    if (!d) throw missing("dispute", id);
    return d;
  }

  /** POST /v1/disputes/:id/close: the merchant accepts the dispute, which is then lost. */
  close(id: string): Dispute {
    const d = this.get(id);
    if (d.status !== "needs_response" && d.status !== "warning_needs_response")
      throw invalidRequest(
        `This dispute is already closed or under review (status: ${d.status}).`,
        undefined,
        "dispute_already_closed",
      );
    d.status = "lost";
    this.state.emit("charge.dispute.closed", d);
    return d;
  }
}
