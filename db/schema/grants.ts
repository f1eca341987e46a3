// Benefit grants (one per customer × benefit × order-or-subscription), and what granting creates:
// license keys with their activations, credited meter units, and refunds of orders.
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { benefits } from "./benefits.ts";
import { id, timestamps, tstz } from "./columns.ts";
import { customerRef, organizationRef } from "./owned.ts";
import { meters } from "./meters.ts";
import { orders, subscriptions } from "./orders.ts";

export interface GrantError {
  message: string;
  type: string;
  timestamp: string;
}

export const benefitGrants = pgTable(
  "benefit_grants",
  {
    id: id(),
    organizationId: organizationRef(),
    customerId: customerRef(),
    benefitId: uuid("benefit_id")
      .notNull()
      .references(() => benefits.id),
    orderId: uuid("order_id").references(() => orders.id),
    subscriptionId: uuid("subscription_id").references(() => subscriptions.id),
    /** The subscription when there is one, else the order: what the grant is unique within. */
    scopeId: uuid("scope_id").notNull(),
    grantedAt: tstz("granted_at"),
    revokedAt: tstz("revoked_at"),
    /** What the worker still has to do ("grant" or "revoke"); null when the grant is settled. */
    pendingAction: text("pending_action"),
    properties: jsonb("properties")
      .$type<Record<string, unknown>>()
      .notNull()
      .default(sql`'{}'::jsonb`),
    previousProperties: jsonb("previous_properties").$type<Record<string, unknown>>(),
    error: jsonb("error").$type<GrantError>(),
    attempts: integer("attempts").notNull().default(0),
    /** Whether benefit_grant.created has been sent (on the first successful grant). */
    announced: boolean("announced").notNull().default(false),
    ...timestamps(),
  },
  (t) => [
    uniqueIndex("benefit_grants_scope_uq").on(t.customerId, t.benefitId, t.scopeId),
    index("benefit_grants_org_created_idx").on(t.organizationId, t.createdAt),
    index("benefit_grants_benefit_idx").on(t.benefitId),
  ],
);

export const licenseKeys = pgTable(
  "license_keys",
  {
    id: id(),
    organizationId: organizationRef(),
    customerId: customerRef(),
    benefitId: uuid("benefit_id")
      .notNull()
      .references(() => benefits.id),
    grantId: uuid("grant_id").references(() => benefitGrants.id),
    key: text("key").notNull(),
    status: text("status").notNull(),
    limitActivations: integer("limit_activations"),
    usage: integer("usage").notNull().default(0),
    limitUsage: integer("limit_usage"),
    validations: integer("validations").notNull().default(0),
    lastValidatedAt: tstz("last_validated_at"),
    expiresAt: tstz("expires_at"),
    ...timestamps(),
  },
  (t) => [
    uniqueIndex("license_keys_org_key_uq").on(t.organizationId, t.key),
    index("license_keys_org_created_idx").on(t.organizationId, t.createdAt),
    uniqueIndex("license_keys_grant_uq").on(t.grantId),
  ],
);

export const licenseKeyActivations = pgTable(
  "license_key_activations",
  {
    id: id(),
    licenseKeyId: uuid("license_key_id")
      .notNull()
      .references(() => licenseKeys.id, { onDelete: "cascade" }),
    label: text("label").notNull(),
    meta: jsonb("meta")
      .$type<Record<string, string | number | boolean>>()
      .notNull()
      .default(sql`'{}'::jsonb`),
    conditions: jsonb("conditions")
      .$type<Record<string, string | number | boolean>>()
      .notNull()
      .default(sql`'{}'::jsonb`),
    ...timestamps(),
  },
  (t) => [index("license_key_activations_key_idx").on(t.licenseKeyId)],
);

/** Units credited to a customer's meter by meter_credit grants; consumption is read from events. */
export const customerMeters = pgTable(
  "customer_meters",
  {
    id: id(),
    organizationId: organizationRef(),
    customerId: customerRef(),
    meterId: uuid("meter_id")
      .notNull()
      .references(() => meters.id),
    creditedUnits: bigint("credited_units", { mode: "number" }).notNull().default(0),
    /** Units whose credit the renewal issue carries over (from grants with rollover). */
    rolloverUnits: bigint("rollover_units", { mode: "number" }).notNull().default(0),
    ...timestamps(),
  },
  (t) => [uniqueIndex("customer_meters_uq").on(t.customerId, t.meterId)],
);

export const refunds = pgTable(
  "refunds",
  {
    id: id(),
    organizationId: organizationRef(),
    orderId: uuid("order_id")
      .notNull()
      .references(() => orders.id),
    subscriptionId: uuid("subscription_id").references(() => subscriptions.id),
    customerId: customerRef(),
    status: text("status").notNull(),
    reason: text("reason").notNull(),
    amount: bigint("amount", { mode: "number" }).notNull(),
    taxAmount: bigint("tax_amount", { mode: "number" }).notNull(),
    currency: text("currency").notNull(),
    comment: text("comment"),
    revokeBenefits: boolean("revoke_benefits").notNull().default(false),
    processorRefundId: text("processor_refund_id"),
    failureReason: text("failure_reason"),
    metadata: jsonb("metadata")
      .$type<Record<string, string | number | boolean>>()
      .notNull()
      .default(sql`'{}'::jsonb`),
    ...timestamps(),
  },
  (t) => [
    index("refunds_org_created_idx").on(t.organizationId, t.createdAt),
    index("refunds_order_idx").on(t.orderId),
  ],
);

/** Each download of a downloadables grant's file through its signed URL, for the seller's stats. */
export const fileDownloads = pgTable(
  "file_downloads",
  {
    id: id(),
    organizationId: organizationRef(),
    customerId: customerRef(),
    benefitId: uuid("benefit_id")
      .notNull()
      .references(() => benefits.id, { onDelete: "cascade" }),
    grantId: uuid("grant_id")
      .notNull()
      .references(() => benefitGrants.id, { onDelete: "cascade" }),
    fileId: uuid("file_id").notNull(),
    createdAt: tstz("created_at").notNull().defaultNow(),
  },
  (t) => [index("file_downloads_benefit_file_idx").on(t.benefitId, t.fileId)],
);
