// The Stripe PaymentProcessor. Checkout charges are PaymentIntents confirmed at once with the
// ConfirmationToken the page made with Stripe.js (the card never touches till); recurring ones ask
// setup_future_usage=off_session on a Stripe customer so renewals can charge the card later.
// Every request carries an idempotency key derived from till's own (checkout and attempt, renewal
// and attempt), and every PaymentIntent that key in its metadata, so lookupPayment finds it again.
import { Stripe } from "stripe";
import {
  type ChargeReplay,
  type ChargeRequest,
  type ChargeResult,
  DECLINE_MESSAGES,
  type PaymentCustomer,
  type OffSessionChargeRequest,
  type PaymentProcessor,
  type RefundResult,
} from "../processor.ts";
import {
  disputeOf,
  intentResult,
  KEY_METADATA,
  lookupOf,
  refusal,
  savedMethodOf,
  TILL_REFUND_METADATA,
} from "./map.ts";

const NO_REDIRECTS = { enabled: true, allow_redirects: "never" } as const;
const CANCELABLE = new Set(["requires_action", "requires_confirmation", "requires_payment_method"]);
/** How many of a customer's PaymentIntents are read, newest first, to find one by its key. */
const MAX_LISTED = 1000;

function refundResult(refund: Stripe.Refund): RefundResult {
  if (refund.status === "failed" || refund.status === "canceled")
    return { status: "failed", message: `The refund ${refund.status}.` };
  if (refund.status === "succeeded") return { status: "succeeded", processorRefundId: refund.id };
  // pending or requires_action: nothing given back yet; refund.updated later says how it ended.
  return { status: "pending", processorRefundId: refund.id };
}

/**
 * A refusal while the buyer waits: a rate-limited request was not carried out, so the buyer is asked
 * to try again now rather than the session waiting for the reconciler. Off session the same limit
 * is only a delay (rethrown: the renewal is tried again), never a decline.
 */
function onSessionRefusal(err: unknown) {
  if (err instanceof Stripe.errors.StripeRateLimitError)
    return {
      status: "failed" as const,
      code: "processing_error" as const,
      message: DECLINE_MESSAGES.processing_error,
    };
  return refusal(err);
}

function offSessionResult(pi: Stripe.PaymentIntent): ChargeResult {
  const result = intentResult(pi, true);
  // Off session nobody can answer 3-D Secure: the customer must come back and pay.
  if (result.status === "requires_action")
    return {
      status: "failed",
      code: "authentication_required",
      message: DECLINE_MESSAGES.authentication_required,
    };
  return result;
}

