// Wire schemas for Polar's Member, MemberCreateFromCustomer and MemberUpdate (the seller's API) and
// CustomerPortalMember, …Create and …Update (the customer portal), with their serializers.
import { z } from "zod";
import { MEMBER_ROLES, type members } from "../../../db/schema/index.ts";
import { sortingSchema } from "../../lib/sorting.ts";
import { nullableTimestamp, timestamp } from "../../lib/wire.ts";

export type MemberRow = typeof members.$inferSelect;

const email = z.email().max(320);
const name = z.string().max(256);
const role = z.enum(MEMBER_ROLES).meta({ id: "MemberRole" });

// Ownership is given or moved only by an update, never at creation (Polar's rule).
export const memberCreate = z.object({
  email,
  name: name.nullish(),
  external_id: z.string().min(1).max(256).nullish(),
  role: z.enum(["member", "billing_manager"]).default("member"),
});
export type MemberCreate = z.output<typeof memberCreate>;

export const memberUpdate = z.object({
  name: name.nullish(),
  email: email.nullish(),
  role: role.nullish(),
});
export type MemberUpdate = z.output<typeof memberUpdate>;

export const memberListQuery = z.object({
  customer_id: z.string().optional(),
  external_customer_id: z.string().optional(),
  role: role.optional(),
  sorting: sortingSchema(["created_at"] as const, ["-created_at"]),
});
export type MemberListQuery = z.output<typeof memberListQuery>;

/** The members of one customer (Polar's SDK lists them under the customer). */
export const customerMemberListQuery = memberListQuery.pick({ role: true, sorting: true });
export type CustomerMemberListQuery = z.output<typeof customerMemberListQuery>;

export const portalMemberCreate = z.object({
  email,
  name: name.nullish(),
  role: role.default("member"),
});
export type PortalMemberCreate = z.output<typeof portalMemberCreate>;

export const portalMemberUpdate = z.object({
  name: name.nullish(),
  role: role.nullish(),
});
export type PortalMemberUpdate = z.output<typeof portalMemberUpdate>;

export const memberSchema = z
  .object({
    id: z.uuid(),
    created_at: timestamp,
    modified_at: nullableTimestamp,
    customer_id: z.uuid(),
    email: z.string(),
    name: z.string().nullable(),
    external_id: z.string().nullable(),
    role,
  })
  .meta({ id: "Member" });
export type MemberOut = z.output<typeof memberSchema>;

export const portalMemberSchema = z
  .object({
    created_at: timestamp,
    modified_at: nullableTimestamp,
    id: z.uuid(),
    email: z.string(),
    name: z.string().nullable(),
    role,
  })
  .meta({ id: "CustomerPortalMember" });
export type PortalMemberOut = z.output<typeof portalMemberSchema>;

export function memberOut(m: MemberRow): MemberOut {
  return {
    id: m.id,
    created_at: m.createdAt.toISOString(),
    modified_at: m.modifiedAt?.toISOString() ?? null,
    customer_id: m.customerId,
    email: m.email,
    name: m.name,
    external_id: m.externalId,
    role: m.role,
  };
}

export function portalMemberOut(m: MemberRow): PortalMemberOut {
  return {
    created_at: m.createdAt.toISOString(),
    modified_at: m.modifiedAt?.toISOString() ?? null,
    id: m.id,
    email: m.email,
    name: m.name,
    role: m.role,
  };
}
