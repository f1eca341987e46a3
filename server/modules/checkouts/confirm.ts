// Confirming a checkout: validate what the customer entered, claim the session (open → confirmed,
// so racing confirms cannot pay twice), take a discount redemption atomically, charge through the
// payment processor outside any transaction (payment.ts), then either fulfil (customer, saved card,
// order, subscription, events, all in one transaction) or return the session to open with the
// processor's message.
import { inTransaction, type Tx } from "../../../db/client.ts";
import { RequestValidationError } from "../../lib/errors.ts";
import { openBuyerSession } from "../customer-sessions/service.ts";
import { redeemDiscount } from "../discounts/service.ts";
import { refusesCard } from "../payments/processor.ts";
import { recordEvent } from "../webhooks/outbox.ts";
import {
  bySecret,
  checkoutEventData,
  NotOpenCheckout,
  PaymentError,
  updateLocked,
} from "./public.ts";
import { fulfil, reopen } from "./fulfil.ts";
import { trialOf } from "./trial.ts";
import {
  assertDiscountUnderBuyerLimit,
  assertNoOtherSubscription,
  assertTrialAllowed,
} from "./purchase-rules.ts";
import type { PaymentReplay } from "../../../db/schema/checkouts.ts";
import { refusePayment, takePayment } from "./payment.ts";
import * as repo from "./repository.ts";
import type { CheckoutConfirm, CheckoutPublicConfirmedOut } from "./schemas.ts";
import { checkoutPublicOut } from "./serialize.ts";
import { loadPublicView, type CheckoutDeps } from "./service.ts";
import { assertUpgradable, claimUpgrade } from "./upgrade.ts";
import { confirmIssues } from "./validate.ts";

export async function confirmCheckout(
  deps: CheckoutDeps,
  secret: string,
  input: CheckoutConfirm,
): Promise<CheckoutPublicConfirmedOut> {
  const {
    confirmation_token_id: tokenId,
    discount_code,
    payment_method_type: _pmt,
    allow_trial: allowTrial,
    ...update
  } = input;
  const found = await bySecret(deps, secret);
  // Sandbox details in production are refused before the page's update is applied: nothing changes.
  refusePayment(deps, null, tokenId);
  // A subscription that can no longer be upgraded (or is being upgraded) refuses it unchanged.
  await assertUpgradable(deps.db, found);
  const asked = { update, discountCode: discount_code, tokenId, allowTrial: allowTrial !== false };
  // The card's fingerprint (prevent_trial_abuse) is asked of the processor outside any transaction:
  // a pass that needs it stops, rolled back, and runs again with it.
  const { claimed, product, trial } = await checkAndClaim(deps, found, asked).catch(
    async (err: unknown) => {
      if (err !== ASK_CARD) throw err;
      const card = await deps.processor.cardFingerprint!(tokenId!);
      return checkAndClaim(deps, found, asked, card);
    },
  );

  const attempt = await takePayment(deps, claimed, {
    tokenId: tokenId ?? undefined,
    recurring: product?.is_recurring ?? false,
    trial: trial !== null,
    description: product?.name ?? "till checkout",
  });
  if (attempt.status === "unknown") {
    // Reopening now could let the customer pay twice; the reconciler asks the processor later.
    throw new PaymentError(
      "The payment could not be confirmed with the payment processor. It is being checked: the order appears, or this checkout opens again, within a few minutes.",
    );
  }
  if (attempt.status === "failed") {
    await reopen(deps, claimed, attempt.message, attempt.code);
    // The processor's other refusals (a hiccup, a used token) already say what to do.
    throw refusesCard(attempt.code)
      ? PaymentError.declined(attempt.message)
      : new PaymentError(attempt.message);
  }
  if (attempt.status === "requires_action") {
    // 3-D Secure: the session stays confirmed while the page finishes the payment with the client
    // secret; the processor's webhook (or the reconciler) fulfils or reopens it, as Polar does.
    const out = checkoutPublicOut(await loadPublicView(deps, claimed));
    return {
      ...out,
      status: "confirmed" as const,
      payment_processor_metadata: {
        ...out.payment_processor_metadata,
        intent_status: "requires_action",
        intent_client_secret: attempt.clientSecret,
      },
      customer_session_token: null,
    };
  }
  const payment = attempt.payment;

  // Null when the reconciler or a processor webhook settled this attempt first: show it as it is.
  const fulfilled = await fulfil(deps, claimed, payment, trial);
  const done = fulfilled?.checkout ?? (await bySecret(deps, secret));
  // Polar's CheckoutPublicConfirmed has the literal status "confirmed": the answer to a confirm
  // describes the confirmation. The payment has settled by now; the next read says "succeeded".
  // The customer session token lets the confirmation page show the order to the buyer: only a
  // customer this purchase made, or one the seller named on the session. Anyone may type an
  // existing customer's email, and that customer's portal is not theirs to open (as Polar's
  // checkout, which gives no session to a customer found by email).
  const ownsCustomer = claimed.customerId !== null || fulfilled?.customerCreated === true;
  const customerSessionToken =
    done.customerId && ownsCustomer
      ? await openBuyerSession(deps, done.organizationId, done.customerId)
      : null;
  return {
    ...checkoutPublicOut(await loadPublicView(deps, done)),
    status: "confirmed" as const,
    customer_session_token: customerSessionToken,
  };
}

