// Customer wallets: one per (customer, type, currency), its balance the sum of an append-only
// ledger. A positive balance is credit the customer holds with the organization (a downgrade's
// unused time, an order's surplus); orders spend it before anything is charged. A negative one is
// owed (orders too small to charge, as Polar's under-minimum rule): the next order adds it. The wallet row is
// the lock that serializes every write to its ledger, so a credit is never spent twice.
import { sql } from "drizzle-orm";
import { bigint, index, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { id, timestamps } from "./columns.ts";
import { orders, subscriptions } from "./orders.ts";
import { customerRef, organizationRef } from "./owned.ts";

export const WALLET_TYPES = ["billing", "usage"] as const;
export type WalletType = (typeof WALLET_TYPES)[number];

/**
 * Why the balance moved: credited by a plan change or an order's surplus, spent by an order, or
 * owed: an order's amount below the smallest charge the card networks take (order_deferred).
 */
export const WALLET_REASONS = [
  "proration_credit",
  "order_surplus",
  "order_payment",
  "order_payment_release",
  "order_deferred",
] as const;
export type WalletReason = (typeof WALLET_REASONS)[number];

export const wallets = pgTable(
  "wallets",
  {
    id: id(),
    organizationId: organizationRef(),
    customerId: customerRef(),
    type: text("type").$type<WalletType>().notNull(),
    currency: text("currency").notNull(),
    ...timestamps(),
  },
  (t) => [
    uniqueIndex("wallets_customer_type_currency_uq").on(t.customerId, t.type, t.currency),
    index("wallets_org_created_idx").on(t.organizationId, t.createdAt),
  ],
);

export const walletTransactions = pgTable(
  "wallet_transactions",
  {
    id: id(),
    walletId: uuid("wallet_id")
      .notNull()
      .references(() => wallets.id, { onDelete: "cascade" }),
    /** Positive credits the customer, negative spends the credit. */
    amount: bigint("amount", { mode: "number" }).notNull(),
    reason: text("reason").$type<WalletReason>().notNull(),
    orderId: uuid("order_id").references(() => orders.id),
    subscriptionId: uuid("subscription_id").references(() => subscriptions.id),
    /** What the movement is for, once: an order's billing key, a plan change; a re-run finds it. */
    reference: text("reference"),
    ...timestamps(),
  },
  (t) => [
    index("wallet_transactions_wallet_idx").on(t.walletId, t.createdAt),
    uniqueIndex("wallet_transactions_reference_uq")
      .on(t.walletId, t.reason, t.reference)
      .where(sql`${t.reference} is not null`),
  ],
);
