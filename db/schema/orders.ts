// Orders (what was paid, line by line, with the amounts at the time) and subscriptions.
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  uuid,
} from "drizzle-orm/pg-core";
import { checkouts } from "./checkouts.ts";
import { id, timestamps, tstz } from "./columns.ts";
import { customerRef, organizationRef } from "./owned.ts";
import { type CustomerAddress, customers } from "./customers.ts";
import { discounts } from "./discounts.ts";
import { productPrices, products } from "./products.ts";

/**
 * An off-session charge as first asked of the processor. Asked again under the same idempotency
 * key, the processor answers with the charge it made then, read after write (Stripe's search,
 * the alternative, lags behind writes).
 */
export interface OffSessionReplay {
  amount: number;
  currency: string;
  paymentMethod: { processorPaymentMethodId: string; processorCustomerId: string | null };
  idempotencyKey: string;
  description: string;
  metadata: Record<string, string>;
}

type Metadata = Record<string, string | number | boolean>;

export interface PendingUpdate {
  id: string;
  /** The product from the next period; null when only the seats change. */
  productId: string | null;
  /** The seats from the next period, for a seat-based subscription; absent or null: unchanged. */
  seats?: number | null;
  appliesAt: string;
  createdAt: string;
}

export const subscriptions = pgTable(
  "subscriptions",
  {
    id: id(),
    organizationId: organizationRef(),
    customerId: customerRef(),
    productId: uuid("product_id")
      .notNull()
      .references(() => products.id),
    checkoutId: uuid("checkout_id").references(() => checkouts.id),
    discountId: uuid("discount_id").references(() => discounts.id),
    /**
     * The start of the first period the discount applied to (Polar's discount_applied_at): `once`
     * and `repeating` durations count from it. Null while a discount set by a PATCH waits for its
     * first renewal.
     */
    discountAppliedAt: tstz("discount_applied_at"),
    priceIds: uuid("price_ids").array().notNull(),
    status: text("status").notNull(),
    amount: bigint("amount", { mode: "number" }).notNull(),
    /** The amount chosen for a custom (pay-what-you-want) price, before any discount; else null. */
    customAmount: bigint("custom_amount", { mode: "number" }),
    /** Seats bought, for a seat-based price; null otherwise. */
    seats: integer("seats"),
    currency: text("currency").notNull(),
    recurringInterval: text("recurring_interval").notNull(),
    recurringIntervalCount: integer("recurring_interval_count").notNull().default(1),
    currentPeriodStart: tstz("current_period_start").notNull(),
    currentPeriodEnd: tstz("current_period_end").notNull(),
    /** The meter cycle within the period, for products with a meter_interval; else null. */
    currentMeterPeriodStart: tstz("current_meter_period_start"),
    currentMeterPeriodEnd: tstz("current_meter_period_end"),
    cancelAtPeriodEnd: boolean("cancel_at_period_end").notNull().default(false),
    trialStart: tstz("trial_start"),
    trialEnd: tstz("trial_end"),
    pastDueAt: tstz("past_due_at"),
    pauseAtPeriodEnd: boolean("pause_at_period_end").notNull().default(false),
    pausedAt: tstz("paused_at"),
    resumesAt: tstz("resumes_at"),
    /** A plan change recorded with proration_behavior next_period, applied at the next renewal. */
    pendingUpdate: jsonb("pending_update").$type<PendingUpdate>(),
    /** Prorated charges (positive) and credits (negative) of plan changes, billed at the next cycle. */
    prorationAmount: bigint("proration_amount", { mode: "number" }).notNull().default(0),
    /** When the billing engine next has work on this subscription (renewal, retry, end, resume). */
    nextActionAt: tstz("next_action_at"),
    /** The day of the month its periods end on (Polar's anchor_day): months too short end earlier. */
    anchorDay: smallint("anchor_day"),
    /** Held while one change or charge works on it (subscriptions/lease.ts); lapses by itself. */
    lockedUntil: tstz("locked_until"),
    canceledAt: tstz("canceled_at"),
    startedAt: tstz("started_at"),
    endsAt: tstz("ends_at"),
    endedAt: tstz("ended_at"),
    customerCancellationReason: text("customer_cancellation_reason"),
    customerCancellationComment: text("customer_cancellation_comment"),
    metadata: jsonb("metadata").$type<Metadata>().notNull().default(sql`'{}'::jsonb`),
    customFieldData: jsonb("custom_field_data")
      .$type<Record<string, unknown>>()
      .notNull()
      .default(sql`'{}'::jsonb`),
    ...timestamps(),
  },
  (t) => [
    index("subscriptions_org_created_idx").on(t.organizationId, t.createdAt, t.id),
    index("subscriptions_customer_idx").on(t.customerId, t.status),
    index("subscriptions_next_action_idx").on(t.organizationId, t.nextActionAt),
    index("subscriptions_due_idx").on(t.nextActionAt),
  ],
);

