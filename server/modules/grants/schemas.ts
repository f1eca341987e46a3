// Wire schemas for Polar's BenefitGrant (API and webhooks), the list query, and the customer-state
// views of grants and meters.
import { z } from "zod";
import { queryBoolean, queryList } from "../../lib/query.ts";
import { sortingSchema } from "../../lib/sorting.ts";
import { metadataOut, nullableTimestamp, timestamp, timestamped } from "../../lib/wire.ts";
import { BENEFIT_TYPES, type BenefitOut, benefitSchema } from "../benefits/schemas.ts";
import { type CustomerOut, customerSchema } from "../customers/schemas.ts";
import { fileDownloadSchema } from "../files/schemas.ts";
import type { CustomerMeterBalance } from "./meter-repository.ts";
import type { GrantRow } from "./repository.ts";

export const grantListQuery = z.object({
  organization_id: queryList(z.uuid()).optional(),
  customer_id: queryList(z.uuid()).optional(),
  external_customer_id: queryList(z.string().min(1)).optional(),
  is_granted: queryBoolean.optional(),
  sorting: sortingSchema(["created_at", "granted_at", "revoked_at"] as const, ["-created_at"]),
});
export type GrantListQuery = z.output<typeof grantListQuery>;

// Polar's CustomerBenefitGrantSortProperty and the portal list's filters, each one value or several.
export const CUSTOMER_GRANT_SORTS = [
  "granted_at",
  "type",
  "organization",
  "product_benefit",
] as const;
export const customerGrantListQuery = z.object({
  query: z.string().optional(),
  type: queryList(z.enum(BENEFIT_TYPES)).optional(),
  benefit_id: queryList(z.uuid()).optional(),
  checkout_id: queryList(z.uuid()).optional(),
  order_id: queryList(z.uuid()).optional(),
  subscription_id: queryList(z.uuid()).optional(),
  member_id: queryList(z.uuid()).optional(),
  sorting: sortingSchema(CUSTOMER_GRANT_SORTS, ["product_benefit", "-granted_at"]),
});
export type CustomerGrantListQuery = z.output<typeof customerGrantListQuery>;

export const benefitGrantListQuery = z.object({
  is_granted: queryBoolean.optional(),
  customer_id: queryList(z.uuid()).optional(),
  member_id: queryList(z.uuid()).optional(),
});
export type BenefitGrantListQuery = z.output<typeof benefitGrantListQuery>;

const accountUpdate = z.object({ account_id: z.string().min(1).max(100).nullable() });
const typeOnly = (type: string) => z.object({ benefit_type: z.literal(type) });

/** Polar's CustomerBenefitGrantUpdate: only Discord and GitHub grants have anything to change. */
export const customerGrantUpdate = z.discriminatedUnion("benefit_type", [
  z.object({ benefit_type: z.literal("discord"), properties: accountUpdate }),
  z.object({ benefit_type: z.literal("github_repository"), properties: accountUpdate }),
  typeOnly("downloadables"),
  typeOnly("license_keys"),
  typeOnly("custom"),
  typeOnly("meter_credit"),
  typeOnly("feature_flag"),
  z.object({
    benefit_type: z.literal("slack_shared_channel"),
    properties: z.object({ invited_email: z.email() }),
  }),
]);
export type CustomerGrantUpdate = z.output<typeof customerGrantUpdate>;

export const grantSchema = z
  .object({
    ...timestamped,
    granted_at: nullableTimestamp,
    is_granted: z.boolean(),
    revoked_at: nullableTimestamp,
    is_revoked: z.boolean(),
    subscription_id: z.uuid().nullable(),
    order_id: z.uuid().nullable(),
    customer_id: z.uuid(),
    member_id: z.uuid().nullable(),
    benefit_id: z.uuid(),
    error: z
      .object({ message: z.string(), type: z.string(), timestamp: z.string() })
      .meta({ id: "BenefitGrantError" })
      .nullable(),
    customer: customerSchema,
    member: z.null(),
    benefit: benefitSchema,
    properties: z.record(z.string(), z.unknown()),
  })
  .meta({ id: "BenefitGrant" });
export type GrantOut = z.output<typeof grantSchema>;

