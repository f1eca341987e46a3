// The sandbox processor. Test cards decide the outcome, as in Stripe's test mode:
// 4242 4242 4242 4242 succeeds, 4000 0000 0000 0002 is declined, 4000 0000 0000 9995 has
// insufficient funds; any future expiry and any CVC. Fixed tokens sandbox_token_success,
// sandbox_token_declined and sandbox_token_insufficient_funds skip the card form.
// 4000 0000 0000 0341 (and sandbox_token_renewal_declined) succeeds at checkout, but every later
// off-session charge of the card it saved is declined, so renewal failures and dunning run offline.
// sandbox_token_renewal_lost_card does the same with the issuer's "lost card, do not retry".
// The processor itself is in sandbox-processor.ts.
import { randomBytes } from "node:crypto";
import type { Db } from "../../../db/client.ts";
import type { Clock } from "../../lib/clock.ts";
import { RequestValidationError } from "../../lib/errors.ts";
import type { PaymentOutcome } from "./processor.ts";
import { insertConfirmationToken } from "./repository.ts";

export const TEST_CARDS: Record<string, { outcome: PaymentOutcome; brand: string }> = {
  "4242424242424242": { outcome: "success", brand: "visa" },
  "4000000000000002": { outcome: "declined", brand: "visa" },
  "4000000000009995": { outcome: "insufficient_funds", brand: "visa" },
  "5555555555554444": { outcome: "success", brand: "mastercard" },
  "4000000000000341": { outcome: "renewal_declined", brand: "visa" },
};

const OUTCOME_WORDS: Record<string, string> = {
  success: "success",
  declined: "declined",
  insufficient_funds: "insufficient funds",
  renewal_declined: "paid now, renewals declined",
};

/** Every test card in words, for the error that meets any other number. */
const TEST_CARD_LIST = Object.entries(TEST_CARDS)
  .map(
    ([n, c]) => `${n.replace(/(\d{4})(?=\d)/g, "$1 ")} (${OUTCOME_WORDS[c.outcome] ?? c.outcome})`,
  )
  .join(", ");

export const FIXED_TOKENS: Record<string, PaymentOutcome> = {
  sandbox_token_success: "success",
  sandbox_token_declined: "declined",
  sandbox_token_insufficient_funds: "insufficient_funds",
  sandbox_token_renewal_declined: "renewal_declined",
  sandbox_token_renewal_lost_card: "renewal_lost_card",
};

/** The card each fixed token stands for. */
export const FIXED_TOKEN_LAST4: Record<PaymentOutcome, string> = {
  success: "4242",
  declined: "0002",
  insufficient_funds: "9995",
  renewal_declined: "0341",
  renewal_lost_card: "9987",
};

/** Charges with this token succeed and refunds of them fail, as Stripe's 4000 0000 0000 5126 card. */
export const REFUND_FAILS_TOKEN = "sandbox_token_refund_fails";
export const REFUND_FAILS_PREFIX = "sandbox_pay_refundfail_";

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
      `Use a sandbox test card: ${TEST_CARD_LIST}.`,
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
