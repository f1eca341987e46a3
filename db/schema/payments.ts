// Payments: the sandbox processor's confirmation tokens and charges, saved payment methods, Stripe
// events handled, and every payment attempt. Card numbers and CVCs are never stored.
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  index,
  integer,
  pgTable,
  text,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { createdAt, id, modifiedAt, tstz } from "./columns.ts";
import { customers } from "./customers.ts";
import { customerRef, organizationRef } from "./owned.ts";

/** The card a customer typed into the sandbox form, reduced to what decides the outcome. */
export const sandboxConfirmationTokens = pgTable(
  "sandbox_confirmation_tokens",
  {
    id: text("id").primaryKey(),
    brand: text("brand").notNull(),
    last4: text("last4").notNull(),
    expMonth: integer("exp_month").notNull(),
    expYear: integer("exp_year").notNull(),
    outcome: text("outcome")
      .$type<
        "success" | "declined" | "insufficient_funds" | "renewal_declined" | "renewal_lost_card"
      >()
      .notNull(),
    usedAt: tstz("used_at"),
    createdAt: createdAt(),
  },
  (t) => [index("sandbox_confirmation_tokens_created_idx").on(t.createdAt)],
);

/**
 * Cards saved for off-session charges (renewals, dunning retries, plan changes). Only what the
 * processor lets us show (brand, last four, expiry) and its ids; the card itself stays with the
 * processor. Soft-deleted so payments keep pointing at a row.
 */
export const paymentMethods = pgTable(
  "payment_methods",
  {
    id: id(),
    organizationId: organizationRef(),
    customerId: customerRef(),
    processor: text("processor").$type<"sandbox" | "stripe">().notNull(),
    processorPaymentMethodId: text("processor_payment_method_id").notNull(),
    processorCustomerId: text("processor_customer_id"),
    type: text("type").$type<"card">().notNull().default("card"),
    brand: text("brand").notNull(),
    last4: text("last4").notNull(),
    expMonth: integer("exp_month"),
    expYear: integer("exp_year"),
    /** The processor's card fingerprint (trial abuse: the same card under another customer). */
    fingerprint: text("fingerprint"),
    isDefault: boolean("is_default").notNull().default(false),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
    deletedAt: tstz("deleted_at"),
  },
  (t) => [
    uniqueIndex("payment_methods_customer_pm_key").on(t.customerId, t.processorPaymentMethodId),
    index("payment_methods_org_customer_idx").on(t.organizationId, t.customerId),
    index("payment_methods_org_fingerprint_idx")
      .on(t.organizationId, t.fingerprint)
      .where(sql`${t.fingerprint} is not null`),
  ],
);

/**
 * Every charge and setup the sandbox processor made, by idempotency key: a repeated request answers
 * the same, and the reconciler can ask what became of a payment a crashed confirm started.
 */
export const sandboxCharges = pgTable(
  "sandbox_charges",
  {
    idempotencyKey: text("idempotency_key").primaryKey(),
    kind: text("kind").$type<"charge" | "setup" | "off_session">().notNull(),
    status: text("status").$type<"succeeded" | "failed">().notNull(),
    /** The test outcome of the card (renewal_declined: off-session charges with it decline). */
    outcome: text("outcome").$type<
      "success" | "declined" | "insufficient_funds" | "renewal_declined" | "renewal_lost_card"
    >(),
    processorPaymentId: text("processor_payment_id"),
    amount: bigint("amount", { mode: "number" }).notNull(),
    currency: text("currency").notNull(),
    brand: text("brand"),
    last4: text("last4"),
    expMonth: integer("exp_month"),
    expYear: integer("exp_year"),
    paymentMethodId: text("payment_method_id"),
    failureCode: text("failure_code"),
    failureMessage: text("failure_message"),
    createdAt: createdAt(),
  },
  (t) => [
    // The charge or setup that saved a card, found for each off-session charge against it: without
    // the index every renewal batch scanned all charges ever made.
    index("sandbox_charges_method_origin_idx")
      .on(t.paymentMethodId)
      .where(sql`${t.status} = 'succeeded' and ${t.kind} <> 'off_session'`),
  ],
);

/** Stripe webhook events already handled: Stripe retries and repeats them, each is applied once. */
export const stripeEvents = pgTable("stripe_events", {
  id: text("id").primaryKey(),
  type: text("type").notNull(),
  createdAt: createdAt(),
});

/**
 * Every payment attempt, succeeded or failed (Polar's Payment), written in the transaction that
 * applies its outcome; one row per processor idempotency key, so an outcome applied twice is
 * recorded once.
 */
export const payments = pgTable(
  "payments",
  {
    id: id(),
    organizationId: organizationRef(),
    customerId: uuid("customer_id").references(() => customers.id),
    checkoutId: uuid("checkout_id"),
    orderId: uuid("order_id"),
    idempotencyKey: text("idempotency_key").notNull(),
    processor: text("processor").notNull(),
    processorPaymentId: text("processor_payment_id"),
    status: text("status").$type<"pending" | "succeeded" | "failed">().notNull(),
    amount: bigint("amount", { mode: "number" }).notNull(),
    currency: text("currency").notNull(),
    method: text("method").notNull().default("card"),
    brand: text("brand"),
    last4: text("last4"),
    trigger: text("trigger"),
    declineReason: text("decline_reason"),
    declineMessage: text("decline_message"),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
  },
  (t) => [
    uniqueIndex("payments_idempotency_key").on(t.idempotencyKey),
    index("payments_org_created_idx").on(t.organizationId, t.createdAt),
    index("payments_checkout_idx").on(t.checkoutId),
    index("payments_order_idx").on(t.orderId),
  ],
);

/**
 * Chargebacks of a payment, from the processor (Polar's Dispute): one row per processor dispute,
 * kept current from its events; `revokedAt` marks the benefits revoked once when it was lost.
 */
export const disputes = pgTable(
  "disputes",
  {
    id: id(),
    organizationId: organizationRef(),
    customerId: customerRef(),
    orderId: uuid("order_id").notNull(),
    paymentId: uuid("payment_id")
      .notNull()
      .references(() => payments.id),
    processor: text("processor").$type<"sandbox" | "stripe">().notNull(),
    processorDisputeId: text("processor_dispute_id").notNull(),
    status: text("status")
      .$type<"prevented" | "early_warning" | "needs_response" | "under_review" | "lost" | "won">()
      .notNull(),
    amount: bigint("amount", { mode: "number" }).notNull(),
    taxAmount: bigint("tax_amount", { mode: "number" }).notNull(),
    currency: text("currency").notNull(),
    reason: text("reason"),
    evidenceDueBy: tstz("evidence_due_by"),
    pastDue: boolean("past_due").notNull().default(false),
    revokedAt: tstz("revoked_at"),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
  },
  (t) => [
    uniqueIndex("disputes_processor_id_key").on(t.processor, t.processorDisputeId),
    index("disputes_org_created_idx").on(t.organizationId, t.createdAt),
    index("disputes_order_idx").on(t.orderId),
  ],
);
