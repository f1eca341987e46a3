// The two ends of a payment: fulfil (customer, saved card, order, subscription, benefits and events
// in one transaction) or reopen (the session open again, the discount redemption given back). Both
// start with a conditional update of the session (still confirmed, same attempt), so a confirm, a
// processor webhook and the reconciler racing over one payment make exactly one order: the loser
// finds nothing to update and does nothing.
import { inTransaction } from "../../../db/client.ts";
import type { Interval } from "../../lib/periods.ts";
import { type Trial, trialOf } from "./trial.ts";
import { queueReceiptMail } from "../invoices/receipt-queue.ts";
import { resolveBuyer, taxIdPair } from "../customers/buyers.ts";
import { releaseDiscount } from "../discounts/service.ts";
import { grantBenefitsForOrder } from "../grants/seam.ts";
import { insertOrder, serializeOrders } from "../orders/service.ts";
import { recordPayment, saveCustomerPaymentMethod } from "../payments/service.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import { fixedClock, organizationClock } from "../sandbox-clock/queries.ts";
import { serializeProductsByIds } from "../products/service.ts";
import {
  createSubscription,
  type NewSubscription,
  recordCustomerState,
  serializeSubscription,
} from "../subscriptions/service.ts";
import { upgradeSubscription } from "../subscriptions/upgrade.ts";
import { recordEvent } from "../webhooks/outbox.ts";
import { checkoutEventData } from "./public.ts";
import { paymentKey, type TakenPayment } from "./payment.ts";
import * as repo from "./repository.ts";
import type { CheckoutDeps } from "./service.ts";

/**
 * A failed payment: the session is open again, the discount redemption given back. False when the
 * attempt was already settled (fulfilled or reopened by a racing confirm, webhook or reconciler).
 */
export async function reopen(
  deps: CheckoutDeps,
  row: repo.CheckoutRow,
  message: string,
  /** Set when the processor declined a charge: the failed attempt is recorded as a payment. */
  declineReason: string | null = null,
): Promise<boolean> {
  return inTransaction(deps.db, async (tx) => {
    const updated = await repo.settleAttempt(tx, row.id, row.paymentAttempts, {
      status: "open",
      discountRedeemed: false,
      paymentError: message,
      modifiedAt: deps.clock.now(),
    });
    if (!updated) return false;
    if (row.discountRedeemed && row.discountId) await releaseDiscount(tx, row.discountId);
    if (declineReason && row.totalAmount > 0)
      await recordPayment(tx, deps.clock, {
        ...attemptOf(deps, row),
        customerId: row.customerId,
        orderId: null,
        processorPaymentId: null,
        status: "failed",
        card: null,
        decline: { reason: declineReason, message },
      });
    await recordEvent(tx, deps.clock, {
      organizationId: row.organizationId,
      type: "checkout.updated",
      data: await checkoutEventData(deps, tx, updated),
    });
    return true;
  });
}

/**
 * A paid (or free) session becomes an order. Null when the attempt was already settled: the caller
 * reads the session as it is. `customerCreated` says whether the purchase made its customer rather
 * than finding one by the buyer's email (or the session's customer or external ID).
 */
