// Confirming a checkout: validate what the customer entered, claim the session (open → confirmed,
// so racing confirms cannot pay twice), take a discount redemption atomically, charge through the
// payment processor outside any transaction (payment.ts), then either fulfil (customer, saved card,
// order, subscription, events, all in one transaction) or return the session to open with the
// processor's message.
import { inTransaction } from "../../../db/client.ts";
import { RequestValidationError, type ValidationIssue } from "../../lib/errors.ts";
import type { Interval } from "../../lib/periods.ts";
import { resolveBuyer } from "../customers/service.ts";
import { redeemDiscount, releaseDiscount } from "../discounts/service.ts";
import { grantBenefitsForOrder } from "../grants/seam.ts";
import { saveCustomerPaymentMethod } from "../payments/service.ts";
import { insertOrder, renderOrders } from "../orders/service.ts";
import { productsForDisplay } from "../products/service.ts";
import {
  createSubscription,
  recordCustomerState,
  renderSubscription,
} from "../subscriptions/service.ts";
import { recordEvent } from "../webhooks/outbox.ts";
import {
  applyUpdate,
  bySecret,
  checkoutEventData,
  NotOpenCheckout,
  PaymentError,
} from "./client.ts";
import { takePayment, type TakenPayment } from "./payment.ts";
import * as repo from "./repository.ts";
import type { CheckoutConfirm } from "./schemas.ts";
import { checkoutPublicOut } from "./serialize.ts";
import { loadPublicView, type CheckoutDeps } from "./service.ts";
import { addressIssues, customFieldIssues } from "./validate.ts";

