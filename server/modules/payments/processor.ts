// The PaymentProcessor seam: checkout confirms through it, renewals charge saved cards through it
// and refunds go back through it. The built-in sandbox decides outcomes from Stripe's test cards, so
// whole purchase flows run offline; the Stripe adapter implements the same interface.
export type PaymentOutcome =
  | "success"
  | "declined"
  | "insufficient_funds"
  | "renewal_declined"
  | "renewal_lost_card";

export type DeclineCode =
  | "card_declined"
  | "insufficient_funds"
  | "invalid_token"
  | "processing_error"
  /** Off-session, the bank asked for 3-D Secure: only the customer, on-session, can pay. */
  | "authentication_required";

/** A card the processor keeps for later off-session charges. */
export interface SavedPaymentMethod {
  /** Stripe pm_..., sandbox "sandbox_pm_...". */
  processorPaymentMethodId: string;
  /** Stripe cus_..., null in sandbox. */
  processorCustomerId: string | null;
  type: "card";
  brand: string;
  last4: string;
  expMonth: number | null;
  expYear: number | null;
  /** The card's identity across saves and customers (Stripe's card.fingerprint); null: unknown. */
  fingerprint?: string | null;
}

export interface PaymentCustomer {
  /** The till customer when the buyer is already known; null for a first purchase. */
  id: string | null;
  email: string;
  name: string | null;
  processorCustomerId: string | null;
}

export interface ChargeRequest {
  amount: number;
  currency: string;
  /** The token the checkout page obtained for the card (sandbox: from /v1/sandbox/confirmation-tokens). */
  confirmationTokenId: string;
  /** Same key, same result: a retried confirm never charges twice. */
  idempotencyKey: string;
  description: string;
  /** True when the product recurs: the card is kept for renewals (Stripe: setup_future_usage). */
  savePaymentMethod?: boolean;
  customer?: PaymentCustomer;
  metadata?: Record<string, string>;
}

export type ChargeResult =
  | {
      status: "succeeded";
      processorPaymentId: string;
      card: { brand: string; last4: string };
      /** Non-null when savePaymentMethod was asked (and for off-session charges). */
      paymentMethod?: SavedPaymentMethod | null;
    }
  /** 3-D Secure: the page finishes the payment with the client secret (Stripe only). */
  | { status: "requires_action"; processorPaymentId: string; clientSecret: string }
  | {
      status: "failed";
      code: DeclineCode;
      message: string;
      /**
       * The issuer says trying again will not help (lost or stolen card, closed account…):
       * dunning makes one last attempt at its deadline instead of retrying on its schedule.
       */
      doNotRetry?: boolean;
      /**
       * The issuer's own reason when it says more than `code` (Stripe's decline_code: lost_card,
       * stolen_card, expired_card…): what the payment records as its decline_reason.
       */
      reason?: string;
    };

/** Zero-amount and trial checkouts: save the card, take no money. */
export interface SetupRequest {
  confirmationTokenId: string;
  idempotencyKey: string;
  customer: PaymentCustomer;
  metadata: Record<string, string>;
}

export type SetupResult =
  | { status: "succeeded"; paymentMethod: SavedPaymentMethod }
  | { status: "requires_action"; processorSetupId: string; clientSecret: string }
  | { status: "failed"; code: DeclineCode; message: string };

/** Renewals, dunning retries, plan-change invoices: a saved card, no customer present. */
export interface OffSessionChargeRequest {
  amount: number;
  currency: string;
  paymentMethod: { processorPaymentMethodId: string; processorCustomerId: string | null };
  /** e.g. `renewal:${subscriptionId}:${periodStartIso}:${attempt}`. */
  idempotencyKey: string;
  description: string;
  metadata: Record<string, string>;
}

/** A charge as first asked (at checkout or off session), to be asked again under its key. */
export type ChargeReplay = ChargeRequest | OffSessionChargeRequest;

export interface RefundRequest {
  processorPaymentId: string;
  amount: number;
  currency: string;
  idempotencyKey: string;
}

export type RefundResult =
  | { status: "succeeded"; processorRefundId: string }
  // Taken but not given back yet (Stripe, for some cards or a balance too low): the processor's
  // later event says whether it succeeded or failed.
  | { status: "pending"; processorRefundId: string }
  | { status: "failed"; message: string };

export type PaymentLookup =
  | {
      status: "succeeded";
      processorPaymentId: string;
      card: { brand: string; last4: string };
      paymentMethod: SavedPaymentMethod | null;
    }
  | { status: "failed" | "not_found" | "processing" };