export async function fulfil(
  deps: CheckoutDeps,
  row: repo.CheckoutRow,
  payment: TakenPayment,
  /** From the confirm; when unknown (the reconciler), a trial product paid with no charge is one. */
  trialGiven?: Trial | null,
): Promise<{ checkout: repo.CheckoutRow; customerCreated: boolean } | null> {
  return inTransaction(deps.db, async (tx) => {
    const clock = deps.clock;
    const now = clock.now();
    // Takes the session's row lock: a racing fulfil waits here, then finds it settled.
    const held = await repo.settleAttempt(tx, row.id, row.paymentAttempts, { modifiedAt: now });
    if (!held) return null;
    const [product] = await serializeProductsByIds(tx, deps.config.baseUrl, scopeOfResource(row), [
      row.productId,
    ]);
    const price = product!.prices.find((p) => p.id === row.productPriceId);
    const trial =
      trialGiven !== undefined
        ? trialGiven
        : payment.processorPaymentId === null
          ? trialOf(product!, row, true)
          : null;
    const { customer, created } = await resolveBuyer(tx, clock, row, {
      id: row.customerId,
      externalId: row.externalCustomerId,
      email: row.customerEmail!,
      name: row.customerName,
      billingAddress: row.customerBillingAddress,
      billingName: row.customerBillingName,
      taxId: taxIdPair(row.customerTaxId, row.customerBillingAddress?.country),
    });

    if (payment.paymentMethod)
      await saveCustomerPaymentMethod(tx, clock, {
        organizationId: row.organizationId,
        customerId: customer.id,
        processor: deps.processor.name,
        method: payment.paymentMethod,
      });

    const terms: NewSubscription = {
      organizationId: row.organizationId,
      customerId: customer.id,
      productId: row.productId,
      priceId: row.productPriceId,
      checkoutId: row.id,
      discountId: row.discountId,
      amount: row.netAmount,
      // Renewals price a custom amount from what was chosen, and discount it themselves.
      customAmount: price?.amount_type === "custom" ? row.amount : null,
      seats: row.seats,
      currency: row.currency,
      interval: product!.recurring_interval as Interval,
      intervalCount: product!.recurring_interval_count ?? 1,
      trial,
      metadata: row.metadata,
      customFieldData: row.customFieldData,
    };
    // A session made with subscription_id upgrades that (free) subscription; a one-time product
    // bought through it leaves the subscription alone, as Polar's.
    const recurring = product!.is_recurring && product!.recurring_interval;
    const upgrade = recurring ? row.subscriptionId : null;
    const subscription = !recurring
      ? null
      : upgrade
        ? await upgradeSubscription(tx, { clock, queue: deps.queue }, upgrade, terms)
        : await createSubscription(tx, { clock, queue: deps.queue }, terms);

    // The order is dated on the organization's clock, as its subscription and the renewals after
    // it are: in a sandbox moved ahead, the first order sorts with them, not months before.
    const billedAt = (await organizationClock(tx, clock, row.organizationId)).now();
    // Its payment and webhooks too.
    const billed = fixedClock(billedAt);
    const { order } = await insertOrder(
      tx,
      {
        organizationId: row.organizationId,
        customerId: customer.id,
        productId: row.productId,
        checkoutId: row.id,
        subscriptionId: subscription?.id ?? null,
        discountId: row.discountId,
        status: "paid",
        billingReason: upgrade
          ? "subscription_update"
          : subscription
            ? "subscription_create"
            : "purchase",
        seats: row.seats,
        // A trial's first order is paid and for nothing, as Polar's trial order.
        subtotalAmount: trial ? 0 : row.amount,
        discountAmount: trial ? 0 : row.discountAmount,
        netAmount: trial ? 0 : row.netAmount,
        taxAmount: trial ? 0 : (row.taxAmount ?? 0),
        totalAmount: trial ? 0 : row.totalAmount,
        currency: row.currency,
        billingName: row.customerBillingName ?? row.customerName,
        billingAddress: row.customerBillingAddress,
        processorPaymentId: payment.processorPaymentId,
        metadata: row.metadata,
        customFieldData: row.customFieldData,
        createdAt: billedAt,
      },
      [
        {
          label: trial ? `${product!.name} (trial)` : priceLabel(product!.name, price?.amount_type),
          // Before the discount, as Polar's and the renewals' items: the order carries it.
          amount: trial ? 0 : row.amount,
          taxAmount: trial ? 0 : (row.taxAmount ?? 0),
          productPriceId: row.productPriceId,
          createdAt: billedAt,
        },
      ],
    );

    const updated = await repo.updateCheckout(tx, row.id, {
      status: "succeeded",
      customerId: customer.id,
      orderId: order.id,
      subscriptionId: subscription?.id ?? row.subscriptionId,
      processorPaymentId: payment.processorPaymentId,
      cardBrand: payment.card?.brand ?? null,
      cardLast4: payment.card?.last4 ?? null,
      paymentError: null,
      modifiedAt: now,
    });

    // Polar's order of events for a purchase: the order, the subscription, payment, then the session.
    const orderData = (await serializeOrders(tx, deps.config.baseUrl, [order]))[0]!;
    const emit = (type: string, data: unknown) =>
      recordEvent(tx, billed, { organizationId: row.organizationId, type, data });
    await emit("order.created", orderData);
    if (subscription) {
      const subscriptionData = await serializeSubscription(tx, deps.config.baseUrl, subscription);
      // An upgraded subscription was active already: Polar announces only its update.
      for (const type of upgrade
        ? ["subscription.updated"]
        : ["subscription.created", "subscription.active"])
        await emit(type, subscriptionData);
    }
    await emit("order.paid", orderData);
    if (order.totalAmount > 0)
      await queueReceiptMail(tx, deps.queue, { orderId: order.id, kind: "paid" });
    await emit("checkout.updated", await checkoutEventData(deps, tx, updated));
    if (row.totalAmount > 0 && payment.processorPaymentId)
      await recordPayment(tx, billed, {
        ...attemptOf(deps, row),
        customerId: customer.id,
        orderId: order.id,
        processorPaymentId: payment.processorPaymentId,
        status: "succeeded",
        card: payment.card,
        decline: null,
      });
    await grantBenefitsForOrder(tx, deps, {
      organizationId: order.organizationId,
      id: order.id,
      customerId: customer.id,
      productId: row.productId,
      subscriptionId: subscription?.id ?? null,
    });
    await recordCustomerState(tx, clock, order);
    return { checkout: updated, customerCreated: created };
  });
}

function priceLabel(productName: string, amountType: string | undefined): string {
  return amountType === "free" ? `${productName} (free)` : productName;
}

/** What every payment record of a checkout attempt shares. */
function attemptOf(deps: CheckoutDeps, row: repo.CheckoutRow) {
  return {
    organizationId: row.organizationId,
    checkoutId: row.id,
    idempotencyKey: paymentKey(row),
    processor: deps.processor.name,
    amount: row.totalAmount,
    currency: row.currency,
    trigger: "purchase" as const,
  };
}
