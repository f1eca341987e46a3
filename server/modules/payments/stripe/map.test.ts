// How Stripe's decline codes read to dunning: the issuer's "do not retry" codes (Polar's list)
// stop the retry schedule; a generic decline or insufficient funds keep it. An amount Stripe
// refuses for any card is a failed payment, not an unanswered one; other request errors stay open.
import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { declined, refusal } from "./map.ts";

describe("Stripe declines", () => {
  it("marks lost, stolen and expired cards and do_not_honor as not to be retried", () => {
    for (const code of ["lost_card", "stolen_card", "expired_card", "do_not_honor", "fraudulent"])
      expect(declined(code, null)).toMatchObject({
        status: "failed",
        code: "card_declined",
        doNotRetry: true,
        reason: code,
      });
  });

  it("keeps retrying a generic decline, insufficient funds and an authentication request", () => {
    expect(declined("generic_decline", "Your card was declined.")).toMatchObject({
      code: "card_declined",
      message: "Your card was declined.",
      doNotRetry: false,
    });
    expect(declined("insufficient_funds", null)).toMatchObject({
      code: "insufficient_funds",
      doNotRetry: false,
    });
    // The mapped code already says it all: no separate reason.
    expect(declined("insufficient_funds", null)).not.toHaveProperty("reason");
    expect(declined("authentication_required", null)).toMatchObject({
      code: "authentication_required",
      doNotRetry: false,
    });
    expect(declined(null, null)).toMatchObject({ code: "card_declined", doNotRetry: false });
  });

  it("fails a charge over Stripe's maximum without retries; other request errors stay open", () => {
    const tooLarge = new Stripe.errors.StripeInvalidRequestError({
      type: "invalid_request_error",
      code: "amount_too_large",
      message: "Amount must be no more than $999,999.99",
    });
    expect(refusal(tooLarge)).toMatchObject({
      status: "failed",
      code: "card_declined",
      message: "Amount must be no more than $999,999.99",
      doNotRetry: true,
    });
    const other = new Stripe.errors.StripeInvalidRequestError({
      type: "invalid_request_error",
      code: "parameter_invalid_empty",
      message: "Missing required param",
    });
    expect(() => refusal(other)).toThrow(other);
  });
});
