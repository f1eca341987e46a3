// Sandbox confirmation tokens: the card a customer typed, reduced to what decides the outcome (brand,
// last four, the test outcome). Card numbers and CVCs are never stored.
import { bigint, boolean, index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, id, modifiedAt, tstz } from "./columns.ts";
import { customerRef, organizationRef } from "./owned.ts";

export const sandboxConfirmationTokens = pgTable(
  "sandbox_confirmation_tokens",
  {
    id: text("id").primaryKey(),
    brand: text("brand").notNull(),
    last4: text("last4").notNull(),
    expMonth: integer("exp_month").notNull(),
    expYear: integer("exp_year").notNull(),
    outcome: text("outcome")
      .$type<"success" | "declined" | "insufficient_funds" | "renewal_declined">()
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
    isDefault: boolean("is_default").notNull().default(false),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
    deletedAt: tstz("deleted_at"),
  },
  (t) => [
    uniqueIndex("payment_methods_customer_pm_key").on(t.customerId, t.processorPaymentMethodId),
    index("payment_methods_org_customer_idx").on(t.organizationId, t.customerId),
  ],
);

/**
 * Every charge and setup the sandbox processor made, by idempotency key: a repeated request answers
 * the same, and the reconciler can ask what became of a payment a crashed confirm started.
 */
export const sandboxCharges = pgTable("sandbox_charges", {
  idempotencyKey: text("idempotency_key").primaryKey(),
  kind: text("kind").$type<"charge" | "setup" | "off_session">().notNull(),
  status: text("status").$type<"succeeded" | "failed">().notNull(),
  /** The test outcome of the card (renewal_declined: off-session charges with it decline). */
  outcome: text("outcome").$type<
    "success" | "declined" | "insufficient_funds" | "renewal_declined"
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
});
