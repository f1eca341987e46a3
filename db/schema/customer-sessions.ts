// Customer sessions: short-lived bearer tokens (till_cst_…) that let one customer read and manage
// their own subscriptions and orders through /v1/customer-portal. Only the token's hash is stored.
import { index, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { organization } from "./auth.ts";
import { createdAt, id, modifiedAt, tstz } from "./columns.ts";
import { customers } from "./customers.ts";

export const customerSessions = pgTable(
  "customer_sessions",
  {
    id: id(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organization.id, { onDelete: "cascade" }),
    customerId: uuid("customer_id")
      .notNull()
      .references(() => customers.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull().unique(),
    returnUrl: text("return_url"),
    expiresAt: tstz("expires_at").notNull(),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
  },
  (t) => [index("customer_sessions_customer_idx").on(t.customerId)],
);

/**
 * A customer's pending change of email address (the portal): the new address and the hash of the
 * till_cev_ token mailed to it. One per customer; used once; gone at its expiry.
 */
export const customerEmailVerifications = pgTable("customer_email_verifications", {
  id: id(),
  organizationId: uuid("organization_id")
    .notNull()
    .references(() => organization.id, { onDelete: "cascade" }),
  customerId: uuid("customer_id")
    .notNull()
    .unique()
    .references(() => customers.id, { onDelete: "cascade" }),
  email: text("email").notNull(),
  tokenHash: text("token_hash").notNull().unique(),
  expiresAt: tstz("expires_at").notNull(),
  createdAt: createdAt(),
});
