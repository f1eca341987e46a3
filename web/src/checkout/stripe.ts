// Paying with Stripe on the checkout page: Stripe.js loaded from the URL the session names, the
// Payment Element mounted in the card area, a ConfirmationToken made from it for till's confirm
// (as Polar's CheckoutConfirmStripe), and 3-D Secure finished with handleNextAction.

interface StripeError {
  message?: string;
}
interface StripeElements {
  create(type: "payment"): { mount(el: HTMLElement): void; destroy(): void };
  submit(): Promise<{ error?: StripeError }>;
}
interface StripeJs {
  elements(options: Record<string, unknown>): StripeElements;
  createConfirmationToken(options: {
    elements: StripeElements;
  }): Promise<{ error?: StripeError; confirmationToken?: { id: string } }>;
  handleNextAction(options: { clientSecret: string }): Promise<{ error?: StripeError }>;
}

declare global {
  interface Window {
    Stripe?: (publishableKey: string) => StripeJs;
  }
}

export interface StripeSettings {
  publishable_key: string;
  stripe_js_url: string;
}

/** The session's Stripe settings, when this checkout pays with Stripe. */
export function stripeSettings(metadata: unknown): StripeSettings | null {
  const m = (metadata ?? {}) as Partial<StripeSettings>;
  return typeof m.publishable_key === "string" && typeof m.stripe_js_url === "string"
    ? { publishable_key: m.publishable_key, stripe_js_url: m.stripe_js_url }
    : null;
}

/** A refusal by Stripe (an incomplete card, a decline, a failed 3-D Secure), said to the buyer. */
export class StripePaymentError extends Error {}

let loading: Promise<void> | null = null;

function loadScript(url: string): Promise<void> {
  loading ??= new Promise<void>((resolve, reject) => {
    const script = document.createElement("script");
    script.src = url;
    script.onload = () => resolve();
    script.onerror = () => {
      loading = null;
      reject(new Error("Stripe could not be loaded. Check your connection and reload the page."));
    };
    document.head.appendChild(script);
  });
  return loading;
}

export interface StripeForm {
  /** A ConfirmationToken for the card in the element. */
  token(): Promise<string>;
  /** Finishes the payment's next action (3-D Secure). */
  nextAction(clientSecret: string): Promise<void>;
  destroy(): void;
}

export async function mountStripe(
  settings: StripeSettings,
  host: HTMLElement,
  payment: { amount: number; currency: string; recurring: boolean },
): Promise<StripeForm> {
  await loadScript(settings.stripe_js_url);
  if (!window.Stripe) throw new Error("Stripe could not be loaded.");
  const stripe = window.Stripe(settings.publishable_key);
  // The deferred-intent flow ConfirmationTokens use: the element knows the amount, till makes the
  // PaymentIntent (or SetupIntent when nothing is charged now).
  const elements = stripe.elements(
    payment.amount > 0
      ? {
          mode: "payment",
          amount: payment.amount,
          currency: payment.currency,
          ...(payment.recurring ? { setupFutureUsage: "off_session" } : {}),
        }
      : { mode: "setup", currency: payment.currency },
  );
  const element = elements.create("payment");
  element.mount(host);
  const fail = (error: StripeError | undefined, fallback: string): never => {
    throw new StripePaymentError(error?.message ?? fallback);
  };
  return {
    async token() {
      const submitted = await elements.submit();
      if (submitted.error) fail(submitted.error, "Check your card details.");
      const made = await stripe.createConfirmationToken({ elements });
      if (made.error || !made.confirmationToken) fail(made.error, "Your card was not accepted.");
      return made.confirmationToken!.id;
    },
    async nextAction(clientSecret) {
      const done = await stripe.handleNextAction({ clientSecret });
      if (done.error) fail(done.error, "Your bank did not confirm the payment.");
    },
    destroy: () => element.destroy(),
  };
}
