// TILL_PAYMENTS=none: a production server without a payment processor. Only free products can be
// bought; checkout refuses a paid confirm before claiming the session (see checkouts/payment.ts), so
// these answers are the last line, never reached by a purchase.
import type { PaymentProcessor } from "./processor.ts";

export const NO_PROCESSOR_MESSAGE =
  "This store takes no payments yet: only free products can be bought.";

export function createNoProcessor(): PaymentProcessor {
  const failed = {
    status: "failed" as const,
    code: "processing_error" as const,
    message: NO_PROCESSOR_MESSAGE,
  };
  return {
    name: "none",
    charge: async () => failed,
    setup: async () => failed,
    chargeOffSession: async () => failed,
    refund: async () => ({ status: "failed", message: NO_PROCESSOR_MESSAGE }),
    lookupPayment: async () => ({ status: "not_found" }),
  };
}
