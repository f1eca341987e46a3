// Wire shapes of the seats API (Polar's SeatAssign, CustomerSeatAssign, SeatClaim, CustomerSeat,
// SeatsList, SeatClaimInfo) and the serializers from a seat row.
import { z } from "zod";
import { SEAT_STATUSES, type customerSeats } from "../../../db/schema/index.ts";
import { nullableTimestamp, timestamp } from "../../lib/wire.ts";
import { memberOut, memberSchema, type MemberRow } from "../members/schemas.ts";

export type SeatRow = typeof customerSeats.$inferSelect;

const seatMetadata = z
  .record(z.string().max(40), z.unknown())
  .refine((m) => Object.keys(m).length <= 10, "At most 10 keys.")
  .refine((m) => JSON.stringify(m).length <= 1024, "At most 1 KB in all.");

const holder = {
  email: z.email().max(320).nullish(),
  external_customer_id: z.string().min(1).max(256).nullish(),
  customer_id: z.uuid().nullish(),
  external_member_id: z.string().min(1).max(256).nullish(),
  member_id: z.uuid().nullish(),
  metadata: seatMetadata.nullish(),
};

export const seatAssign = z.object({
  subscription_id: z.uuid().nullish(),
  order_id: z.uuid().nullish(),
  checkout_id: z.uuid().nullish(),
  ...holder,
  immediate_claim: z.boolean().default(false),
});
export type SeatAssign = z.output<typeof seatAssign>;

/** The portal's form: the buyer assigns seats of their own purchase, always by invitation. */
export const portalSeatAssign = z.object({
  subscription_id: z.uuid().nullish(),
  order_id: z.uuid().nullish(),
  checkout_id: z.uuid().nullish(),
  ...holder,
});
export type PortalSeatAssign = z.output<typeof portalSeatAssign>;

export const seatListQuery = z.object({
  subscription_id: z.uuid().optional(),
  order_id: z.uuid().optional(),
});
export type SeatListQuery = z.output<typeof seatListQuery>;

export const seatClaim = z.object({ invitation_token: z.string().min(1).max(200) });

export const seatSchema = z
  .object({
    created_at: timestamp,
    modified_at: nullableTimestamp,
    id: z.uuid(),
    subscription_id: z.uuid().nullable(),
    order_id: z.uuid().nullable(),
    status: z.enum(SEAT_STATUSES).meta({ id: "SeatStatus" }),
    customer_id: z.uuid().nullable(),
    member_id: z.uuid().nullable(),
    member: memberSchema.nullable(),
    email: z.string().nullable(),
    customer_email: z.string().nullable(),
    invitation_token_expires_at: nullableTimestamp,
    claimed_at: nullableTimestamp,
    revoked_at: nullableTimestamp,
    seat_metadata: z.record(z.string(), z.unknown()),
  })
  .meta({ id: "CustomerSeat" });
export type SeatOut = z.output<typeof seatSchema>;

export const seatsListSchema = z
  .object({
    seats: z.array(seatSchema),
    available_seats: z.number().int(),
    total_seats: z.number().int(),
  })
  .meta({ id: "SeatsList" });
export type SeatsListOut = z.output<typeof seatsListSchema>;

export const seatClaimInfoSchema = z
  .object({
    product_name: z.string(),
    product_id: z.uuid(),
    organization_name: z.string(),
    organization_slug: z.string(),
    customer_email: z.string(),
    can_claim: z.boolean(),
  })
  .meta({ id: "SeatClaimInfo" });
export type SeatClaimInfoOut = z.output<typeof seatClaimInfoSchema>;

export const seatClaimResponseSchema = z
  .object({ seat: seatSchema, customer_session_token: z.string() })
  .meta({ id: "CustomerSeatClaimResponse" });
export type SeatClaimResponseOut = z.output<typeof seatClaimResponseSchema>;

export function seatOut(row: SeatRow, member: MemberRow | null): SeatOut {
  return {
    created_at: row.createdAt.toISOString(),
    modified_at: row.modifiedAt?.toISOString() ?? null,
    id: row.id,
    subscription_id: row.subscriptionId,
    order_id: row.orderId,
    status: row.status,
    customer_id: row.customerId,
    member_id: row.memberId,
    member: member ? memberOut(member) : null,
    email: row.email,
    customer_email: row.email,
    invitation_token_expires_at:
      row.status === "pending" ? (row.invitationTokenExpiresAt?.toISOString() ?? null) : null,
    claimed_at: row.claimedAt?.toISOString() ?? null,
    revoked_at: row.revokedAt?.toISOString() ?? null,
    seat_metadata: row.seatMetadata ?? {},
  };
}