export function grantOut(g: GrantRow, customer: CustomerOut, benefit: BenefitOut): GrantOut {
  return {
    created_at: g.createdAt.toISOString(),
    modified_at: g.modifiedAt?.toISOString() ?? null,
    id: g.id,
    granted_at: g.grantedAt?.toISOString() ?? null,
    is_granted: g.grantedAt !== null,
    revoked_at: g.revokedAt?.toISOString() ?? null,
    is_revoked: g.revokedAt !== null,
    subscription_id: g.subscriptionId,
    order_id: g.orderId,
    customer_id: g.customerId,
    member_id: null,
    benefit_id: g.benefitId,
    error: g.error,
    customer,
    member: null,
    benefit,
    properties: g.properties,
  };
}

/** Webhook payloads also carry what the properties were before this change. */
export function grantWebhookOut(g: GrantRow, customer: CustomerOut, benefit: BenefitOut) {
  return { ...grantOut(g, customer, benefit), previous_properties: g.previousProperties };
}

/** Polar's DownloadableRead: one file of a downloadables grant, with a fresh signed URL. */
export const downloadableSchema = z
  .object({ id: z.uuid(), benefit_id: z.uuid(), file: fileDownloadSchema })
  .meta({ id: "DownloadableRead" });
export type DownloadableOut = z.output<typeof downloadableSchema>;

export const stateGrantSchema = z
  .object({
    ...timestamped,
    granted_at: timestamp,
    benefit_id: z.uuid(),
    benefit_type: z.enum(BENEFIT_TYPES),
    benefit_metadata: metadataOut,
    properties: z.record(z.string(), z.unknown()),
  })
  .meta({ id: "CustomerStateBenefitGrant" });
export type StateGrantOut = z.output<typeof stateGrantSchema>;

export const stateMeterSchema = z
  .object({
    ...timestamped,
    meter_id: z.uuid(),
    consumed_units: z.number(),
    credited_units: z.number().int(),
    balance: z.number(),
  })
  .meta({ id: "CustomerStateMeter" });
export type StateMeterOut = z.output<typeof stateMeterSchema>;

export function stateGrantOut(
  g: GrantRow,
  benefit: { type: string; metadata: StateGrantOut["benefit_metadata"] },
): StateGrantOut {
  return {
    id: g.id,
    created_at: g.createdAt.toISOString(),
    modified_at: g.modifiedAt?.toISOString() ?? null,
    granted_at: g.grantedAt!.toISOString(),
    benefit_id: g.benefitId,
    benefit_type: benefit.type as StateGrantOut["benefit_type"],
    benefit_metadata: benefit.metadata,
    properties: g.properties,
  };
}

export function stateMeterOut({ row, consumed }: CustomerMeterBalance): StateMeterOut {
  return {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    modified_at: row.modifiedAt?.toISOString() ?? null,
    meter_id: row.meterId,
    consumed_units: consumed,
    credited_units: row.creditedUnits,
    balance: row.creditedUnits - consumed,
  };
}

export const CUSTOMER_METER_SORTS = [
  "created_at",
  "modified_at",
  "meter_id",
  "meter_name",
  "consumed_units",
  "credited_units",
  "balance",
] as const;

export const customerMeterListQuery = z.object({
  meter_id: queryList(z.uuid()).optional(),
  query: z.string().optional(),
  sorting: sortingSchema(CUSTOMER_METER_SORTS, ["-modified_at"]),
});
export type CustomerMeterListQuery = z.output<typeof customerMeterListQuery>;

/** Polar's CustomerCustomerMeter: a customer's balance on one meter, with the meter's name. */
export const portalCustomerMeterSchema = z
  .object({
    ...stateMeterSchema.shape,
    customer_id: z.uuid(),
    meter: z
      .object({
        created_at: timestamp,
        modified_at: nullableTimestamp,
        id: z.uuid(),
        name: z.string(),
      })
      .meta({ id: "CustomerCustomerMeterMeter" }),
  })
  .meta({ id: "CustomerCustomerMeter" });
export type CustomerMeterOut = z.output<typeof portalCustomerMeterSchema>;

export function customerMeterOut(b: CustomerMeterBalance): CustomerMeterOut {
  const { meter } = b;
  return {
    ...stateMeterOut(b),
    customer_id: b.row.customerId,
    meter: {
      created_at: meter.createdAt.toISOString(),
      modified_at: meter.modifiedAt?.toISOString() ?? null,
      id: meter.id,
      name: meter.name,
    },
  };
}
