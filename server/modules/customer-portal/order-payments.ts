// Paying a renewal that failed, from the portal: GET orders/{id}/payment-status (the order's state
// and the last attempt's decline message) and POST orders/{id}/confirm-payment, which retries a
// pending subscription order now with a saved card (payment_method_id) or a new one
// (confirmation_token_id, saved and made the default) instead of at the next dunning date.
import { z } from "zod";
import type { CustomerContext } from "../../lib/customer-context.ts";
import { ApiError, ResourceNotFound } from "../../lib/errors.ts";
import { getOrder } from "../orders/service.ts";
import { addCustomerPaymentMethod } from "../payments/add-method.ts";
import { lastPaymentOfOrder } from "../payments/queries.ts";
import { makeCardDefault } from "../payments/service.ts";
import type { BillingDeps } from "../subscriptions/deps.ts";
import { retryPastDueOfCustomer } from "../subscriptions/dunning.ts";
import { retryMeterOrderOfCustomer } from "../subscriptions/meter-dunning.ts";
import { scopeOfCustomer } from "../../lib/org-scope.ts";

export const orderConfirmPayment = z
  .object({
    confirmation_token_id: z.string().min(1).max(500).nullish(),
    payment_method_id: z.uuid().nullish(),
    payment_processor: z.literal("stripe").default("stripe"),
  })
  .strict()
  .refine((b) => Boolean(b.confirmation_token_id) !== Boolean(b.payment_method_id), {
    message: "Give either confirmation_token_id or payment_method_id.",
    path: ["confirmation_token_id"],
  });

/** Polar's CustomerOrderPaymentStatus: succeeded, pending, failed (with the decline) or the void state. */
export const orderPaymentStatusSchema = z
  .object({ status: z.string(), error: z.string().nullable() })
  .meta({ id: "CustomerOrderPaymentStatus" });
export type OrderPaymentStatusOut = z.output<typeof orderPaymentStatusSchema>;

export const orderPaymentConfirmationSchema = z
  .object({
    status: z.string(),
    client_secret: z.string().nullable(),
    error: z.string().nullable(),
  })
  .meta({ id: "CustomerOrderPaymentConfirmation" });
export type OrderPaymentConfirmationOut = z.output<typeof orderPaymentConfirmationSchema>;

/** Order statuses that mean the money came in (refunds happen after). */
const PAID = new Set(["paid", "refunded", "partially_refunded"]);

class OrderNotEligibleForRetry extends ApiError {
  constructor(detail: string) {
    super(422, "OrderNotEligibleForRetry", detail);
  }
}

async function myOrder(deps: BillingDeps, ctx: CustomerContext, id: string) {
  const order = await getOrder(deps, scopeOfCustomer(ctx), id);
  if (order.customer_id !== ctx.customerId) throw new ResourceNotFound("Order not found.");
  return order;
}

async function statusOf(deps: BillingDeps, ctx: CustomerContext, id: string) {
  const order = await myOrder(deps, ctx, id);
  if (PAID.has(order.status)) return { status: "succeeded", error: null, order };
  // A void order (dunning gave up, or a plan change replaced it) is said as it is.
  if (order.status !== "pending") return { status: order.status, error: null, order };
  const last = await lastPaymentOfOrder(deps.db, scopeOfCustomer(ctx), id);
  return last?.status === "failed"
    ? { status: "failed", error: last.declineMessage ?? "The payment failed.", order }
    : { status: "pending", error: null, order };
}

export async function orderPaymentStatus(
  deps: BillingDeps,
  ctx: CustomerContext,
  id: string,
): Promise<OrderPaymentStatusOut> {
  const { status, error } = await statusOf(deps, ctx, id);
  return { status, error };
}

export async function confirmOrderPayment(
  deps: BillingDeps,
  ctx: CustomerContext,
  id: string,
  input: z.output<typeof orderConfirmPayment>,
): Promise<OrderPaymentConfirmationOut> {
  const order = await myOrder(deps, ctx, id);
  if (order.status !== "pending" || !order.subscription_id)
    throw new OrderNotEligibleForRetry("Only a subscription's unpaid renewal can be paid again.");
  if (input.payment_method_id) {
    const ok = await makeCardDefault(
      deps.db,
      scopeOfCustomer(ctx),
      ctx.customerId,
      input.payment_method_id,
      deps.clock.now(),
    );
    if (!ok) throw new ResourceNotFound("Payment method not found.");
  } else {
    const added = await addCustomerPaymentMethod(deps, ctx, {
      confirmation_token_id: input.confirmation_token_id!,
      set_default: true,
      return_url: deps.baseUrl,
    });
    if (added.status === "requires_action")
      return { status: "requires_action", client_secret: added.clientSecret, error: null };
  }
  const { held } = await retryPastDueOfCustomer(deps, ctx);
  // A usage settlement leaves its subscription active: that order alone is paid now.
  await retryMeterOrderOfCustomer(deps, ctx, id);
  const after = await statusOf(deps, ctx, id);
  // Another request is paying it this moment: its outcome is not known yet, and the decline of an
  // earlier attempt is not this request's.
  if (held > 0 && after.status === "failed")
    return { status: "pending", client_secret: null, error: null };
  return { status: after.status, client_secret: null, error: after.error };
}
