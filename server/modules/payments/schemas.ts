// Wire schemas for Polar's Payment (CardPayment) and the payments list filters.
import { z } from "zod";
import { queryList } from "../../lib/query.ts";
import { sortingSchema } from "../../lib/sorting.ts";
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

export function paymentOut(p: PaymentRow) {
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
    trigger: p.trigger,
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
