// Draft orders (Polar's orders:create and orders:finalize): the seller makes an order for a customer
// and later charges the customer's saved card for it, off-session. Finalize is claim → charge →
// settle, as a checkout's confirm: the claim commits the attempt (its number is the processor's
// idempotency key) before the processor is asked, so a crash after the charge leaves a claimed
// draft that the reconciler settles from the processor's answer, and a repeated finalize of a
// claimed draft asks the processor the same question again: one charge, however often it is called.
import { inTransaction } from "../../../db/client.ts";
import { organizationForWrite, type AuthContext } from "../../lib/auth-context.ts";
import { RequestValidationError, ResourceNotFound, ServiceUnavailable } from "../../lib/errors.ts";
import { customFieldIssues } from "../checkouts/queries.ts";
import { findCustomerForCheckout } from "../customers/buyers.ts";
import {
  findOrderRow,
  insertDraftOrder,
  lockOrder,
  type OrderRow,
  serializeOrders,
  updateOrderRow,
} from "../orders/service.ts";
import type { OrderOut } from "../orders/schemas.ts";
import { defaultCurrencyOf, offSessionChargesEnabled } from "../organizations/queries.ts";
import {
  DECLINE_MESSAGES,
  type ChargeResult,
  type OffSessionChargeRequest,
} from "../payments/processor.ts";
import { customerPaymentMethods, type PaymentMethodRecord } from "../payments/queries.ts";
import { minimumChargeOf } from "../products/currencies.ts";
import { scopeOfCaller, scopeOfResource } from "../../lib/org-scope.ts";
import { productsWithPrices } from "../products/service.ts";
import { recordEvent } from "../webhooks/outbox.ts";
import {
  OffSessionChargesNotEnabled,
  OrderNotDraft,
  OrganizationNotReadyForPayments,
  PaymentActionRequired,
  PaymentFailed,
} from "./errors.ts";
import type { OrderCreate, OrderFinalize } from "./schemas.ts";
import {
  type DraftOrderDeps,
  finalizeKey,
  finalizeRequest,
  markPaid,
  releaseAttempt,
} from "./settle.ts";

export type { DraftOrderDeps } from "./settle.ts";

const field = (name: string, msg: string) => RequestValidationError.field(["body", name], msg);

async function render(deps: DraftOrderDeps, row: OrderRow): Promise<OrderOut> {
  return (await serializeOrders(deps.db, deps.baseUrl, [row]))[0]!;
}

