// The organization's rules on who may buy a subscription, as Polar's:
// - allow_multiple_subscriptions, off by default: a customer who already has a subscription of the
//   organization to pay for (active, trialing or past_due) cannot start another through a checkout.
//   Checked on every update of the session and again at confirm, by the customer when the session
//   names one, else by the email entered; a session upgrading a free subscription is exempt.
// - prevent_trial_abuse, off by default: a trial is refused at confirm to an email (its +alias
//   ignored) whose customer had a trial of the organization before, or to a card (its processor's
//   fingerprint) that a customer who had a trial saved.
// - a discount's max_redemptions_per_customer: a buyer (the session's customer, or its email with
//   +alias and case ignored) who redeemed it that often is refused on the page's every update of a
//   session holding it (applying the code, giving that email), and at confirm, before any charge.
//   The seller's own updates may still apply it, as Polar's may.
import type { Db } from "../../../db/client.ts";
import type { Tx } from "../../../db/client.ts";
import { ApiError } from "../../lib/errors.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import { subscriptionSettingsOf } from "../organizations/queries.ts";
import { productsOf } from "../products/service.ts";
import { hadTrial, hasBillableSubscription } from "../subscriptions/queries.ts";
import { countBuyerRedemptions, type CheckoutRow } from "./repository.ts";

export class AlreadyActiveSubscriptionError extends ApiError {
  constructor() {
    super(403, "AlreadyActiveSubscriptionError", "You already have an active subscription.");
  }
}

export class TrialAlreadyRedeemed extends ApiError {
  constructor() {
    super(
      403,
      "TrialAlreadyRedeemed",
      "You have already used a trial for this product. Trials can only be used once per customer.",
    );
  }
}

export class DiscountRedemptionLimitReached extends ApiError {
  constructor() {
    super(
      403,
      "DiscountRedemptionLimitReached",
      "You have already redeemed this discount the maximum number of times allowed per customer.",
    );
  }
}

/**
 * At confirm, in the transaction that took the session's redemption: that redemption locks the
 * discount's row until commit, so two confirms by one buyer cannot both count the other's as not yet
 * there. On the page's update it only warns early, without a lock.
 */
export async function assertDiscountUnderBuyerLimit(
  tx: Tx,
  checkout: CheckoutRow,
  limit: number | null,
): Promise<void> {
  if (limit === null) return;
  if ((await countBuyerRedemptions(tx, checkout)) >= limit)
    throw new DiscountRedemptionLimitReached();
}

export async function assertNoOtherSubscription(
  db: Db,
  checkout: {
    organizationId: string;
    productId: string;
    customerId: string | null;
    customerEmail: string | null;
    /** The subscription the session upgrades: no second one is started (Polar's exception). */
    subscriptionId: string | null;
  },
): Promise<void> {
  if (checkout.subscriptionId) return;
  const who = checkout.customerId
    ? { customerId: checkout.customerId }
    : checkout.customerEmail
      ? { email: checkout.customerEmail }
      : null;
  if (!who) return;
  const scope = scopeOfResource(checkout);
  const [product] = await productsOf(db, scope, [checkout.productId]);
  if (!product?.recurringInterval) return;
  const settings = await subscriptionSettingsOf(db, checkout.organizationId);
  if (settings?.allow_multiple_subscriptions) return;
  if (await hasBillableSubscription(db, scope, who)) throw new AlreadyActiveSubscriptionError();
}

/**
 * At confirm, for a checkout whose purchase starts a trial, before the card is saved: `card` gives
 * the fingerprint of the card entered (asked of the processor only when the rule is on).
 */
export async function assertTrialAllowed(
  db: Db,
  checkout: { organizationId: string; customerEmail: string | null },
  card: () => Promise<string | null>,
): Promise<void> {
  if (!checkout.customerEmail) return;
  const settings = await subscriptionSettingsOf(db, checkout.organizationId);
  if (!settings?.prevent_trial_abuse) return;
  const who = { email: checkout.customerEmail, fingerprint: await card() };
  if (await hadTrial(db, scopeOfResource(checkout), who)) throw new TrialAlreadyRedeemed();
}
