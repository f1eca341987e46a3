// The PaymentProcessor seam: checkout confirms through it and refunds go back through it. The
// built-in sandbox decides outcomes from Stripe's test cards, so whole purchase flows run offline;
// a Stripe adapter implements the same interface.
export type PaymentOutcome = "success" | "declined" | "insufficient_funds";

export interface ChargeRequest {
  amount: number;
  currency: string;
  /** The token the checkout page obtained for the card (sandbox: from /v1/sandbox/confirmation-tokens). */
  confirmationTokenId: string;
  /** Same key, same result: a retried confirm never charges twice. */
  idempotencyKey: string;
  description: string;
}

export type ChargeResult =
  | { status: "succeeded"; processorPaymentId: string; card: { brand: string; last4: string } }
  | {
      status: "failed";
      code: "card_declined" | "insufficient_funds" | "invalid_token" | "processing_error";
      message: string;
    };

export interface RefundRequest {
  processorPaymentId: string;
  amount: number;
  currency: string;
  idempotencyKey: string;
}

export type RefundResult =
  | { status: "succeeded"; processorRefundId: string }
  | { status: "failed"; message: string };

export interface PaymentProcessor {
  readonly name: "sandbox" | "stripe";
  charge(request: ChargeRequest): Promise<ChargeResult>;
  refund(request: RefundRequest): Promise<RefundResult>;
}

/** Messages a customer sees, modelled on the processors' own wording. */
export const DECLINE_MESSAGES = {
  card_declined: "Your card was declined.",
  insufficient_funds: "Your card has insufficient funds.",
  invalid_token: "The payment details are no longer valid. Enter your card again.",
  processing_error: "An error occurred while processing your card. Try again in a little bit.",
} as const;
