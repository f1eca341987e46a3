// Wire schemas for Polar's Order and its list filters.
import { z } from "zod";
import { queryDatetime, queryList } from "../../lib/query.ts";
import { sortingSchema } from "../../lib/sorting.ts";
import { address, metadataOut, nullableTimestamp, timestamped } from "../../lib/wire.ts";
import { customerSchema, type CustomerOut } from "../customers/schemas.ts";
import { discountSchema, type DiscountOut } from "../discounts/schemas.ts";
import { productCoreSchema, type ProductOut } from "../products/schemas.ts";
import { subscriptionCore, subscriptionCoreSchema } from "../subscriptions/schemas.ts";
import type { SubscriptionRow } from "../subscriptions/repository.ts";
import type { OrderItemRow, OrderRow } from "./repository.ts";

export const ORDER_STATUSES = [
  "draft",
  "pending",
  "paid",
  "refunded",
  "partially_refunded",
  "void",
] as const;
/** Polar's OrderSortProperty (list-repository.ts says what each key sorts by). */
export const ORDER_SORTS = [
  "created_at",
  "status",
  "invoice_number",
  "amount",
  "net_amount",
  "customer",
  "product",
  "discount",
  "subscription",
] as const;
export const orderListQuery = z.object({
  organization_id: queryList(z.uuid()).optional(),
  product_id: queryList(z.uuid()).optional(),
  customer_id: queryList(z.uuid()).optional(),
  checkout_id: queryList(z.uuid()).optional(),
  subscription_id: queryList(z.uuid()).optional(),
  external_customer_id: queryList(z.string()).optional(),
  discount_id: queryList(z.uuid()).optional(),
  status: queryList(z.enum(ORDER_STATUSES)).optional(),
  product_billing_type: queryList(z.enum(["one_time", "recurring"])).optional(),
  created_after: queryDatetime.optional(),
  created_before: queryDatetime.optional(),
  sorting: sortingSchema(ORDER_SORTS, ["-created_at"]),
});
export type OrderListQuery = z.output<typeof orderListQuery>;

export interface OrderParts {
  items: OrderItemRow[];
  customer: CustomerOut;
  product: ProductOut | null;
  discount: DiscountOut | null;
  subscription: SubscriptionRow | null;
}

export const BILLING_REASONS = [
  "purchase",
  "subscription_create",
  "subscription_cycle",
  "subscription_update",
  "subscription_meter_cycle",
] as const;

export const orderItemSchema = z
  .object({
    ...timestamped,
    label: z.string(),
    amount: z.number().int(),
    tax_amount: z.number().int(),
    proration: z.boolean(),
    product_price_id: z.uuid().nullable(),
  })
  .meta({ id: "OrderItemSchema" });

export const orderSchema = z
  .object({
    ...timestamped,
    status: z.enum(ORDER_STATUSES),
    paid: z.boolean(),
    subtotal_amount: z.number().int(),
    discount_amount: z.number().int(),
    net_amount: z.number().int(),
    tax_amount: z.number().int(),
    total_amount: z.number().int(),
    applied_balance_amount: z.number().int(),
    due_amount: z.number().int(),
    refunded_amount: z.number().int(),
    refunded_tax_amount: z.number().int(),
    currency: z.string(),
    billing_reason: z.enum(BILLING_REASONS),
    billing_name: z.string().nullable(),
    billing_address: address.nullable(),
    invoice_number: z.string().nullable(),
    is_invoice_generated: z.boolean(),
    receipt_number: z.string().nullable(),
    seats: z.number().int().nullable(),
    customer_id: z.uuid(),
    product_id: z.uuid().nullable(),
    discount_id: z.uuid().nullable(),
    subscription_id: z.uuid().nullable(),
    checkout_id: z.uuid().nullable(),
    next_payment_attempt_at: nullableTimestamp,
    metadata: metadataOut,
    custom_field_data: z.record(z.string(), z.unknown()),
    platform_fee_amount: z.number().int(),
    platform_fee_currency: z.string().nullable(),
    customer: customerSchema,
    product: productCoreSchema.meta({ id: "OrderProduct" }).nullable(),
    discount: discountSchema.nullable(),
    subscription: subscriptionCoreSchema.nullable(),
    items: z.array(orderItemSchema),
    description: z.string(),
    refundable_amount: z.number().int(),
    refundable_tax_amount: z.number().int(),
  })
  .meta({ id: "Order" });
export type OrderOut = z.output<typeof orderSchema>;

/** What is left to collect of an order once its customer's balance has paid its part. */
/** The period start a cycle order's billing key names (`cycle|meter:<subscription>:<start>`). */
export function periodStartOfKey(billingKey: string | null): Date | null {
  const iso = billingKey?.split(":").slice(2).join(":");
  return iso ? new Date(iso) : null;
}

export function dueAmountOf(o: Pick<OrderRow, "totalAmount" | "appliedBalanceAmount">): number {
  return Math.max(0, o.totalAmount + o.appliedBalanceAmount);
}

export function orderOut(o: OrderRow, parts: OrderParts): OrderOut {
  const product = parts.product;
  return {
    id: o.id,
    created_at: o.createdAt.toISOString(),
    modified_at: o.modifiedAt?.toISOString() ?? null,
    status: o.status as OrderOut["status"],
    paid: ["paid", "refunded", "partially_refunded"].includes(o.status),
    subtotal_amount: o.subtotalAmount,
    discount_amount: o.discountAmount,
    net_amount: o.netAmount,
    tax_amount: o.taxAmount,
    total_amount: o.totalAmount,
    applied_balance_amount: o.appliedBalanceAmount,
    // As Polar's Order.due_amount, whatever the status: on a paid order, what its payment took.
    due_amount: dueAmountOf(o),
    refunded_amount: o.refundedAmount,
    refunded_tax_amount: o.refundedTaxAmount,
    currency: o.currency,
    billing_reason: o.billingReason as OrderOut["billing_reason"],
    billing_name: o.billingName,
    billing_address: o.billingAddress,
    // Polar's 0.4x client requires a string here; a stable number derived from the order id.
    invoice_number: o.invoiceNumber,
    is_invoice_generated: o.invoiceFileKey !== null,
    receipt_number: o.receiptNumber,
    seats: o.seats,
    customer_id: o.customerId,
    product_id: o.productId,
    discount_id: o.discountId,
    subscription_id: o.subscriptionId,
    checkout_id: o.checkoutId,
    next_payment_attempt_at: o.nextPaymentAttemptAt?.toISOString() ?? null,
    metadata: o.metadata,
    custom_field_data: o.customFieldData,
    platform_fee_amount: 0,
    platform_fee_currency: null,
    customer: parts.customer,
    product: product
      ? (({ prices: _p, benefits: _b, medias: _m, attached_custom_fields: _a, ...rest }) => rest)(
          product,
        )
      : null,
    discount: parts.discount ?? null,
    subscription: parts.subscription ? subscriptionCore(parts.subscription) : null,
    items: parts.items.map((i) => ({
      created_at: i.createdAt.toISOString(),
      modified_at: i.modifiedAt?.toISOString() ?? null,
      id: i.id,
      label: i.label,
      amount: i.amount,
      tax_amount: i.taxAmount,
      proration: i.proration,
      product_price_id: i.productPriceId,
    })),
    description: product?.name ?? parts.items[0]?.label ?? "Order",
    // As Polar: refunded_amount is the net part refunded (tax separately in refunded_tax_amount).
    refundable_amount: o.netAmount - o.refundedAmount,
    refundable_tax_amount: o.taxAmount - o.refundedTaxAmount,
  };
}
