// Checkout sessions and checkout links. Client secrets are looked up by their SHA-256 and kept
// encrypted (AES-GCM under the server's secret) only because Polar's API shows them again in every
// read of the checkout.
import { sql } from "drizzle-orm";
import { bigint, boolean, index, integer, jsonb, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { organization } from "./auth.ts";
import { createdAt, id, modifiedAt, tstz } from "./columns.ts";
import type { CustomerAddress } from "./customers.ts";
import { customers } from "./customers.ts";
import { discounts } from "./discounts.ts";
import { productPrices, products } from "./products.ts";

type Metadata = Record<string, string | number | boolean>;

export interface PaymentReplay {
  confirmationTokenId: string;
  description: string;
  savePaymentMethod: boolean;
}

export const checkouts = pgTable(
  "checkouts",
  {
    id: id(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organization.id, { onDelete: "cascade" }),
    status: text("status")
      .$type<"open" | "expired" | "confirmed" | "succeeded" | "failed">()
      .notNull()
      .default("open"),
    clientSecretHash: text("client_secret_hash").notNull().unique(),
    clientSecretEnc: text("client_secret_enc").notNull(),
    expiresAt: tstz("expires_at").notNull(),
    successUrl: text("success_url"),
    returnUrl: text("return_url"),
    embedOrigin: text("embed_origin"),
    /** The products offered, in order; product_id/product_price_id is the one selected. */
    productIds: uuid("product_ids").array().notNull(),
    productId: uuid("product_id")
      .notNull()
      .references(() => products.id),
    productPriceId: uuid("product_price_id")
      .notNull()
      .references(() => productPrices.id),
    currency: text("currency").notNull(),
    /** Seats chosen for a seat-based price, and the bounds the seller allows on this session. */
    seats: integer("seats"),
    minSeats: integer("min_seats"),
    maxSeats: integer("max_seats"),
    amount: bigint("amount", { mode: "number" }).notNull(),
    discountAmount: bigint("discount_amount", { mode: "number" }).notNull().default(0),
    netAmount: bigint("net_amount", { mode: "number" }).notNull(),
    taxAmount: bigint("tax_amount", { mode: "number" }),
    totalAmount: bigint("total_amount", { mode: "number" }).notNull(),
    discountId: uuid("discount_id").references(() => discounts.id),
    /** Set while a confirm holds a redemption of the discount; released if the payment fails. */
    discountRedeemed: boolean("discount_redeemed").notNull().default(false),
    allowDiscountCodes: boolean("allow_discount_codes").notNull().default(true),
    requireBillingAddress: boolean("require_billing_address").notNull().default(false),
    isBusinessCustomer: boolean("is_business_customer").notNull().default(false),
    /** The seller's trial for this session, over the product's; allowTrial false: no trial at all. */
    trialInterval: text("trial_interval").$type<"day" | "week" | "month" | "year">(),
    trialIntervalCount: integer("trial_interval_count"),
    allowTrial: boolean("allow_trial"),
    customerId: uuid("customer_id").references(() => customers.id),
    externalCustomerId: text("external_customer_id"),
    customerName: text("customer_name"),
    customerEmail: text("customer_email"),
    customerIpAddress: text("customer_ip_address"),
    customerBillingName: text("customer_billing_name"),
    customerBillingAddress: jsonb("customer_billing_address").$type<CustomerAddress>(),
    customerTaxId: text("customer_tax_id"),
    customFieldData: jsonb("custom_field_data")
      .$type<Record<string, string | number | boolean | null>>()
      .notNull()
      .default(sql`'{}'::jsonb`),
    metadata: jsonb("metadata").$type<Metadata>().notNull().default(sql`'{}'::jsonb`),
    customerMetadata: jsonb("customer_metadata")
      .$type<Metadata>()
      .notNull()
      .default(sql`'{}'::jsonb`),
    paymentProcessor: text("payment_processor").notNull(),
    paymentAttempts: integer("payment_attempts").notNull().default(0),
    paymentError: text("payment_error"),
    processorPaymentId: text("processor_payment_id"),
    /**
     * What the current attempt's charge was asked with, so the reconciler can ask the processor
     * again under the same idempotency key and be answered with that charge.
     */
    paymentReplay: jsonb("payment_replay").$type<PaymentReplay>(),
    cardBrand: text("card_brand"),
    cardLast4: text("card_last4"),
    orderId: uuid("order_id"),
    subscriptionId: uuid("subscription_id"),
    checkoutLinkId: uuid("checkout_link_id"),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
  },
  (t) => [
    index("checkouts_org_created_idx").on(t.organizationId, t.createdAt),
    index("checkouts_open_expiry_idx").on(t.expiresAt).where(sql`${t.status} = 'open'`),
    // The reconciler's scan: the few sessions between claim and settlement.
    index("checkouts_confirmed_idx").on(t.modifiedAt).where(sql`${t.status} = 'confirmed'`),
  ],
);

export const checkoutLinks = pgTable(
  "checkout_links",
  {
    id: id(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organization.id, { onDelete: "cascade" }),
    clientSecretHash: text("client_secret_hash").notNull().unique(),
    clientSecretEnc: text("client_secret_enc").notNull(),
    productIds: uuid("product_ids").array().notNull(),
    label: text("label"),
    successUrl: text("success_url"),
    returnUrl: text("return_url"),
    allowDiscountCodes: boolean("allow_discount_codes").notNull().default(true),
    requireBillingAddress: boolean("require_billing_address").notNull().default(false),
    discountId: uuid("discount_id").references(() => discounts.id),
    metadata: jsonb("metadata").$type<Metadata>().notNull().default(sql`'{}'::jsonb`),
    paymentProcessor: text("payment_processor").notNull(),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
    deletedAt: tstz("deleted_at"),
  },
  (t) => [index("checkout_links_org_created_idx").on(t.organizationId, t.createdAt)],
);
