// Members of a customer's team (Polar's B2B members). Deleted for good: nothing else points at a
// member, so a removed address can be added again. Email (case-insensitive) and external_id are
// unique per customer; at most one owner per customer, enforced by the index so that two
// concurrent promotions cannot both win.
import { sql } from "drizzle-orm";
import { check, index, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, id, modifiedAt } from "./columns.ts";
import { customerRef, organizationRef } from "./owned.ts";

export const MEMBER_ROLES = ["owner", "billing_manager", "member"] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

export const members = pgTable(
  "members",
  {
    id: id(),
    organizationId: organizationRef(),
    customerId: customerRef(),
    email: text("email").notNull(),
    name: text("name"),
    externalId: text("external_id"),
    role: text("role").$type<MemberRole>().notNull(),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
  },
  (t) => [
    uniqueIndex("members_customer_email_uq").on(t.customerId, sql`lower(${t.email})`),
    uniqueIndex("members_customer_external_id_uq")
      .on(t.customerId, t.externalId)
      .where(sql`${t.externalId} is not null`),
    uniqueIndex("members_customer_owner_uq").on(t.customerId).where(sql`${t.role} = 'owner'`),
    index("members_org_created_idx").on(t.organizationId, t.createdAt),
    check("members_role_check", sql`${t.role} in ('owner', 'billing_manager', 'member')`),
  ],
);
