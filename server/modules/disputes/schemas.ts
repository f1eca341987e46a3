// Wire schemas for Polar's Dispute and the disputes list filters.
import { z } from "zod";
import { queryList } from "../../lib/query.ts";
import { sortingSchema } from "../../lib/sorting.ts";
import { nullableTimestamp, timestamped } from "../../lib/wire.ts";
import { customerSchema, type CustomerOut } from "../customers/schemas.ts";
import type { DisputeRow } from "./repository.ts";

export const DISPUTE_STATUSES = [
  "prevented",
  "early_warning",
  "needs_response",
  "under_review",
  "lost",
  "won",
] as const;

export const disputeListQuery = z.object({
  organization_id: queryList(z.uuid()).optional(),
  order_id: queryList(z.uuid()).optional(),
  status: queryList(z.enum(DISPUTE_STATUSES)).optional(),
  sorting: sortingSchema(["created_at", "amount"] as const, ["-created_at"]),
});
export type DisputeListQuery = z.output<typeof disputeListQuery>;

const RESOLVED = new Set<DisputeRow["status"]>(["won", "lost"]);
const CLOSED = new Set<DisputeRow["status"]>(["prevented", "won", "lost"]);

export const isClosed = (status: DisputeRow["status"]) => CLOSED.has(status);

// Polar's DisputeCustomer is a subset of Customer; till sends the whole customer.
export const disputeSchema = z
  .object({
    ...timestamped,
    status: z.enum(DISPUTE_STATUSES).meta({ id: "DisputeStatus" }),
    resolved: z.boolean(),
    closed: z.boolean(),
    amount: z.number().int(),
    tax_amount: z.number().int(),
    currency: z.string(),
    reason: z.string().nullable(),
    evidence_due_by: nullableTimestamp,
    past_due: z.boolean(),
    order_id: z.uuid(),
    payment_id: z.uuid(),
    customer: customerSchema,
    case_id: z.uuid().nullable(),
  })
  .meta({ id: "Dispute" });
export type DisputeOut = z.output<typeof disputeSchema>;

export function disputeOut(d: DisputeRow, customer: CustomerOut): DisputeOut {
  return {
    created_at: d.createdAt.toISOString(),
    modified_at: d.modifiedAt?.toISOString() ?? null,
    id: d.id,
    status: d.status,
    resolved: RESOLVED.has(d.status),
    closed: CLOSED.has(d.status),
    amount: d.amount,
    tax_amount: d.taxAmount,
    currency: d.currency,
    reason: d.reason,
    evidence_due_by: d.evidenceDueBy?.toISOString() ?? null,
    past_due: d.pastDue,
    order_id: d.orderId,
    payment_id: d.paymentId,
    customer,
    // till has no support cases: the seller answers a dispute in the processor's dashboard.
    case_id: null,
  };
}