export const orders = pgTable(
  "orders",
  {
    id: id(),
    organizationId: organizationRef(),
    customerId: customerRef(),
    productId: uuid("product_id").references(() => products.id),
    checkoutId: uuid("checkout_id").references(() => checkouts.id),
    subscriptionId: uuid("subscription_id").references(() => subscriptions.id),
    discountId: uuid("discount_id").references(() => discounts.id),
    status: text("status").notNull(),
    billingReason: text("billing_reason").notNull(),
    /** Seats bought by a one-time seat-based order (or billed by a seat-based cycle). */
    seats: integer("seats"),
    subtotalAmount: bigint("subtotal_amount", { mode: "number" }).notNull(),
    discountAmount: bigint("discount_amount", { mode: "number" }).notNull(),
    netAmount: bigint("net_amount", { mode: "number" }).notNull(),
    taxAmount: bigint("tax_amount", { mode: "number" }).notNull(),
    totalAmount: bigint("total_amount", { mode: "number" }).notNull(),
    /** Wallet balance applied: negative when credit paid part of the total (as Polar signs it). */
    appliedBalanceAmount: bigint("applied_balance_amount", { mode: "number" }).notNull().default(0),
    refundedAmount: bigint("refunded_amount", { mode: "number" }).notNull().default(0),
    refundedTaxAmount: bigint("refunded_tax_amount", { mode: "number" }).notNull().default(0),
    currency: text("currency").notNull(),
    billingName: text("billing_name"),
    billingAddress: jsonb("billing_address").$type<CustomerAddress>(),
    /** Per organization, gapless, assigned in the order's own insert transaction. */
    invoiceNumber: text("invoice_number"),
    /** The generated invoice PDF in file storage; billing details are frozen once it exists. */
    invoiceFileKey: text("invoice_file_key"),
    receiptNumber: text("receipt_number"),
    receiptFileKey: text("receipt_file_key"),
    processorPaymentId: text("processor_payment_id"),
    /** One order per (subscription, period, reason): the unique key renewals insert under. */
    billingKey: text("billing_key").unique(),
    paymentAttempts: integer("payment_attempts").notNull().default(0),
    nextPaymentAttemptAt: tstz("next_payment_attempt_at"),
    /**
     * A draft order's finalize claimed its current attempt (payment_attempts) and may have charged:
     * set until the attempt is settled, so the reconciler can ask the processor what became of it.
     */
    finalizingAt: tstz("finalizing_at"),
    /** The saved payment method the claimed attempt charges (a repeated finalize charges the same). */
    finalizePaymentMethodId: uuid("finalize_payment_method_id"),
    /** The claimed attempt's charge as asked, so it can be asked again under its key. */
    finalizePaymentReplay: jsonb("finalize_payment_replay").$type<OffSessionReplay>(),
    metadata: jsonb("metadata").$type<Metadata>().notNull().default(sql`'{}'::jsonb`),
    customFieldData: jsonb("custom_field_data")
      .$type<Record<string, unknown>>()
      .notNull()
      .default(sql`'{}'::jsonb`),
    ...timestamps(),
  },
  (t) => [
    index("orders_org_created_idx").on(t.organizationId, t.createdAt, t.id),
    index("orders_customer_idx").on(t.customerId),
    index("orders_finalizing_idx").on(t.finalizingAt),
    // The orders still owed on a subscription (dunning, meter-cycle retries): few, read often.
    index("orders_pending_subscription_idx")
      .on(t.subscriptionId)
      .where(sql`${t.status} = 'pending'`),
  ],
);

export const orderItems = pgTable(
  "order_items",
  {
    id: id(),
    orderId: uuid("order_id")
      .notNull()
      .references(() => orders.id, { onDelete: "cascade" }),
    label: text("label").notNull(),
    amount: bigint("amount", { mode: "number" }).notNull(),
    taxAmount: bigint("tax_amount", { mode: "number" }).notNull(),
    proration: boolean("proration").notNull().default(false),
    productPriceId: uuid("product_price_id").references(() => productPrices.id),
    /** The item's place in its order: the items are inserted in one statement, so share created_at. */
    position: integer("position").notNull().default(0),
    ...timestamps(),
  },
  (t) => [index("order_items_order_idx").on(t.orderId)],
);

/**
 * Per-organization sequences for invoice and receipt numbers. A number is taken by updating the
 * organization's row inside the transaction that uses it, so a rolled-back order gives its number
 * back and concurrent orders wait for each other: no gaps, no duplicates.
 */
export const documentCounters = pgTable(
  "document_counters",
  {
    organizationId: organizationRef(),
    kind: text("kind").$type<"invoice" | "receipt">().notNull(),
    last: integer("last").notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.kind] })],
);

/**
 * Per-customer sequences, for organizations that number per customer (Polar's default,
 * order_settings.invoice_numbering = "customer"): taken like documentCounters, but orders of
 * different customers never wait for each other.
 */
export const customerDocumentCounters = pgTable(
  "customer_document_counters",
  {
    // Cascades: an organization deleted with its customers takes their counters with them.
    customerId: uuid("customer_id")
      .notNull()
      .references(() => customers.id, { onDelete: "cascade" }),
    kind: text("kind").$type<"invoice" | "receipt">().notNull(),
    last: integer("last").notNull(),
  },
  (t) => [primaryKey({ columns: [t.customerId, t.kind] })],
);

/**
 * An off-session charge a subscription change (an `invoice` plan or seat change) is about to make,
 * committed before the processor is asked. The change's own transaction deletes it; one still here
 * after PAYMENTS_RECONCILE_AFTER_SECONDS lost its change (the process died, or the processor did not
 * answer), and the reconciler refunds whatever the processor charged under its key.
 */
export const changeCharges = pgTable(
  "change_charges",
  {
    id: id(),
    organizationId: organizationRef(),
    subscriptionId: uuid("subscription_id")
      .notNull()
      .references(() => subscriptions.id, { onDelete: "cascade" }),
    customerId: customerRef(),
    idempotencyKey: text("idempotency_key").notNull().unique(),
    amount: bigint("amount", { mode: "number" }).notNull(),
    currency: text("currency").notNull(),
    claimedAt: tstz("claimed_at").notNull(),
    /** The charge as asked, so the reconciler can ask it again under its key. */
    paymentReplay: jsonb("payment_replay").$type<OffSessionReplay>(),
    /** Taken over by the reconciler: the change can no longer commit against it. */
    abandonedAt: tstz("abandoned_at"),
  },
  (t) => [index("change_charges_claimed_idx").on(t.claimedAt)],
);
