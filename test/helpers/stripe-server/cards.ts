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
};
