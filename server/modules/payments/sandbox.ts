// The sandbox processor. Test cards decide the outcome, as in Stripe's test mode:
// 4242 4242 4242 4242 succeeds, 4000 0000 0000 0002 is declined, 4000 0000 0000 9995 has
// insufficient funds; any future expiry and any CVC. Fixed tokens sandbox_token_success,
// sandbox_token_declined and sandbox_token_insufficient_funds skip the card form.
import { createHash, randomBytes } from "node:crypto";
import type { Db } from "../../../db/client.ts";
import type { Clock } from "../../lib/clock.ts";
import { RequestValidationError } from "../../lib/errors.ts";
import {
  DECLINE_MESSAGES,
  type ChargeResult,
  type PaymentOutcome,
  type PaymentProcessor,
} from "./processor.ts";
import { findConfirmationToken, insertConfirmationToken } from "./repository.ts";

export const TEST_CARDS: Record<string, { outcome: PaymentOutcome; brand: string }> = {
  "4242424242424242": { outcome: "success", brand: "visa" },
  "4000000000000002": { outcome: "declined", brand: "visa" },
  "4000000000009995": { outcome: "insufficient_funds", brand: "visa" },
  "5555555555554444": { outcome: "success", brand: "mastercard" },
};

export const FIXED_TOKENS: Record<string, PaymentOutcome> = {
  sandbox_token_success: "success",
  sandbox_token_declined: "declined",
  sandbox_token_insufficient_funds: "insufficient_funds",
};

/** Charges with this token succeed and refunds of them fail, as Stripe's 4000 0000 0000 5126 card. */
export const REFUND_FAILS_TOKEN = "sandbox_token_refund_fails";
const REFUND_FAILS_PREFIX = "sandbox_pay_refundfail_";

export interface CardInput {
  number: string;
  exp_month: number;
  exp_year: number;
  cvc: string;
}

export async function createConfirmationToken(
  db: Db,
  clock: Clock,
  card: CardInput,
): Promise<{
  id: string;
  card: { brand: string; last4: string; exp_month: number; exp_year: number };
}> {
  const number = card.number.replace(/[\s-]/g, "");
  const test = TEST_CARDS[number];
  if (!test) {
    throw RequestValidationError.field(
      ["body", "card", "number"],
      "Use a sandbox test card: 4242 4242 4242 4242 (success), 4000 0000 0000 0002 (declined) or 4000 0000 0000 9995 (insufficient funds).",
    );
  }
  const now = clock.now();
  const year = card.exp_year < 100 ? 2000 + card.exp_year : card.exp_year;
  if (
    year < now.getUTCFullYear() ||
    (year === now.getUTCFullYear() && card.exp_month < now.getUTCMonth() + 1)
  ) {
    throw RequestValidationError.field(
      ["body", "card", "exp_year"],
      "Your card's expiration date is in the past.",
    );
  }
  const id = `sandbox_ctok_${randomBytes(18).toString("base64url")}`;
  const last4 = number.slice(-4);
  await insertConfirmationToken(db, {
    id,
    brand: test.brand,
    last4,
    expMonth: card.exp_month,
    expYear: year,
    outcome: test.outcome,
    createdAt: now,
  });
  return { id, card: { brand: test.brand, last4, exp_month: card.exp_month, exp_year: year } };
}

export function createSandboxProcessor(deps: { db: Db }): PaymentProcessor {
  return {
    name: "sandbox",
    async charge(request): Promise<ChargeResult> {
      if (request.confirmationTokenId === REFUND_FAILS_TOKEN) {
        const id = createHash("sha256")
          .update(request.idempotencyKey)
          .digest("base64url")
          .slice(0, 24);
        return {
          status: "succeeded",
          processorPaymentId: `${REFUND_FAILS_PREFIX}${id}`,
          card: { brand: "visa", last4: "5126" },
        };
      }
      let outcome = FIXED_TOKENS[request.confirmationTokenId];
      let card = {
        brand: "visa",
        last4: outcome === "declined" ? "0002" : outcome === "insufficient_funds" ? "9995" : "4242",
      };
      if (!outcome) {
        const token = await findConfirmationToken(deps.db, request.confirmationTokenId);
        if (!token)
          return {
            status: "failed",
            code: "invalid_token",
            message: DECLINE_MESSAGES.invalid_token,
          };
        outcome = token.outcome;
        card = { brand: token.brand, last4: token.last4 };
      }
      if (outcome === "declined")
        return { status: "failed", code: "card_declined", message: DECLINE_MESSAGES.card_declined };
      if (outcome === "insufficient_funds")
        return {
          status: "failed",
          code: "insufficient_funds",
          message: DECLINE_MESSAGES.insufficient_funds,
        };
      // Deterministic per idempotency key: a retried confirm maps to the same payment.
      const processorPaymentId = `sandbox_pay_${createHash("sha256").update(request.idempotencyKey).digest("base64url").slice(0, 24)}`;
      return { status: "succeeded", processorPaymentId, card };
    },
    async refund(request) {
      if (request.processorPaymentId.startsWith(REFUND_FAILS_PREFIX))
        return { status: "failed", message: "The card issuer declined the refund." };
      const processorRefundId = `sandbox_re_${createHash("sha256").update(request.idempotencyKey).digest("base64url").slice(0, 24)}`;
      return { status: "succeeded", processorRefundId };
    },
  };
}
