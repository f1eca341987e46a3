// Seats of a seat-based subscription (or one-time order): each one assigned to an email, then
// claimed by its holder through a single-use invitation token (kept only as its SHA-256) or revoked.
// A revoked seat keeps its row for the history; the live seats of a purchase are those not revoked.
import { sql } from "drizzle-orm";
import { check, index, jsonb, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { id, timestamps, tstz } from "./columns.ts";
import { customers } from "./customers.ts";
import { members } from "./members.ts";
import { orders, subscriptions } from "./orders.ts";
import { organizationRef } from "./owned.ts";

export const SEAT_STATUSES = ["pending", "claimed", "revoked"] as const;
export type SeatStatus = (typeof SEAT_STATUSES)[number];

export const customerSeats = pgTable(
  "customer_seats",
  {
    id: id(),
    organizationId: organizationRef(),
    /** The customer who bought the seats. */
    billingCustomerId: uuid("billing_customer_id")
      .notNull()
      .references(() => customers.id),
    subscriptionId: uuid("subscription_id").references(() => subscriptions.id),
    orderId: uuid("order_id").references(() => orders.id),
    status: text("status").$type<SeatStatus>().notNull(),
    email: text("email").notNull(),
    /** The seat holder as a customer of the organization, once known (assigned by id, or claimed). */
    customerId: uuid("customer_id").references(() => customers.id),
    /** The holder as a member of the buyer's team, linked when the seat is claimed. */
    memberId: uuid("member_id").references(() => members.id, { onDelete: "set null" }),
    invitationTokenHash: text("invitation_token_hash"),
    invitationTokenExpiresAt: tstz("invitation_token_expires_at"),
    claimedAt: tstz("claimed_at"),
    revokedAt: tstz("revoked_at"),
    seatMetadata: jsonb("seat_metadata").$type<Record<string, unknown>>(),
    ...timestamps(),
  },
  (t) => [
    uniqueIndex("customer_seats_token_uq")
      .on(t.invitationTokenHash)
      .where(sql`${t.invitationTokenHash} is not null`),
    // One live seat per email and purchase: assigning the same person twice is refused.
    uniqueIndex("customer_seats_live_email_uq")
      .on(sql`coalesce(${t.subscriptionId}, ${t.orderId})`, sql`lower(${t.email})`)
      .where(sql`${t.status} <> 'revoked'`),
    index("customer_seats_subscription_idx").on(t.subscriptionId),
    index("customer_seats_order_idx").on(t.orderId),
    index("customer_seats_org_created_idx").on(t.organizationId, t.createdAt),
    check(
      "customer_seats_owner_check",
      sql`(${t.subscriptionId} is null) <> (${t.orderId} is null)`,
    ),
  ],
);
