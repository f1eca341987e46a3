// Wire schemas for Polar's Payment (CardPayment) and the payments list filters.
import { z } from "zod";
import { queryList } from "../../lib/query.ts";
import { sortingSchema } from "../../lib/sorting.ts";
import { timestamped } from "../../lib/wire.ts";
import type { PaymentRow } from "./repository.ts";

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
    processor: z.enum(["stripe"]).meta({ id: "PaymentProcessor" }),
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
