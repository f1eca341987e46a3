// What Stripe.js does for a SetupIntent waiting on 3-D Secure once the customer answered the bank
// (authenticated by the client secret): passed, the card is attached and the intent succeeds;
// failed, it wants another payment method.
import type { StripeState } from "./api.ts";
import { invalidRequest, missing } from "./errors.ts";

export function completeSetupAction(
  state: StripeState,
  id: string,
  clientSecret: string | undefined,
  pass: boolean,
): Record<string, unknown> {
  const si = state.setupIntents.get(id);
  if (!si) throw missing("setup_intent", id);
  if (clientSecret !== undefined && clientSecret !== si.client_secret)
    throw invalidRequest("The client_secret does not match this SetupIntent.", "client_secret");
  if (si.status !== "requires_action")
    throw invalidRequest(
      `This SetupIntent's status is ${String(si.status)}.`,
      undefined,
      "setup_intent_unexpected_state",
    );
  const pm = state.paymentMethods.get(String(si.payment_method));
  if (!pass || !pm) {
    si.status = "requires_payment_method";
    si.last_setup_error = {
      type: "card_error",
      code: "setup_intent_authentication_failure",
      message: "We are unable to authenticate your payment method.",
    };
    state.emit("setup_intent.setup_failed", si);
    return si;
  }
  if (typeof si.customer === "string") state.attach(pm, si.customer);
  si.status = "succeeded";
  state.emit("setup_intent.succeeded", si);
  return si;
}
