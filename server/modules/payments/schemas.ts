// Wire schemas for Polar's Payment (CardPayment), the payments list filters, a customer's saved
// PaymentMethodCard and the answer to adding one.
import { z } from "zod";
import { queryList } from "../../lib/query.ts";
import { sortingSchema } from "../../lib/sorting.ts";
import { timestamped } from "../../lib/wire.ts";
import type { PaymentMethodRow, PaymentRow } from "./repository.ts";

export const paymentListQuery = z.object({
  organization_id: queryList(z.uuid()).optional(),
  checkout_id: queryList(z.uuid()).optional(),
  order_id: queryList(z.uuid()).optional(),
  customer_id: queryList(z.uuid()).optional(),
  status: queryList(z.enum(["pending", "succeeded", "failed"])).optional(),
  method: queryList(z.string().min(1)).optional(),
  customer_email: queryList(z.string().min(1)).optional(),
  sorting: sortingSchema(["created_at", "status", "amount", "method"] as const, ["-created_at"]),
});
export type PaymentListQuery = z.output<typeof paymentListQuery>;

const paymentProcessor = z.enum(["stripe"]).meta({ id: "PaymentProcessor" });

export const PAYMENT_TRIGGERS = [
  "purchase",
  "subscription_cycle",
  "retry_dunning",
  "retry_customer",
  "retry_payment_method_update",
  "retry_admin",
] as const;
type PaymentTrigger = (typeof PAYMENT_TRIGGERS)[number];

// Polar's Payment is CardPayment | GenericPayment; till records card payments only.
export const paymentSchema = z
  .object({
    ...timestamped,
    processor: paymentProcessor,
    status: z.enum(["pending", "succeeded", "failed"]).meta({ id: "PaymentStatus" }),
    amount: z.number().int(),
    currency: z.string(),
    method: z.literal("card"),
    trigger: z.enum(PAYMENT_TRIGGERS).meta({ id: "PaymentTrigger" }).nullable(),
    decline_reason: z.string().nullable(),
    decline_message: z.string().nullable(),
    organization_id: z.uuid(),
    checkout_id: z.uuid().nullable(),
    order_id: z.uuid().nullable(),
    processor_metadata: z.record(z.string(), z.unknown()),
    method_metadata: z
      .object({ brand: z.string(), last4: z.string() })
      .meta({ id: "CardPaymentMetadata" }),
  })
  .meta({ id: "CardPayment" });
export type PaymentOut = z.output<typeof paymentSchema>;

export function paymentOut(p: PaymentRow): PaymentOut {
  return {
    created_at: p.createdAt.toISOString(),
    modified_at: p.modifiedAt?.toISOString() ?? null,
    id: p.id,
    // Polar's wire enum knows only stripe; sandbox payments say so in processor_metadata.
    processor: "stripe" as const,
    status: p.status,
    amount: p.amount,
    currency: p.currency,
    method: "card" as const,
    trigger: p.trigger as PaymentTrigger | null,
    decline_reason: p.declineReason,
    decline_message: p.declineMessage,
    organization_id: p.organizationId,
    checkout_id: p.checkoutId,
    order_id: p.orderId,
    processor_metadata: {
      processor: p.processor,
      ...(p.processorPaymentId ? { payment_id: p.processorPaymentId } : {}),
    },
    method_metadata: { brand: p.brand ?? "card", last4: p.last4 ?? "" },
  };
}

/** Polar's PaymentMethodCard: till saves cards only. */
export const paymentMethodSchema = z
  .object({
    ...timestamped,
    processor: paymentProcessor,
    customer_id: z.uuid(),
    type: z.literal("card"),
    method_metadata: z
      .object({
        brand: z.string(),
        last4: z.string(),
        exp_month: z.number().int(),
        exp_year: z.number().int(),
        wallet: z.string().nullable(),
      })
      .meta({ id: "PaymentMethodCardMetadata" }),
  })
  .meta({ id: "PaymentMethodCard" });
export type PaymentMethodOut = z.output<typeof paymentMethodSchema>;

export function paymentMethodOut(m: PaymentMethodRow): PaymentMethodOut {
  return {
    id: m.id,
    created_at: m.createdAt.toISOString(),
    modified_at: m.modifiedAt?.toISOString() ?? null,
    processor: "stripe" as const,
    customer_id: m.customerId,
    type: "card" as const,
    method_metadata: {
      brand: m.brand,
      last4: m.last4,
      exp_month: m.expMonth ?? 0,
      exp_year: m.expYear ?? 0,
      wallet: null,
    },
  };
}

/** Polar's CustomerPaymentMethodCreateResponse: the saved card, or the 3-D Secure step first. */
export const paymentMethodCreateResponseSchema = z
  .discriminatedUnion("status", [
    z
      .object({ status: z.literal("succeeded"), payment_method: paymentMethodSchema })
      .meta({ id: "CustomerPaymentMethodCreateSucceededResponse" }),
    z
      .object({ status: z.literal("requires_action"), client_secret: z.string() })
      .meta({ id: "CustomerPaymentMethodCreateRequiresActionResponse" }),
  ])
  .meta({ id: "CustomerPaymentMethodCreateResponse" });
export type PaymentMethodCreateResponseOut = z.output<typeof paymentMethodCreateResponseSchema>;