/** A card setup as the processor reports it now (a portal card that waited on 3-D Secure). */
export interface SetupLookup {
  status: "succeeded" | "requires_action" | "failed";
  clientSecret: string | null;
  paymentMethod: SavedPaymentMethod | null;
  metadata: Record<string, string>;
}

/** Polar's dispute statuses; closed ones are prevented, won and lost. */
export type DisputeStatus =
  | "prevented"
  | "early_warning"
  | "needs_response"
  | "under_review"
  | "lost"
  | "won";

/** A chargeback as the processor reports it now. */
export interface ProcessorDispute {
  processorDisputeId: string;
  /** The disputed payment (Stripe: its PaymentIntent). */
  processorPaymentId: string;
  status: DisputeStatus;
  /** What the cardholder disputes, tax included, in minor units. */
  amount: number;
  currency: string;
  reason: string | null;
  evidenceDueBy: Date | null;
  pastDue: boolean;
}

export interface PaymentProcessor {
  /** none: TILL_PAYMENTS=none, a server that sells only free products. */
  readonly name: "sandbox" | "stripe" | "none";
  charge(request: ChargeRequest): Promise<ChargeResult>;
  setup(request: SetupRequest): Promise<SetupResult>;
  /**
   * The fingerprint of the card a confirmation token carries, asked before anything is charged or
   * saved (trial abuse); null when the token is unknown or names no card.
   */
  cardFingerprint?(confirmationTokenId: string): Promise<string | null>;
  chargeOffSession(request: OffSessionChargeRequest): Promise<ChargeResult>;
  /**
   * Many off-session charges in one call, each under its own idempotency key and answered as
   * chargeOffSession would answer it alone, in the order asked. Processors that can do this more
   * cheaply than one call each (the sandbox, in the database) implement it; callers fall back to
   * chargeOffSession.
   */
  chargeOffSessionMany?(requests: OffSessionChargeRequest[]): Promise<ChargeResult[]>;
  /** Throws when the processor did not answer: the refund may or may not have been made. */
  refund(request: RefundRequest): Promise<RefundResult>;
  /**
   * The refund made under this request's idempotency key as the processor has it now; null when it
   * never reached the processor. Processors whose refunds answer at once (the sandbox) leave it out.
   */
  lookupRefund?(request: RefundRequest): Promise<RefundResult | null>;
  /**
   * What became of a payment this processor was asked for under this idempotency key (reconciler).
   * `processorPaymentId`, when a processor event names the payment, is read directly: a lookup by
   * key alone may go through an index that lags behind (Stripe's search).
   * `replay`, the charge as first asked under the key, is asked again: a processor that keeps
   * its answers by idempotency key (Stripe, for a day) answers with the charge it made, read
   * after write, or makes it now if the first request never reached it.
   */
  lookupPayment(
    idempotencyKey: string,
    processorPaymentId?: string,
    replay?: ChargeReplay,
  ): Promise<PaymentLookup>;
  /**
   * Gives up a payment still waiting for the customer (3-D Secure never finished) so it can no
   * longer succeed, and says what became of it (it may have succeeded just before). Processors
   * whose payments never wait (the sandbox) leave it out.
   */
  cancelPayment?(idempotencyKey: string, replay?: ChargeReplay): Promise<PaymentLookup>;
  /** A setup the processor answered requires_action to, as it stands now; null when unknown. */
  lookupSetup?(processorSetupId: string): Promise<SetupLookup | null>;
  /** A dispute as it stands now (its events are applied from this, never from their copy). */
  lookupDispute?(processorDisputeId: string): Promise<ProcessorDispute | null>;
  /** Concedes a dispute: the processor closes it as lost. */
  closeDispute?(processorDisputeId: string): Promise<ProcessorDispute>;
  /**
   * Takes a card the customer removed off their customer at the processor (Stripe detaches it),
   * so nothing can charge it again; one already gone is no error.
   */
  detachPaymentMethod?(processorPaymentMethodId: string): Promise<void>;
}

/** Messages a customer sees, modelled on the processors' own wording. */
/** A refusal of the card itself (not a hiccup, not a used token): another card may pay. */
export function refusesCard(code: string): boolean {
  return code === "card_declined" || code === "insufficient_funds";
}

export const DECLINE_MESSAGES = {
  card_declined: "Your card was declined.",
  insufficient_funds: "Your card has insufficient funds.",
  invalid_token: "The payment details are no longer valid. Enter your card again.",
  processing_error: "An error occurred while processing your card. Try again in a little bit.",
  authentication_required: "Your bank asks you to authenticate this payment.",
} as const;