/** POST /v1/orders/: a draft for a one-time product, no invoice number yet; order.created. */
export async function createDraftOrder(deps: DraftOrderDeps, ctx: AuthContext, input: OrderCreate) {
  const organizationId = organizationForWrite(ctx, input.organization_id);
  if (!(await offSessionChargesEnabled(deps.db, organizationId)))
    throw new OffSessionChargesNotEnabled();
  // The organization was proven by organizationForWrite.
  const scope = scopeOfResource({ organizationId });
  const customer = await findCustomerForCheckout(deps.db, scope, {
    id: input.customer_id,
    externalId: null,
  });
  if (!customer) throw field("customer_id", "Customer not found.");
  const [product] = await productsWithPrices(deps.db, deps.baseUrl, scope, [input.product_id]);
  if (!product || product.row.isArchived) throw field("product_id", "Product not found.");
  if (product.row.recurringInterval)
    throw field("product_id", "A draft order is for a one-time product; this one recurs.");
  // As Polar: checked against the product's attached fields, required ones not enforced yet.
  const fieldIssues = customFieldIssues(
    product.out.attached_custom_fields,
    input.custom_field_data ?? {},
    false,
  );
  if (fieldIssues.length) throw new RequestValidationError(fieldIssues);
  const currency = input.currency ?? (await defaultCurrencyOf(deps.db, organizationId));
  const inCurrency = product.prices.filter((p) => p.priceCurrency === currency && !p.isArchived);
  const price = inCurrency.find((p) => p.amountType === "fixed" || p.amountType === "free");
  // A custom amount replaces the price, so any price in the currency (or none) will do for it.
  if (!price && input.amount == null)
    throw field(
      "product_id",
      inCurrency.length
        ? "Only fixed-price and free products can be charged without an amount."
        : `The product has no price in ${currency}.`,
    );
  const amount = input.amount ?? price?.priceAmount ?? 0;
  const minimum = minimumChargeOf(currency);
  if (amount > 0 && amount < minimum)
    throw field("amount", `A charge in ${currency} must be at least ${minimum}.`);

  // Added to the amount, by the customer's billing country, as on renewals (null: not knowable).
  const taxAmount =
    deps.tax.quote({
      netAmount: amount,
      currency,
      country: customer.billingAddress?.country ?? null,
    }).taxAmount ?? 0;

  const order = await inTransaction(deps.db, async (tx) => {
    const now = deps.clock.now();
    const { order } = await insertDraftOrder(
      tx,
      {
        organizationId,
        customerId: customer.id,
        productId: product.row.id,
        status: "draft",
        billingReason: "purchase",
        subtotalAmount: amount,
        discountAmount: 0,
        netAmount: amount,
        taxAmount,
        totalAmount: amount + taxAmount,
        currency,
        billingName: customer.billingName ?? customer.name,
        billingAddress: customer.billingAddress,
        metadata: input.metadata ?? {},
        customFieldData: input.custom_field_data ?? {},
        createdAt: now,
      },
      [
        {
          label: input.description ?? product.row.name,
          amount,
          taxAmount,
          productPriceId: (price ?? inCurrency[0])?.id ?? null,
          createdAt: now,
        },
      ],
    );
    const data = (await serializeOrders(tx, deps.baseUrl, [order]))[0]!;
    await recordEvent(tx, deps.clock, { organizationId, type: "order.created", data });
    return order;
  });
  return render(deps, order);
}

type Claim =
  | {
      kind: "charge";
      order: OrderRow;
      request: OffSessionChargeRequest;
      card: { brand: string; last4: string };
    }
  /** Claimed, but its card is gone since: only the processor's record can settle it. */
  | { kind: "lookup"; order: OrderRow }
  | { kind: "free"; order: OrderRow };

const cardOf = (m: PaymentMethodRecord) => ({ brand: m.brand, last4: m.last4 });

/**
 * Takes (or, for a draft already claimed, rejoins) the current attempt. Refusals come before any
 * change: another organization's order 404, the feature off 403, not a draft 412, no card 402.
 */
async function claim(
  deps: DraftOrderDeps,
  ctx: AuthContext,
  id: string,
  input: OrderFinalize,
): Promise<Claim> {
  return inTransaction(deps.db, async (tx) => {
    const order = await lockOrder(tx, scopeOfCaller(ctx), id);
    if (!order) throw new ResourceNotFound("Order not found.");
    if (!(await offSessionChargesEnabled(tx, order.organizationId)))
      throw new OffSessionChargesNotEnabled();
    if (order.status !== "draft") throw new OrderNotDraft(order.status);
    if (order.totalAmount > 0 && deps.processor.name === "none")
      throw new OrganizationNotReadyForPayments();
    const methods = await customerPaymentMethods(tx, scopeOfResource(order), order.customerId);
    if (order.finalizingAt) {
      const method = methods.find((m) => m.id === order.finalizePaymentMethodId);
      if (order.totalAmount === 0) return { kind: "free", order };
      if (!method) return { kind: "lookup", order };
      // Asked again exactly as first asked (claims from before requests were kept: rebuilt).
      const request = order.finalizePaymentReplay ?? finalizeRequest(order, method);
      return { kind: "charge", order, request, card: cardOf(method) };
    }
    let method: PaymentMethodRecord | undefined;
    if (order.totalAmount > 0) {
      method = input.payment_method_id
        ? methods.find((m) => m.id === input.payment_method_id)
        : methods[0];
      if (input.payment_method_id && !method)
        throw field("payment_method_id", "Payment method not found.");
      if (!method) throw new PaymentFailed("The customer has no saved payment method.");
    }
    const request = method
      ? finalizeRequest({ ...order, paymentAttempts: order.paymentAttempts + 1 }, method)
      : null;
    // The request is kept with the claim, in its transaction: whoever settles the attempt asks
    // the processor the same again under its key, and never depends on the processor's search.
    const claimed = await updateOrderRow(tx, order.id, {
      paymentAttempts: order.paymentAttempts + 1,
      finalizingAt: deps.clock.now(),
      finalizePaymentMethodId: method?.id ?? null,
      finalizePaymentReplay: request,
    });
    return method && request
      ? { kind: "charge", order: claimed, request, card: cardOf(method) }
      : { kind: "free", order: claimed };
  });
}