export function createStripeProcessor(stripe: Stripe): PaymentProcessor {
  /** The Stripe customer a saved card belongs to: the customer's own, or a new one. */
  async function stripeCustomer(customer: PaymentCustomer, key: string): Promise<string> {
    if (customer.processorCustomerId) return customer.processorCustomerId;
    const created = await stripe.customers.create(
      {
        email: customer.email,
        ...(customer.name ? { name: customer.name } : {}),
        metadata: customer.id ? { till_customer_id: customer.id } : {},
      },
      { idempotencyKey: `customer:${key}` },
    );
    return created.id;
  }

  /**
   * The PaymentIntent made under a key, by Stripe's search: it lags behind writes (minutes in an
   * incident), so it is only the last resort, for attempts that kept nothing to ask again with
   * (claims made before they kept their request, an off-session card with no Stripe customer).
   */
  async function findIntent(idempotencyKey: string): Promise<Stripe.PaymentIntent | undefined> {
    const found = await stripe.paymentIntents.search({
      query: `metadata['${KEY_METADATA}']:'${idempotencyKey.replace(/'/g, "\\'")}'`,
      expand: ["data.payment_method"],
      limit: 1,
    });
    return found.data[0];
  }

  /**
   * The PaymentIntent made under a key among a Stripe customer's, newest first: lists are read after
   * write, unlike search.
   */
  async function findCustomerIntent(
    customer: string,
    idempotencyKey: string,
  ): Promise<Stripe.PaymentIntent | undefined> {
    let seen = 0;
    for await (const pi of stripe.paymentIntents.list({
      customer,
      limit: 100,
      expand: ["data.payment_method"],
    })) {
      if (pi.metadata?.[KEY_METADATA] === idempotencyKey) return pi;
      if (++seen >= MAX_LISTED) break;
    }
    return undefined;
  }

  /** An off-session PaymentIntent on a saved card, created and confirmed under the key. */
  function createOffSession(request: OffSessionChargeRequest): Promise<Stripe.PaymentIntent> {
    return stripe.paymentIntents.create(
      {
        amount: request.amount,
        currency: request.currency,
        payment_method: request.paymentMethod.processorPaymentMethodId,
        ...(request.paymentMethod.processorCustomerId
          ? { customer: request.paymentMethod.processorCustomerId }
          : {}),
        off_session: true,
        confirm: true,
        description: request.description,
        metadata: { ...request.metadata, [KEY_METADATA]: request.idempotencyKey },
        expand: ["payment_method"],
      },
      { idempotencyKey: `pi:${request.idempotencyKey}` },
    );
  }

  /** The checkout charge's PaymentIntent, created and confirmed under the attempt's key. */
  async function createCharge(request: ChargeRequest): Promise<Stripe.PaymentIntent> {
    const save = request.savePaymentMethod ?? false;
    const customer =
      request.customer && (save || request.customer.processorCustomerId)
        ? await stripeCustomer(request.customer, request.idempotencyKey)
        : null;
    return stripe.paymentIntents.create(
      {
        amount: request.amount,
        currency: request.currency,
        confirm: true,
        confirmation_token: request.confirmationTokenId,
        description: request.description,
        automatic_payment_methods: NO_REDIRECTS,
        metadata: { ...request.metadata, [KEY_METADATA]: request.idempotencyKey },
        expand: ["payment_method"],
        ...(customer ? { customer } : {}),
        ...(save ? { setup_future_usage: "off_session" as const } : {}),
      },
      { idempotencyKey: `pi:${request.idempotencyKey}` },
    );
  }

  /**
   * The charge asked again under its key: Stripe answers with what it answered first (or makes it
   * now), and the PaymentIntent that names is read as it is now. Undefined when the answer names
   * none (other parameters than the first time, a refusal of the request itself).
   */
  async function replayCharge(request: ChargeReplay) {
    let id: string | undefined;
    try {
      id = (
        "paymentMethod" in request ? await createOffSession(request) : await createCharge(request)
      ).id;
    } catch (err) {
      if (err instanceof Stripe.errors.StripeConnectionError) throw err;
      if (!(err instanceof Stripe.errors.StripeCardError)) return undefined;
      id = err.payment_intent?.id;
    }
    return id ? stripe.paymentIntents.retrieve(id, { expand: ["payment_method"] }) : undefined;
  }

  /**
   * The PaymentIntent made under a key: the charge asked again, which Stripe answers read after
   * write (or makes now if the first request never reached it); failing that, an off-session
   * charge's customer's list; search only for an attempt that kept nothing to ask with.
   */
  async function intentOf(idempotencyKey: string, replay: ChargeReplay | undefined) {
    if (!replay) return findIntent(idempotencyKey);
    const replayed = await replayCharge(replay);
    if (replayed) return replayed;
    const customer = "paymentMethod" in replay ? replay.paymentMethod.processorCustomerId : null;
    return customer ? findCustomerIntent(customer, idempotencyKey) : findIntent(idempotencyKey);
  }

  return {
    name: "stripe",
    async charge(request) {
      try {
        return intentResult(await createCharge(request), request.savePaymentMethod ?? false);
      } catch (err) {
        return onSessionRefusal(err);
      }
    },
    async cardFingerprint(confirmationTokenId) {
      try {
        const token = await stripe.confirmationTokens.retrieve(confirmationTokenId);
        return token.payment_method_preview?.card?.fingerprint ?? null;
      } catch {
        // The setup that follows refuses an unknown token, or meets the outage, with Stripe's own
        // message; the email is still checked.
        return null;
      }
    },
    async setup(request) {
      const customer = await stripeCustomer(request.customer, request.idempotencyKey);
      try {
        const si = await stripe.setupIntents.create(
          {
            confirm: true,
            confirmation_token: request.confirmationTokenId,
            customer,
            usage: "off_session",
            automatic_payment_methods: NO_REDIRECTS,
            metadata: { ...request.metadata, [KEY_METADATA]: request.idempotencyKey },
            expand: ["payment_method"],
          },
          { idempotencyKey: `seti:${request.idempotencyKey}` },
        );
        if (si.status === "succeeded") {
          const method = savedMethodOf(si.payment_method, customer);
          if (method) return { status: "succeeded", paymentMethod: method };
        }
        if (si.status === "requires_action" || si.status === "processing")
          return {
            status: "requires_action",
            processorSetupId: si.id,
            clientSecret: si.client_secret ?? "",
          };
        return {
          status: "failed",
          code: "card_declined",
          message: si.last_setup_error?.message ?? "Your card could not be saved.",
        };
      } catch (err) {
        return onSessionRefusal(err);
      }
    },
    async chargeOffSession(request) {
      try {
        return offSessionResult(await createOffSession(request));
      } catch (err) {
        // The key was first used with other parameters: a run that died after Stripe charged, re-run
        // once the default card (or the amount) changed. What Stripe did under the key is the answer,
        // found among the customer's PaymentIntents (search, which lags, only without a customer);
        // until it is found, the error stands and the charge is asked again later.
        if (err instanceof Stripe.errors.StripeIdempotencyError) {
          const customer = request.paymentMethod.processorCustomerId;
          const made = customer
            ? await findCustomerIntent(customer, request.idempotencyKey)
            : await findIntent(request.idempotencyKey);
          if (made) return offSessionResult(made);
        }
        return refusal(err);
      }
    },
    async refund(request) {
      try {
        const refund = await stripe.refunds.create(
          {
            payment_intent: request.processorPaymentId,
            amount: request.amount,
            // charge.refunded then tells till's own refunds from those made in Stripe's dashboard.
            metadata: { [TILL_REFUND_METADATA]: request.idempotencyKey },
          },
          { idempotencyKey: `refund:${request.idempotencyKey}` },
        );
        return refundResult(refund);
      } catch (err) {
        // A cut connection or Stripe's own error says nothing of whether it refunded: rethrown.
        if (
          err instanceof Stripe.errors.StripeError &&
          !(err instanceof Stripe.errors.StripeConnectionError) &&
          !(err instanceof Stripe.errors.StripeAPIError)
        )
          return { status: "failed", message: err.message };
        throw err;
      }
    },
    async lookupRefund(request) {
      // Listing is read-after-write consistent (search is not), and finds refunds older than the
      // day Stripe keeps idempotency keys.
      const refunds = await stripe.refunds
        .list({ payment_intent: request.processorPaymentId, limit: 100 })
        .autoPagingToArray({ limit: 10_000 });
      const made = refunds.find(
        (r) => r.metadata?.[TILL_REFUND_METADATA] === request.idempotencyKey,
      );
      return made ? refundResult(made) : null;
    },
    async lookupPayment(idempotencyKey, processorPaymentId, replay) {
      if (processorPaymentId) {
        const pi = await stripe.paymentIntents.retrieve(processorPaymentId, {
          expand: ["payment_method"],
        });
        // The key in its metadata proves it is this attempt's payment, not one the event only names.
        if (pi.metadata?.[KEY_METADATA] === idempotencyKey) return lookupOf(pi);
      }
      return lookupOf(await intentOf(idempotencyKey, replay));
    },
    async cancelPayment(idempotencyKey, replay) {
      const find = () => intentOf(idempotencyKey, replay);
      const pi = await find();
      if (!pi || !CANCELABLE.has(pi.status)) return lookupOf(pi);
      try {
        return lookupOf(
          await stripe.paymentIntents.cancel(
            pi.id,
            { cancellation_reason: "abandoned", expand: ["payment_method"] },
            { idempotencyKey: `cancel:${idempotencyKey}` },
          ),
        );
      } catch {
        // It moved on (succeeded a moment ago): whatever it is now is the answer.
        return lookupOf(await find());
      }
    },
    async lookupSetup(id) {
      let si: Stripe.SetupIntent;
      try {
        si = await stripe.setupIntents.retrieve(id, { expand: ["payment_method"] });
      } catch (err) {
        if (err instanceof Stripe.errors.StripeInvalidRequestError) return null;
        throw err;
      }
      return {
        status:
          si.status === "succeeded"
            ? "succeeded"
            : si.status === "requires_action" || si.status === "processing"
              ? "requires_action"
              : "failed",
        clientSecret: si.client_secret,
        paymentMethod: savedMethodOf(si.payment_method, si.customer),
        metadata: si.metadata ?? {},
      };
    },
    async lookupDispute(id) {
      try {
        return disputeOf(await stripe.disputes.retrieve(id));
      } catch (err) {
        if (err instanceof Stripe.errors.StripeInvalidRequestError && err.statusCode === 404)
          return null;
        throw err;
      }
    },
    async closeDispute(id) {
      return disputeOf(await stripe.disputes.close(id));
    },
    async detachPaymentMethod(id) {
      try {
        await stripe.paymentMethods.detach(id);
      } catch (err) {
        // Already detached (or deleted at Stripe): gone either way.
        if (err instanceof Stripe.errors.StripeInvalidRequestError) return;
        throw err;
      }
    },
  };
}