/**
 * What the page sends with confirm is applied like an update first (same rules, same event), then
 * checked and claimed under the session's lock in the same transaction: an update from the page
 * cannot land between the check and the claim, so the charge, the trial and the answer are all of
 * the session as checked. A refusal rolls the update back, as Polar's does.
 */
function checkAndClaim(
  deps: CheckoutDeps,
  found: repo.CheckoutRow,
  asked: {
    update: Partial<CheckoutConfirm>;
    discountCode: string | null | undefined;
    tokenId: string | null | undefined;
    allowTrial: boolean;
  },
  /** The card's fingerprint; undefined until asked of the processor. */
  card?: string | null,
) {
  const { update, discountCode, tokenId } = asked;
  const hasUpdate = Object.keys(update).length > 0 || discountCode !== undefined;
  return inTransaction(deps.db, async (tx) => {
    const view = await updateLocked(deps, tx, found, hasUpdate ? update : null, discountCode);
    const issues = confirmIssues(view, tokenId);
    if (issues.length) throw new RequestValidationError(issues);
    const { row } = view;
    const product = view.products.find((p) => p.id === row.productId);
    refusePayment(deps, row, tokenId);
    await assertNoOtherSubscription(tx, row);
    // A trial takes no money now: the card is saved (a setup) and first charged at the trial's end.
    const trial = product ? trialOf(product, row, asked.allowTrial) : null;
    if (trial)
      await assertTrialAllowed(tx, row, async () => {
        if (!tokenId || !deps.processor.cardFingerprint) return null;
        if (card === undefined) throw ASK_CARD;
        return card;
      });
    // A charge (not a trial's setup) is kept as asked, for the reconciler to ask it again.
    const replay =
      tokenId && row.totalAmount > 0 && !trial
        ? {
            confirmationTokenId: tokenId,
            description: product?.name ?? "till checkout",
            savePaymentMethod: product?.is_recurring ?? false,
          }
        : null;
    return { claimed: await claimCheckout(deps, tx, row, replay), product, trial };
  });
}

/** Asked of the claim's transaction for the card's fingerprint, which is fetched outside it. */
const ASK_CARD = Symbol("card fingerprint");

/**
 * open → confirmed with the next attempt number and the discount redemption taken, in the caller's
 * transaction; confirm's holds the session's lock since it read the session open.
 */
export async function claimCheckout(
  deps: CheckoutDeps,
  tx: Tx,
  row: repo.CheckoutRow,
  replay: PaymentReplay | null,
): Promise<repo.CheckoutRow> {
  const c = await repo.claimForPayment(tx, row.id, deps.clock.now(), replay);
  if (!c) throw new NotOpenCheckout();
  await claimUpgrade(tx, c);
  if (c.discountId) {
    const redeemed = await redeemDiscount(tx, c.discountId);
    if (!redeemed)
      throw RequestValidationError.field(
        ["body", "discount_code"],
        "This discount has been fully redeemed.",
      );
    await assertDiscountUnderBuyerLimit(tx, c, redeemed.maxRedemptionsPerCustomer);
  }
  const claimedRow = c.discountId
    ? await repo.updateCheckout(tx, c.id, { discountRedeemed: true })
    : c;
  await recordEvent(tx, deps.clock, {
    organizationId: c.organizationId,
    type: "checkout.updated",
    data: await checkoutEventData(deps, tx, claimedRow),
  });
  return claimedRow;
}
