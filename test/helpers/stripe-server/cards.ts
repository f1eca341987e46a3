// Stripe's test payment methods (https://docs.stripe.com/testing) and what each does here.
export type CardBehavior =
  | "succeed"
  | "decline"
  | "insufficient_funds"
  | "authenticate"
  | "customer_fail";

export interface TestCard {
  brand: string;
  last4: string;
  behavior: CardBehavior;
  /** How a refund of its charge begins: pending until a test settles it (StripeRefunds.succeed). */
  refund?: "pending";
}

/** Stripe gives a card number one fingerprint per account: here, one per test card. */
export function fingerprintOf(test: TestCard): string {
  return `fp_${test.brand}${test.last4}`;
}

export const TEST_PAYMENT_METHODS: Record<string, TestCard> = {
  pm_card_visa: { brand: "visa", last4: "4242", behavior: "succeed" },
  pm_card_mastercard: { brand: "mastercard", last4: "4444", behavior: "succeed" },
  pm_card_chargeDeclined: { brand: "visa", last4: "0002", behavior: "decline" },
  pm_card_visa_chargeDeclinedInsufficientFunds: {
    brand: "visa",
    last4: "9995",
    behavior: "insufficient_funds",
  },
  pm_card_threeDSecure2Required: { brand: "visa", last4: "3220", behavior: "authenticate" },
  // Attaching to a customer succeeds; every charge of it fails (4000 0000 0000 0341).
  pm_card_chargeCustomerFail: { brand: "visa", last4: "0341", behavior: "customer_fail" },
  // The charge succeeds; a refund of it begins pending and succeeds some time later, with
  // charge.refund.updated (4000 0000 0000 7726).
  pm_card_pendingRefund: { brand: "visa", last4: "7726", behavior: "succeed", refund: "pending" },
};

/** The test card numbers a buyer types (https://docs.stripe.com/testing), as their payment methods. */
export const TEST_CARD_NUMBERS: Record<string, string> = {
  "4242424242424242": "pm_card_visa",
  "5555555555554444": "pm_card_mastercard",
  "4000000000000002": "pm_card_chargeDeclined",
  "4000000000009995": "pm_card_visa_chargeDeclinedInsufficientFunds",
  "4000000000003220": "pm_card_threeDSecure2Required",
  "4000000000000341": "pm_card_chargeCustomerFail",
  "4000000000007726": "pm_card_pendingRefund",
};