export async function confirmCheckout(deps: CheckoutDeps, secret: string, input: CheckoutConfirm) {
  const {
    confirmation_token_id: tokenId,
    discount_code,
    payment_method_type: _pmt,
    allow_trial: allowTrial,
    ...update
  } = input;
  let row = await bySecret(deps, secret);
  // What the page sends with confirm is applied like an update first (same rules, same event).
  if (Object.keys(update).length > 0 || discount_code !== undefined)
    row = (await applyUpdate(deps, row, update, discount_code)).row;
  else if (row.status !== "open") row = (await applyUpdate(deps, row, {}, undefined)).row;

  const [product] = await productsForDisplay(deps.db, deps.config.baseUrl, [row.productId]);
  const issues: ValidationIssue[] = [];
  if (!row.customerEmail)
    issues.push({ loc: ["body", "customer_email"], msg: "Field required", type: "missing" });
  issues.push(
    ...addressIssues(row),
    ...customFieldIssues(product?.attached_custom_fields ?? [], row.customFieldData, true),
  );
  if (row.totalAmount > 0 && !tokenId)
    issues.push({
      loc: ["body", "confirmation_token_id"],
      msg: "Field required: payment details are needed for this checkout.",
      type: "missing",
    });
  if (issues.length) throw new RequestValidationError(issues);

  const claimed = await inTransaction(deps.db, async (tx) => {
    const c = await repo.claimForPayment(tx, row.id, deps.clock.now());
    if (!c) return null;
    if (c.discountId && !(await redeemDiscount(tx, c.discountId))) {
      throw RequestValidationError.field(
        ["body", "discount_code"],
        "This discount has been fully redeemed.",
      );
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
  });
  if (!claimed) {
    // Another confirm got here first and holds the payment.
    throw new NotOpenCheckout();
  }

  // A trial takes no money now: the card is saved (a setup) and first charged at the trial's end.
  const trial =
    allowTrial !== false && product?.is_recurring && product.trial_interval
      ? {
          interval: product.trial_interval as Interval,
          count: product.trial_interval_count ?? 1,
        }
      : null;
  const attempt = await takePayment(deps, claimed, {
    tokenId: tokenId ?? undefined,
    recurring: product?.is_recurring ?? false,
    trial: trial !== null,
    description: product?.name ?? "till checkout",
  });
  if (attempt.status === "failed") {
    await reopen(deps, claimed, attempt.message);
    throw new PaymentError(attempt.message);
  }
  if (attempt.status === "requires_action") {
    // 3-D Secure: the session stays confirmed while the page finishes the payment with the client
    // secret; the processor's webhook (or the reconciler) fulfils or reopens it, as Polar does.
    return {
      ...checkoutPublicOut(await loadPublicView(deps, claimed)),
      status: "confirmed" as const,
      payment_processor_metadata: {
        intent_status: "requires_action",
        intent_client_secret: attempt.clientSecret,
      },
    };
  }
  const payment = attempt.payment;

  const done = await fulfil(deps, claimed, payment, trial);
  // Polar's CheckoutPublicConfirmed has the literal status "confirmed": the answer to a confirm
  // describes the confirmation. The payment has settled by now; the next read says "succeeded".
  return { ...checkoutPublicOut(await loadPublicView(deps, done)), status: "confirmed" as const };
}

/** A failed payment: the session is open again, the discount redemption given back. */
async function reopen(deps: CheckoutDeps, row: repo.CheckoutRow, message: string): Promise<void> {
  await inTransaction(deps.db, async (tx) => {
    if (row.discountRedeemed && row.discountId) await releaseDiscount(tx, row.discountId);
    const updated = await repo.updateCheckout(tx, row.id, {
      status: "open",
      discountRedeemed: false,
      paymentError: message,
      modifiedAt: deps.clock.now(),
    });
    await recordEvent(tx, deps.clock, {
      organizationId: row.organizationId,
      type: "checkout.updated",
      data: await checkoutEventData(deps, tx, updated),
    });
  });
}

async function fulfil(
  deps: CheckoutDeps,
  row: repo.CheckoutRow,
  payment: TakenPayment,
  trial: { interval: Interval; count: number } | null = null,
): Promise<repo.CheckoutRow> {
  return inTransaction(deps.db, async (tx) => {
    const clock = deps.clock;
    const now = clock.now();
    const [product] = await productsForDisplay(tx, deps.config.baseUrl, [row.productId]);
    const price = product!.prices.find((p) => p.id === row.productPriceId);
    const { customer } = await resolveBuyer(tx, clock, row.organizationId, {
      id: row.customerId,
      externalId: row.externalCustomerId,
      email: row.customerEmail!,
      name: row.customerName,
      billingAddress: row.customerBillingAddress,
    });

    if (payment.paymentMethod)
      await saveCustomerPaymentMethod(tx, clock, {
        organizationId: row.organizationId,
        customerId: customer.id,
        processor: deps.processor.name,
        method: payment.paymentMethod,
      });

    const subscription =
      product!.is_recurring && product!.recurring_interval
        ? await createSubscription(
            tx,
            { clock, queue: deps.queue },
            {
              organizationId: row.organizationId,
              customerId: customer.id,
              productId: row.productId,
              priceId: row.productPriceId,
              checkoutId: row.id,
              discountId: row.discountId,
              amount: row.netAmount,
              currency: row.currency,
              interval: product!.recurring_interval as Interval,
              intervalCount: product!.recurring_interval_count ?? 1,
              trial,
              metadata: row.metadata,
              customFieldData: row.customFieldData,
            },
          )
        : null;

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
        billingReason: subscription ? "subscription_create" : "purchase",
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
        createdAt: now,
      },
      [
        {
          label: trial ? `${product!.name} (trial)` : priceLabel(product!.name, price?.amount_type),
          amount: trial ? 0 : row.netAmount,
          taxAmount: trial ? 0 : (row.taxAmount ?? 0),
          productPriceId: row.productPriceId,
          createdAt: now,
        },
      ],
    );

    const updated = await repo.updateCheckout(tx, row.id, {
      status: "succeeded",
      customerId: customer.id,
      orderId: order.id,
      subscriptionId: subscription?.id ?? null,
      processorPaymentId: payment.processorPaymentId,
      cardBrand: payment.card?.brand ?? null,
      cardLast4: payment.card?.last4 ?? null,
      paymentError: null,
      modifiedAt: now,
    });

    // Polar's order of events for a purchase: the order, the subscription, payment, then the session.
    const orderData = (await renderOrders(tx, deps.config.baseUrl, [order]))[0]!;
    const emit = (type: string, data: unknown) =>
      recordEvent(tx, clock, { organizationId: row.organizationId, type, data });
    await emit("order.created", orderData);
    if (subscription) {
      const subscriptionData = await renderSubscription(tx, deps.config.baseUrl, subscription);
      await emit("subscription.created", subscriptionData);
      await emit("subscription.active", subscriptionData);
    }
    await emit("order.paid", orderData);
    await emit("checkout.updated", await checkoutEventData(deps, tx, updated));
    await grantBenefitsForOrder(tx, deps, {
      id: order.id,
      customerId: customer.id,
      productId: row.productId,
      subscriptionId: subscription?.id ?? null,
    });
    await recordCustomerState(tx, clock, row.organizationId, customer.id);
    return updated;
  });
}

function priceLabel(productName: string, amountType: string | undefined): string {
  return amountType === "free" ? `${productName} (free)` : productName;
}