/** POST /v1/orders/{id}/finalize: the order paid (200), or still a draft and a 402 saying why. */
export async function finalizeOrder(
  deps: DraftOrderDeps,
  ctx: AuthContext,
  id: string,
  input: OrderFinalize,
) {
  const c = await claim(deps, ctx, id, input);
  const { order } = c;
  if (c.kind === "free") {
    await markPaid(deps, order, { processorPaymentId: null, card: null });
    return current(deps, ctx, id);
  }
  if (c.kind === "lookup") {
    const lookup = await deps.processor
      .lookupPayment(finalizeKey(order), undefined, order.finalizePaymentReplay ?? undefined)
      .catch(() => null);
    if (lookup?.status === "succeeded") {
      await markPaid(deps, order, lookup);
      return current(deps, ctx, id);
    }
    throw new ServiceUnavailable("The order's payment is being settled; try again shortly.");
  }
  const { card, request } = c;
  let result: ChargeResult;
  try {
    result = await deps.processor.chargeOffSession(request);
  } catch (err) {
    // No answer about the card: it may have been charged. The claim stays for a repeated finalize
    // or the reconciler, which ask the processor under the same key.
    throw new ServiceUnavailable(
      `The payment processor could not be reached: ${(err as Error).message}`,
    );
  }
  if (result.status === "succeeded") {
    await markPaid(deps, order, { processorPaymentId: result.processorPaymentId, card });
    return current(deps, ctx, id);
  }
  if (result.status === "requires_action") {
    // Nobody is present to authenticate: the payment is given up so it can never succeed later.
    const cancelled = deps.processor.cancelPayment
      ? await deps.processor.cancelPayment(finalizeKey(order), request).catch(() => null)
      : { status: "failed" as const };
    if (cancelled?.status === "succeeded") {
      await markPaid(deps, order, { processorPaymentId: cancelled.processorPaymentId, card });
      return current(deps, ctx, id);
    }
    if (!cancelled || cancelled.status === "processing")
      throw new ServiceUnavailable("The order's payment is being settled; try again shortly.");
    await releaseAttempt(
      deps,
      order,
      { reason: "authentication_required", message: DECLINE_MESSAGES.authentication_required },
      card,
    );
    throw new PaymentActionRequired();
  }
  const message = result.message || DECLINE_MESSAGES[result.code];
  await releaseAttempt(deps, order, { reason: result.reason ?? result.code, message }, card);
  // Stripe declines an off-session charge its bank wants authenticated (authentication_required).
  if (result.code === "authentication_required") throw new PaymentActionRequired();
  throw new PaymentFailed(message);
}

async function current(deps: DraftOrderDeps, ctx: AuthContext, id: string) {
  const row = await findOrderRow(deps.db, scopeOfCaller(ctx), id);
  if (!row) throw new ResourceNotFound("Order not found.");
  return render(deps, row);
}
