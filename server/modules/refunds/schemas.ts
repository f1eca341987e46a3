// Wire schemas for Polar's Refund, RefundCreate and the list filters.
import { z } from "zod";
import { metadataInput } from "../../lib/metadata.ts";
import { queryBoolean, queryList } from "../../lib/query.ts";
import { sortingSchema } from "../../lib/sorting.ts";
import { metadataOut, timestamped } from "../../lib/wire.ts";
import type { RefundRow } from "./repository.ts";

export const REFUND_REASONS = [
  "duplicate",
  "fraudulent",
  "customer_request",
  "service_disruption",
  "satisfaction_guarantee",
  "other",
] as const;

export const refundCreate = z.object({
  order_id: z.uuid(),
  reason: z.enum(REFUND_REASONS),
  amount: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  comment: z.string().max(10_000).nullish(),
  revoke_benefits: z.boolean().default(false),
  metadata: metadataInput.optional(),
});
export type RefundCreate = z.output<typeof refundCreate>;

export const refundListQuery = z.object({
  id: queryList(z.uuid()).optional(),
  organization_id: queryList(z.uuid()).optional(),
  order_id: queryList(z.uuid()).optional(),
  subscription_id: queryList(z.uuid()).optional(),
  customer_id: queryList(z.uuid()).optional(),
  external_customer_id: queryList(z.string().min(1)).optional(),
  succeeded: queryBoolean.optional(),
  sorting: sortingSchema(["created_at", "amount"] as const, ["-created_at"]),
});
export type RefundListQuery = z.output<typeof refundListQuery>;

export const refundSchema = z
  .object({
    ...timestamped,
    metadata: metadataOut,
    status: z.enum(["pending", "succeeded", "failed", "canceled"]),
    reason: z.enum(REFUND_REASONS),
    amount: z.number().int(),
    tax_amount: z.number().int(),
    currency: z.string(),
    organization_id: z.uuid(),
    order_id: z.uuid(),
    subscription_id: z.uuid().nullable(),
    customer_id: z.uuid(),
    revoke_benefits: z.boolean(),
    dispute: z.record(z.string(), z.unknown()).nullable(),
  })
  .meta({ id: "Refund" });
export type RefundOut = z.output<typeof refundSchema>;

export function refundOut(r: RefundRow): RefundOut {
  return {
    created_at: r.createdAt.toISOString(),
    modified_at: r.modifiedAt?.toISOString() ?? null,
    id: r.id,
    metadata: r.metadata,
    status: r.status as "pending" | "succeeded" | "failed" | "canceled",
    reason: r.reason as (typeof REFUND_REASONS)[number],
    amount: r.amount,
    tax_amount: r.taxAmount,
    currency: r.currency,
    organization_id: r.organizationId,
    order_id: r.orderId,
    subscription_id: r.subscriptionId,
    customer_id: r.customerId,
    revoke_benefits: r.revokeBenefits,
    dispute: null,
  };
}
